// Budget reservations on DynamoDB. A condition expression cannot add two numbers, and amounts are
// decimal strings, so "reserved + spent + amount <= cap" is decided in bigint arithmetic on a
// consistent read and written back with a compare-and-swap on `version` (or attribute_not_exists for
// the first reservation of a period). A lost race re-reads and decides again, with jittered backoff.
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

const keyOf = (golemId: string, period: bigint) => ({ pk: k.golemPk(golemId), sk: k.budgetSk(period) })

export async function getBudget(table: DynamoTable, golemId: string, period: bigint): Promise<BudgetRecord | null> {
  const item = await table.get(keyOf(v.golemId(golemId), v.period(period)))
  return item ? codec.budgetFromItem(item) : null
}

export async function reserveBudget(table: DynamoTable, cas: CasOptions, raw: S.ReserveBudgetInput): Promise<S.ReserveBudgetResult> {
  const i = parse.parseReserve(raw)
  return applyBudget(table, cas, 'reserveBudget', i.golemId, i.period, i.now, (b) => rules.planReserve(b, i))
}

export async function commitReservation(
  table: DynamoTable,
  cas: CasOptions,
  raw: S.CommitReservationInput,
): Promise<S.CommitReservationResult> {
  const i = parse.parseCommit(raw)
  return applyBudget(table, cas, 'commitReservation', i.golemId, i.period, i.now, (b) => rules.planCommit(b, i))
}

export async function releaseReservation(table: DynamoTable, cas: CasOptions, raw: S.ReservationRef): Promise<S.ReleaseReservationResult> {
  const i = parse.parseReservationRef(raw)
  return applyBudget(table, cas, 'releaseReservation', i.golemId, i.period, i.now, (b) => rules.planRelease(b, i))
}

async function applyBudget<R>(
  table: DynamoTable,
  cas: CasOptions,
  operation: string,
  golemId: string,
  period: bigint,
  now: number,
  plan: (b: BudgetRecord | null) => rules.BudgetPlan<R>,
): Promise<R> {
  // Full jitter from 1 ms: contenders spread out instead of colliding again in lockstep.
  const policy = { attempts: cas.maxAttempts, backoff: { baseMs: 1, capMs: cas.maxBackoffMs }, exhausted: contended(operation) }
  return retry(policy, async () => {
    const current = await getBudget(table, golemId, period)
    const { next, result } = plan(current)
    if (!next) return result
    const written = await table.put(
      codec.budgetToItem(next, now),
      current === null
        ? { expression: 'attribute_not_exists(pk)' }
        : { expression: '#version = :version', names: { '#version': 'version' }, values: { ':version': current.version } },
    )
    return written ? result : RETRY
  })
}
