export * from './types.ts'
export * from './errors.ts'
export { encodeBardoTerms, TOKEN_FEED_TUPLE } from './encodeBardoTerms.ts'
export { decodeBardoTerms } from './decodeBardoTerms.ts'
export * from './caveat.ts'
export * from './format.ts'
export {
  caveatKey,
  lifeWindowOf,
  timeWindowOf,
  windowBounds,
  describeWindow,
  effectiveMasks,
  describeValue,
  type TimeWindow,
} from './semantics.ts'
export { findAttenuationViolation, type AncestorCaveats } from './attenuation.ts'
export { findContradiction, type ContradictionOptions } from './contradictions.ts'
export * from './observerScope.ts'
export { summarizeDelegation, summarizeChain, summarizeCaveats, describePhaseMasks, type SummarizeOptions } from './summarizeDelegation.ts'
