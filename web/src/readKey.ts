// The read key a deployed page's owner was given by the operator (docs/api.md, "The read key for
// dashboards"): entered once, kept in this browser's storage only, and sent as `x-api-key` on the page's
// reads of the API, so the page polls under the read tier instead of the anonymous one. Where the page's
// own server adds the key (the local stack), the page asks for none and sends none.
import { READ_KEY_RULE, isReadKeyShaped } from '../../core/ratelimit/readKey.ts'

const ITEM = 'bardo.readKey'

/** Storage as the page has it (localStorage); absent (a sandboxed frame): no key is kept. */
type KeyStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>
const storage = (): KeyStorage | undefined => (typeof localStorage === 'undefined' ? undefined : localStorage)

export class ReadKeyError extends Error {
  readonly field = 'readKey'
  constructor() {
    super(`readKey: ${READ_KEY_RULE}`)
  }
}

export function savedReadKey(): string | null {
  return storage()?.getItem(ITEM) ?? null
}

/** Keeps the key after checking its shape; a malformed key is refused naming the field, and nothing is kept. */
export function saveReadKey(value: string): void {
  const key = value.trim()
  if (!isReadKeyShaped(key)) throw new ReadKeyError()
  storage()?.setItem(ITEM, key)
}

export function forgetReadKey(): void {
  storage()?.removeItem(ITEM)
}

/** The header the page's API reads carry: the kept key, if any. */
export function readKeyHeaders(): Record<string, string> {
  const key = savedReadKey()
  return key ? { 'x-api-key': key } : {}
}

/** The key as the page shows it: its prefix and last four characters, never the whole key. */
export const shownReadKey = (key: string): string => `bardo_read_…${key.slice(-4)}`
