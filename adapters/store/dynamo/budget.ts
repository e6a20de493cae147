// Budget reservations on DynamoDB. A condition expression cannot add two numbers, and amounts are
// decimal strings, so "reserved + spent + amount <= cap" is decided in bigint arithmetic on a
// consistent read and written back with a compare-and-swap on `version` (or attribute_not_exists for
// the first reservation of a period). A lost race re-reads and decides again, with jittered backoff.
// The first attempt decides on the record this store last read or wrote for that period (none known:
// the period's first reservation, no record yet) instead of reading it: a wrong guess fails the version
// condition and costs the read it would have saved, nothing else.
import * as codec from '../codec.ts'
import { RETRY, retry } from '../../../core/retry.ts'
import { contended } from '../../../core/store/errors.ts'
import * as parse from '../../../core/store/inputs.ts'
import * as k from '../keys.ts'
import type { BudgetRecord } from '../../../core/store/records.ts'
import * as rules from '../../../core/store/rules.ts'
import type * as S from '../../../core/store/store.ts'
import * as v from '../../../core/store/validate.ts'
import type { DynamoTable } from './table.ts'

export type CasOptions = { maxAttempts: number; maxBackoffMs: number }
export const DEFAULT_CAS: CasOptions = { maxAttempts: 200, maxBackoffMs: 40 }

/** Budget records this store last read or wrote, by Golem and period; the oldest are dropped past `max`. */
export class BudgetGuesses {
  readonly #known = new Map<string, BudgetRecord>()
  constructor(readonly max = 1024) {}

  // Copies in and out: a caller that changed a record it was answered with must not change a guess,
  // whose content the version condition vouches for only as written.
  get(golemId: string, period: bigint): BudgetRecord | null {
    const known = this.#known.get(`${golemId}:${period}`)
    return known ? structuredClone(known) : null
  }

  set(golemId: string, period: bigint, record: BudgetRecord | null): void {
    const id = `${golemId}:${period}`
    this.#known.delete(id)
    if (record === null) return
    this.#known.set(id, structuredClone(record))
    if (this.#known.size > this.max) this.#known.delete(this.#known.keys().next().value as string)
  }
}

const keyOf = (golemId: string, period: bigint) => ({ pk: k.golemPk(golemId), sk: k.budgetSk(period) })

export async function getBudget(table: DynamoTable, golemId: string, period: bigint): Promise<BudgetRecord | null> {
  const item = await table.get(keyOf(v.golemId(golemId), v.period(period)))
  return item ? codec.budgetFromItem(item) : null
}

export async function reserveBudget(
  table: DynamoTable,
  cas: CasOptions,
  guesses: BudgetGuesses,
  raw: S.ReserveBudgetInput,
): Promise<S.ReserveBudgetResult> {
  const i = parse.parseReserve(raw)
  return applyBudget(table, cas, guesses, 'reserveBudget', i.golemId, i.period, i.now, (b) => rules.planReserve(b, i))
}

export async function commitReservation(
  table: DynamoTable,
  cas: CasOptions,
  guesses: BudgetGuesses,
  raw: S.CommitReservationInput,
): Promise<S.CommitReservationResult> {
  const i = parse.parseCommit(raw)
  return applyBudget(table, cas, guesses, 'commitReservation', i.golemId, i.period, i.now, (b) => rules.planCommit(b, i))
}

export async function releaseReservation(
  table: DynamoTable,
  cas: CasOptions,
  guesses: BudgetGuesses,
  raw: S.ReservationRef,
): Promise<S.ReleaseReservationResult> {
  const i = parse.parseReservationRef(raw)
  return applyBudget(table, cas, guesses, 'releaseReservation', i.golemId, i.period, i.now, (b) => rules.planRelease(b, i))
}

async function applyBudget<R>(
  table: DynamoTable,
  cas: CasOptions,
  guesses: BudgetGuesses,
  operation: string,
  golemId: string,
  period: bigint,
  now: number,
  plan: (b: BudgetRecord | null) => rules.BudgetPlan<R>,
): Promise<R> {
  const write = (next: BudgetRecord, current: BudgetRecord | null) =>
    table.put(
      codec.budgetToItem(next, now),
      current === null
        ? { expression: 'attribute_not_exists(pk)' }
        : { expression: '#version = :version', names: { '#version': 'version' }, values: { ':version': current.version } },
    )
  // Only a write is decided on the guess (its condition checks the guess); an answer without a write
  // (a refusal, an idempotent repeat) is decided on a read.
  const guess = guesses.get(golemId, period)
  const guessed = planOnGuess(plan, guess)
  if (guessed?.next) {
    if (await write(guessed.next, guess)) {
      guesses.set(golemId, period, guessed.next)
      return guessed.result
    }
    guesses.set(golemId, period, null)
  }
  // Full jitter from 1 ms: contenders spread out instead of colliding again in lockstep.
  const policy = { attempts: cas.maxAttempts, backoff: { baseMs: 1, capMs: cas.maxBackoffMs }, exhausted: contended(operation) }
  return retry(policy, async () => {
    const current = await getBudget(table, golemId, period)
    const { next, result } = plan(current)
    if (!next) {
      guesses.set(golemId, period, current)
      return result
    }
    if (!(await write(next, current))) return RETRY
    guesses.set(golemId, period, next)
    return result
  })
}

/** The plan on a guessed record; null when the guess makes it throw (decided again on a read). */
function planOnGuess<R>(plan: (b: BudgetRecord | null) => rules.BudgetPlan<R>, guess: BudgetRecord | null): rules.BudgetPlan<R> | null {
  try {
    return plan(guess)
  } catch {
    return null
  }
}
