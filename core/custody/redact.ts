import { inspect } from 'node:util'

export const REDACTED = '[redacted]'

/**
 * Makes `target` show only `summary()` to JSON.stringify, util.inspect (console.log) and String().
 * Custody objects hold keys in private fields, which those already skip; this is the second wall,
 * so that a future public field or a debugger-friendly refactor cannot leak a key into a log.
 */
export function redact<T extends object>(target: T, summary: () => Record<string, unknown>): T {
  const describe = () => ({ ...summary(), key: REDACTED })
  Object.defineProperties(target, {
    toJSON: { value: describe, enumerable: false },
    [inspect.custom]: { value: () => describe(), enumerable: false },
    toString: { value: () => `${target.constructor.name}(${JSON.stringify(describe())})`, enumerable: false },
  })
  return target
}

// 32 bytes of hex standing alone: the shape of a private key (and, unavoidably, of a hash).
const KEY_SHAPED = /(?<![0-9a-fA-Fx])(0x)?[0-9a-fA-F]{64}(?![0-9a-fA-F])/g

/**
 * Scrubs key-shaped hex from text that comes from outside (a remote error body, a cause's message)
 * before it goes into one of our errors. Hashes look the same as keys, so they are scrubbed too:
 * losing a hash in an error message is cheap, leaking a key is not.
 */
export function redactText(text: string): string {
  return text.replace(KEY_SHAPED, REDACTED)
}
