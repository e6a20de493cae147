// One loop for every bounded retry: a compare-and-swap that lost to a concurrent write (read again,
// decide again, write again) and a transient refusal (a collision, keys left unprocessed). The attempt
// says whether another one is due by answering RETRY; the policy says how many attempts there are,
// how long to wait between them, and what the loop answers once they have all asked for another.
import { InvariantError } from './errors.ts'

/** What an attempt answers to ask for another one. */
export const RETRY: unique symbol = Symbol('retry')
export type Retry = typeof RETRY

/**
 * What an attempt answers when its turn was used up before this loop ran (an attempt slot an earlier
 * tick spent): the loop moves on to the next without counting it among `attempts` or waiting.
 */
export const PASSED: unique symbol = Symbol('passed')
export type Passed = typeof PASSED

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
  /**
   * How many PASSED answers the loop moves past before it answers `exhausted` (default 0: the first
   * PASSED ends it). Bounds the reads of a step whose earlier turns were all spent.
   */
  passes?: number
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
 * Runs `attempt(0)`, `attempt(1)`, ... until one answers something other than RETRY or PASSED, and
 * answers that; after `policy.attempts` RETRYs (or more than `policy.passes` PASSEDs) it answers
 * `policy.exhausted(attempts made)`. `n` counts every turn, passed ones included, so a turn keeps its
 * number (its slot) across loops. An attempt that throws ends the loop with its error: only what the
 * attempt itself recognises as worth another try is retried.
 */
export async function retry<T>(policy: RetryPolicy<T>, attempt: (n: number) => Promise<T | Retry | Passed>): Promise<T> {
  const { attempts, backoff } = policy
  if (!(attempts === Number.POSITIVE_INFINITY || (Number.isInteger(attempts) && attempts >= 1)))
    throw new InvariantError('RETRY_POLICY', `retry: attempts must be a whole number of at least 1 or Infinity, got ${attempts}`)
  if (backoff !== undefined && !(backoff.baseMs >= 0 && backoff.capMs >= 0))
    throw new InvariantError('RETRY_POLICY', 'retry: backoff.baseMs and backoff.capMs must be at least 0')
  const passes = policy.passes ?? 0
  if (!(Number.isInteger(passes) && passes >= 0))
    throw new InvariantError('RETRY_POLICY', `retry: passes must be a whole number of at least 0, got ${passes}`)
  const sleep = policy.sleep ?? defaultSleep
  const random = policy.random ?? Math.random
  let made = 0
  let passed = 0
  for (let n = 0; made < attempts; n++) {
    const answer = await attempt(n)
    if (answer === PASSED) {
      if (++passed > passes) return policy.exhausted(made)
      continue
    }
    if (answer !== RETRY) return answer as T
    made++
    if (made < attempts && backoff !== undefined) await sleep(backoffMs(backoff, made - 1, random()))
  }
  return policy.exhausted(attempts)
}
