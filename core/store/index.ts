export type * from './store.ts'
export * from './records.ts'
export * from './errors.ts'
export { assertNoKeyMaterial } from './keyGuard.ts'
