// The local stack's read key for dashboards (the read tier, where the public tier allows 30 requests a
// minute per IP). A fresh key per run, printed with the URLs; BARDO_READ_API_KEY fixes
// it across restarts (a dashboard's saved settings). Only its hash reaches the API's configuration.
import { randomBytes } from 'node:crypto'
import { BardoError } from '../core/errors.ts'
import { isReadKeyShaped, READ_KEY_RULE, readKeyFromBytes } from '../core/ratelimit/tiers.ts'

/** The configured key is not a read key; the message names the variable, never the value. */
export class ReadKeyConfigError extends BardoError {
  constructor(rule: string) {
    super('READ_KEY_INVALID', `BARDO_READ_API_KEY: ${rule}`)
  }
}

/**
 * The local key's budget a minute. The dashboard's server proxies every tab of the owner's browser with
 * this one key, and one open dashboard polls about 160 reads a minute: the read tier's 300 would let a
 * second tab (or a CLI reading beside one) starve the first.
 */
export const LOCAL_READ_LIMIT = 1_200

export function localReadKey(env: NodeJS.ProcessEnv = process.env): string {
  const given = env.BARDO_READ_API_KEY
  if (given === undefined || given === '') return readKeyFromBytes(new Uint8Array(randomBytes(24)))
  if (!isReadKeyShaped(given)) throw new ReadKeyConfigError(READ_KEY_RULE)
  return given
}
