// x402 payments on DynamoDB, credited once per (payer, authorization nonce). A payment is claimed
// 'pending' before it is settled, so two concurrent copies of one payment settle once; 'settled' is
// final. A pending claim whose lease lapsed counts as absent (its holder crashed).
import * as codec from '../codec.ts'
import { RETRY, retry } from '../../../core/retry.ts'
import { contended } from '../../../core/store/errors.ts'
import * as parse from '../../../core/store/inputs.ts'
import * as k from '../keys.ts'
import type { PaymentRecord } from '../../../core/store/records.ts'
import * as rules from '../../../core/store/rules.ts'
import type * as S from '../../../core/store/store.ts'
import type { DynamoTable } from './table.ts'

/** A failed condition is read back and decided again at once: the state that failed it has already moved. */
const RACE = (operation: string) => ({ attempts: 5, exhausted: contended(operation) })
const keyOf = (r: S.PaymentRef) => ({ pk: k.paymentPk(r.payer, r.nonce), sk: k.SK.payment })
const terms = (i: S.PaymentInput) => ({
  entity: 'payment',
  payer: i.payer,
  nonce: i.nonce,
  golemId: i.golemId,
  amount: i.amount.toString(),
  kind: i.kind,
})

export async function getPayment(table: DynamoTable, ref: S.PaymentRef): Promise<PaymentRecord | null> {
  const item = await table.get(keyOf(parse.parsePaymentRef(ref)))
  return item ? codec.paymentFromItem(item) : null
}

export async function claimPayment(table: DynamoTable, raw: S.ClaimPaymentInput): Promise<S.ClaimPaymentResult> {
  const i = parse.parseClaimPayment(raw)
  return retry(RACE('claimPayment'), async () => {
    const item = await table.update(
      keyOf(i),
      { set: { ...terms(i), status: 'pending', owner: i.owner, leaseUntil: i.now + i.leaseMs, claimedAt: i.now }, add: { version: 1 } },
      {
        // A claim keeps the terms it was first made for: a lapsed one is taken over, never rebound.
        expression:
          'attribute_not_exists(pk) OR (#status = :pending AND #golemId = :golemId AND #kind = :kind AND #amount = :amount AND (#owner = :owner OR #leaseUntil <= :now))',
        names: {
          '#status': 'status',
          '#owner': 'owner',
          '#leaseUntil': 'leaseUntil',
          '#golemId': 'golemId',
          '#kind': 'kind',
          '#amount': 'amount',
        },
        values: {
          ':pending': 'pending',
          ':owner': i.owner,
          ':now': i.now,
          ':golemId': i.golemId,
          ':kind': i.kind,
          ':amount': i.amount.toString(),
        },
      },
    )
    if (item) return { claimed: true, payment: codec.paymentFromItem(item) }
    const existing = await getPayment(table, i)
    return existing && !rules.mayClaimPayment(existing, i) ? { claimed: false, existing } : RETRY
  })
}

export async function creditPaymentOnce(table: DynamoTable, raw: S.CreditPaymentInput): Promise<S.CreditPaymentResult> {
  const i = parse.parseCreditPayment(raw)
  const names: Record<string, string> = { '#status': 'status', '#leaseUntil': 'leaseUntil' }
  const values: Record<string, unknown> = { ':pending': 'pending', ':now': i.now }
  let pendingBranch = '#leaseUntil <= :now'
  if (i.owner !== undefined) {
    // The caller's own pending claim, for the same terms, may be completed.
    pendingBranch += ' OR (#owner = :owner AND #golemId = :golemId AND #amount = :amount AND #kind = :kind)'
    Object.assign(names, { '#owner': 'owner', '#golemId': 'golemId', '#amount': 'amount', '#kind': 'kind' })
    Object.assign(values, { ':owner': i.owner, ':golemId': i.golemId, ':amount': i.amount.toString(), ':kind': i.kind })
  }
  const set = codec.compact({
    ...terms(i),
    status: 'settled',
    creditedAt: i.now,
    owner: i.owner,
    txHash: i.txHash,
    signedTx: i.signedTx,
    validBefore: i.validBefore?.toString(),
  })
  const remove = ['leaseUntil', ...(i.owner === undefined ? ['owner'] : []), ...(i.txHash === undefined ? ['txHash'] : [])]
  return retry(RACE('creditPaymentOnce'), async () => {
    const item = await table.update(
      keyOf(i),
      { set, add: { version: 1 }, remove },
      {
        expression: `attribute_not_exists(pk) OR (#status = :pending AND (${pendingBranch}))`,
        names,
        values,
      },
    )
    if (item) return { credited: true, payment: codec.paymentFromItem(item) }
    const existing = await getPayment(table, i)
    return existing && rules.creditDecision(existing, i) === 'refuse' ? { credited: false, existing } : RETRY
  })
}

export async function releasePayment(table: DynamoTable, raw: S.ReleasePaymentInput): Promise<S.ReleasePaymentResult> {
  const i = parse.parseReleasePayment(raw)
  const deleted = await table.delete(keyOf(i), {
    expression: '#status = :pending AND #owner = :owner',
    names: { '#status': 'status', '#owner': 'owner' },
    values: { ':pending': 'pending', ':owner': i.owner },
  })
  return deleted ? { released: true } : { released: false, existing: await getPayment(table, i) }
}
