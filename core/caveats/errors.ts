import { BardoError } from '../errors.ts'

/**
 * Terms bytes that the enforcer's `getTermsInfo` would refuse: wrong length, a dirty word, a value out
 * of range. `caveat` is the enforcer kind and `field` the first field that is missing or wrong.
 */
export class InvalidTermsError extends BardoError {
  readonly caveat: string
  readonly field: string
  constructor(caveat: string, field: string, rule: string, details?: Record<string, unknown>) {
    super('INVALID_TERMS', `${caveat} terms: ${field} ${rule}`, { details: { caveat, field, ...details } })
    this.caveat = caveat
    this.field = field
  }
}

/** A caveat value that cannot be encoded (or built) because it breaks a rule of its enforcer. */
export class CaveatConfigError extends BardoError {
  readonly caveat: string
  readonly field: string
  constructor(caveat: string, field: string, rule: string, details?: Record<string, unknown>) {
    super('INVALID_CAVEAT', `${caveat}.${field} ${rule}`, { details: { caveat, field, ...details } })
    this.caveat = caveat
    this.field = field
  }
}

/**
 * A child delegation that would ask for more than an ancestor grants on a caveat they share. The message
 * is one sentence naming the caveat and both values, e.g.
 * "Child dailySpendLimit $2,000.00/day exceeds parent dailySpendLimit $1,000.00/day."
 */
export class AttenuationError extends BardoError {
  readonly caveat: string
  constructor(caveat: string, sentence: string, details?: Record<string, unknown>) {
    super('ATTENUATION', sentence, { details: { caveat, ...details } })
    this.caveat = caveat
  }
}

/** A caveat set that no execution can satisfy, that misleads about what it allows, or that is empty. */
export class ContradictionError extends BardoError {
  readonly caveat: string
  constructor(caveat: string, sentence: string, details?: Record<string, unknown>) {
    super('CONTRADICTORY_CAVEATS', sentence, { details: { caveat, ...details } })
    this.caveat = caveat
  }
}

/**
 * A delegation meant for a read-only observer that allows more than publishing to its oracles: a
 * missing ValueLte(0), a target that is not the Dream or Daimon oracle, a method that moves value, or
 * a caveat that spends. `field` is the caveat (`caveats.allowedMethods`) and the message says the rule.
 */
export class ObserverScopeError extends BardoError {
  readonly field: string
  constructor(field: string, rule: string, details?: Record<string, unknown>) {
    super('OBSERVER_SCOPE', `${field} ${rule}`, { details: { field, ...details } })
    this.field = field
  }
}
