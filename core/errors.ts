/**
 * Base class for every error this project throws on purpose.
 * `code` is stable (APIs and logs key on it); `details` is structured data for code and must never
 * carry key material. The message names the field and the rule that was broken.
 *
 * Interop note: viem treats `err.details` of an error thrown inside a viem account callback
 * (signTransaction, signTypedData) as a string and calls .toLowerCase() on it; an error that can be
 * thrown there must leave `details` unset and carry its data in named fields instead.
 */
export class BardoError extends Error {
  readonly code: string
  readonly details?: Record<string, unknown>

  constructor(code: string, message: string, options?: { details?: Record<string, unknown>; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.name = new.target.name
    this.code = code
    if (options?.details !== undefined) this.details = options.details
  }
}

/**
 * A rule of the code itself was broken: something its callers guarantee ("cannot happen") did not hold.
 * A bug to fix, never an answer to a caller's input; `code` says which rule.
 */
export class InvariantError extends BardoError {}
