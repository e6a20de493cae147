// x402 payment identifiers on DynamoDB, one item per (payer, identifier). A binding is written afresh
// only where none lives (absent or expired); a lapsed pending binding for the same terms is handed to
// a new owner with its first header kept; an answer is recorded once, by the binding's owner.
import * as codec from '../codec.ts'
import { RETRY, retry } from '../../../core/retry.ts'
import { contended } from '../../../core/store/errors.ts'
import * as parse from '../../../core/store/inputs.ts'
import * as k from '../keys.ts'
import type { PaymentIdRecord } from '../../../core/store/records.ts'
import * as rules from '../../../core/store/rules.ts'
import type * as S from '../../../core/store/store.ts'
import type { DynamoTable } from './table.ts'

/** A failed condition is read back and decided again at once: the state that failed it has already moved. */
const RACE = (operation: string) => ({ attempts: 5, exhausted: contended(operation) })
const keyOf = (r: S.PaymentIdRef) => ({ pk: k.paymentIdPk(r.payer, r.paymentId), sk: k.SK.paymentId })

async function read(table: DynamoTable, ref: S.PaymentIdRef): Promise<PaymentIdRecord | null> {
  const item = await table.get(keyOf(ref))
  return item ? codec.paymentIdFromItem(item) : null
}

export async function getPaymentId(table: DynamoTable, raw: S.PaymentIdRef & { now: number }): Promise<PaymentIdRecord | null> {
  const i = parse.parseGetPaymentId(raw)
  const record = await read(table, i)
  return record === null || rules.freshPaymentId(record, i.now) ? null : record
}

export async function bindPaymentId(table: DynamoTable, raw: S.BindPaymentIdInput): Promise<S.BindPaymentIdResult> {
  const i = parse.parseBindPaymentId(raw)
  return retry(RACE('bindPaymentId'), async () => {
    const fresh = rules.boundPaymentId(null, i)
    const written = await table.put(codec.paymentIdToItem(fresh), {
      expression: 'attribute_not_exists(pk) OR #expiresAt <= :now',
      names: { '#expiresAt': 'expiresAt' },
      values: { ':now': i.now },
    })
    if (written) return { bound: true, record: fresh }
    const item = await table.update(
      keyOf(i),
      { set: { owner: i.owner, leaseUntil: i.now + i.leaseMs }, add: { version: 1 } },
      {
        // Taken over only for the terms it was bound to, and only from its owner or a lapsed lease.
        expression:
          '#expiresAt > :now AND #status = :pending AND #golemId = :golemId AND #kind = :kind AND #amount = :amount AND (#owner = :owner OR #leaseUntil <= :now)',
        names: {
          '#expiresAt': 'expiresAt',
          '#status': 'status',
          '#golemId': 'golemId',
          '#kind': 'kind',
          '#amount': 'amount',
          '#owner': 'owner',
          '#leaseUntil': 'leaseUntil',
        },
        values: {
          ':now': i.now,
          ':pending': 'pending',
          ':golemId': i.golemId,
          ':kind': i.kind,
          ':amount': i.amount.toString(),
          ':owner': i.owner,
        },
      },
    )
    if (item) return { bound: true, record: codec.paymentIdFromItem(item) }
    const existing = await read(table, i)
    return existing && !rules.freshPaymentId(existing, i.now) && !rules.mayTakeOverPaymentId(existing, i)
      ? { bound: false, existing }
      : RETRY
  })
}

export async function answerPaymentId(table: DynamoTable, raw: S.AnswerPaymentIdInput): Promise<S.AnswerPaymentIdResult> {
  const i = parse.parseAnswerPaymentId(raw)
  const item = await table.update(
    keyOf(i),
    { set: { status: 'answered', answer: JSON.stringify(i.answer) }, add: { version: 1 }, remove: ['owner', 'leaseUntil'] },
    {
      expression: '#status = :pending AND #owner = :owner AND #expiresAt > :now',
      names: { '#status': 'status', '#owner': 'owner', '#expiresAt': 'expiresAt' },
      values: { ':pending': 'pending', ':owner': i.owner, ':now': i.now },
    },
  )
  return item ? { answered: true, record: codec.paymentIdFromItem(item) } : { answered: false, existing: await read(table, i) }
}

export async function releasePaymentId(table: DynamoTable, raw: S.ReleasePaymentIdInput): Promise<S.ReleasePaymentIdResult> {
  const i = parse.parseReleasePaymentId(raw)
  const deleted = await table.delete(keyOf(i), {
    expression: '#status = :pending AND #owner = :owner',
    names: { '#status': 'status', '#owner': 'owner' },
    values: { ':pending': 'pending', ':owner': i.owner },
  })
  return deleted ? { released: true } : { released: false, existing: await read(table, i) }
}
