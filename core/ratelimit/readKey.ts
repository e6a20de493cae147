// A read key's shape: one rule for the API's header check, the local stack's key and the page that
// keeps the key its owner was given. No I/O, nothing but the pattern: the browser bundles it too.

export const READ_KEY_PREFIX = 'bardo_read_'

/** A read key as the API accepts it in `x-api-key`: the prefix, then 16-128 URL-safe characters. */
export const READ_KEY_PATTERN = /^bardo_read_[A-Za-z0-9_-]{16,128}$/

/** The rule, as an error names it after the field. */
export const READ_KEY_RULE = "must be 'bardo_read_' followed by 16-128 letters, digits, '-' or '_'"

/** Whether `value` has a read key's shape (not whether the key is known). */
export function isReadKeyShaped(value: string): boolean {
  return READ_KEY_PATTERN.test(value)
}
