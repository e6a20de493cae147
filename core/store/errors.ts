import { BardoError } from '../errors.ts'

/**
 * An input the store refuses before touching the table: `field` names what was wrong and `rule` the
 * rule it broke. Nothing is written. The message never repeats the value (it could be key material).
 */
export class StoreInputError extends BardoError {
  readonly field: string
  readonly rule: string
  constructor(field: string, rule: string) {
    super('STORE_INPUT', `${field}: ${rule}`, { details: { field, rule } })
    this.field = field
    this.rule = rule
  }
}

/**
 * A write that would put something shaped like key material into the store. `path` names the
 * attribute (e.g. `meta.privateKey`); the value is never repeated, not even in part.
 */
export class KeyMaterialError extends BardoError {
  readonly path: string
  constructor(path: string, rule: string) {
    super('STORE_KEY_MATERIAL', `${path}: ${rule}; the store never holds key material`, { details: { path, rule } })
    this.path = path
  }
}

/**
 * The write contradicts what is stored, and retrying the same call cannot succeed: a Golem id that
 * exists, a reservation id reused with another amount, a status moving backwards.
 */
export class StoreConflictError extends BardoError {
  readonly field: string
  constructor(field: string, rule: string, details?: Record<string, unknown>) {
    super('STORE_CONFLICT', `${field}: ${rule}`, { details: { field, rule, ...details } })
    this.field = field
  }
}

/** Optimistic retries ran out under contention: nothing was written by this call; it may be retried. */
export class StoreContentionError extends BardoError {
  constructor(operation: string, attempts: number) {
    super('STORE_CONTENTION', `${operation}: still contended after ${attempts} attempts; nothing was written, retry later`, {
      details: { operation, attempts },
    })
  }
}

// 32 bytes of hex standing alone: scrubbed from backend messages, which are text we do not control.
const KEY_SHAPED = /(?<![0-9a-fA-Fx])(0x)?[0-9a-fA-F]{64}(?![0-9a-fA-F])/g

/**
 * DynamoDB (or dynalite) failed for a reason other than a condition: throttling, network, validation.
 * The SDK error is not kept as the cause (it drags the raw HTTP exchange along); its name and a
 * scrubbed message are.
 */
export class StoreBackendError extends BardoError {
  constructor(operation: string, error: unknown) {
    const name = error instanceof Error ? error.name : 'UnknownError'
    const text = (error instanceof Error ? error.message : String(error)).replace(KEY_SHAPED, '[redacted]').slice(0, 300)
    const cause = new Error(text)
    cause.name = name
    super('STORE_BACKEND', `${operation}: DynamoDB call failed (${name}: ${text})`, { details: { operation, error: name }, cause })
  }
}

/** A retry policy's `exhausted` for a store operation: its optimistic retries ran out, nothing was written. */
export const contended =
  (operation: string) =>
  (attempts: number): never => {
    throw new StoreContentionError(operation, attempts)
  }
