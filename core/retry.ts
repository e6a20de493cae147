// One loop for every bounded retry: a compare-and-swap that lost to a concurrent write (read again,
// decide again, write again) and a transient refusal (a collision, keys left unprocessed). The attempt
// says whether another one is due by answering RETRY; the policy says how many attempts there are,
// how long to wait between them, and what the loop answers once they have all asked for another.
import { InvariantError } from './errors.ts'

/** What an attempt answers to ask for another one. */
export const RETRY: unique symbol = Symbol('retry')
export type Retry = typeof RETRY

/**
 * Exponential backoff with full jitter: after the n-th failed attempt (0-based) a random wait in
 * [0, min(capMs, baseMs * 2^n)) ms, so contenders spread out instead of colliding again in lockstep.
 */
export type Backoff = { baseMs: number; capMs: number }

export type RetryPolicy<T> = {
  /** How many attempts at most: a whole number of at least 1, or Infinity for a loop that ends only when an attempt does. */
  attempts: number
  /** None: the next attempt follows at once (a conditional write that failed re-reads before it tries again). */
  backoff?: Backoff
  /** What the loop answers (or throws) when every attempt asked for another; `attempts` is how many ran. */
  exhausted: (attempts: number) => T
  /** Injected by tests; setTimeout by default. */
  sleep?: (ms: number) => Promise<void>
  /** Injected by tests; Math.random by default. */
  random?: () => number
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** The wait after the n-th failed attempt (0-based), given a random number in [0, 1). */
export function backoffMs(backoff: Backoff, failed: number, random: number): number {
  return random * Math.min(backoff.capMs, backoff.baseMs * 2 ** failed)
}

/**
 * Runs `attempt(0)`, `attempt(1)`, ... until one answers something other than RETRY, and answers that;
 * after `policy.attempts` RETRYs it answers `policy.exhausted(attempts)`. An attempt that throws ends the
 * loop with its error: only what the attempt itself recognises as worth another try is retried.
 */
export async function retry<T>(policy: RetryPolicy<T>, attempt: (n: number) => Promise<T | Retry>): Promise<T> {
  const { attempts, backoff } = policy
  if (!(attempts === Number.POSITIVE_INFINITY || (Number.isInteger(attempts) && attempts >= 1)))
    throw new InvariantError('RETRY_POLICY', `retry: attempts must be a whole number of at least 1 or Infinity, got ${attempts}`)
  if (backoff !== undefined && !(backoff.baseMs >= 0 && backoff.capMs >= 0))
    throw new InvariantError('RETRY_POLICY', 'retry: backoff.baseMs and backoff.capMs must be at least 0')
  const sleep = policy.sleep ?? defaultSleep
  const random = policy.random ?? Math.random
  for (let n = 0; n < attempts; n++) {
    if (n > 0 && backoff !== undefined) await sleep(backoffMs(backoff, n - 1, random()))
    const answer = await attempt(n)
    if (answer !== RETRY) return answer as T
  }
  return policy.exhausted(attempts)
}
