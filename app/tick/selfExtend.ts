// Executes the self-extension core/lifecycle/selfExtensionPlan.ts decides: the Golem pays
// `POST /api/v1/extend` for itself with an x402 v2 `exact` payment signed by its session key through the
// GolemSigner: an EIP-3009 authorization out of the runway it holds, or, where the deployment pays by
// delegation, a delegation under its runway grant that moves the money from the owner's account. Exactly once per decision: the decision's slot
// (keyed by the TTL it extends) is claimed before anything is signed, the payment is reserved against
// the per-period bound in the store, and the signed payment header is recorded in the slot before it is
// sent, so a retry after a crash re-sends the same payment (credited once by the API's ledger) instead
// of signing a second one.
import type { PaymentRequired } from '@x402/core/types'
import { bytesToHex, erc20Abi, hexToString, isAddressEqual, stringToHex, type Address, type Hex } from 'viem'
import { paymentPeriod } from '../../core/custody/paymentPolicy.ts'
import type { Phase } from '../../core/lifecycle/phase.ts'
import { tickEventTime } from '../../core/lifecycle/eventOrder.ts'
import { grantEndOf } from '../../core/lifecycle/grantInForce.ts'
import { parseGolemProfile, type GolemProfile } from '../../core/lifecycle/profile.ts'
import { planSelfExtension, type SelfExtensionStep } from '../../core/lifecycle/selfExtensionPlan.ts'
import type { BudgetRecord, SlotRef, TickSlot } from '../../core/store/index.ts'
import {
  encodePaymentSignature,
  evmNetwork,
  exactAuthorization,
  exactPaymentPayload,
  paymentSignatureAmount,
  parsePaymentRequiredHeader,
} from '../../core/x402/exactPayment.ts'
import { authorizedBesides, paymentBudgetId, reservationIdOf, StoredPaymentLedger } from './paymentBudget.ts'
import type { SlotBase } from './slots.ts'
import type { SelfExtensionConfig, SelfExtensionResult, TickDeps } from './types.ts'
import { BardoError } from '../../core/errors.ts'
import { asksForErc7710 } from '../../core/x402/erc7710.ts'
import { delegationPaymentPolicy, grantPayer, payByDelegation } from './paymentByDelegation.ts'

/** The tick's self-extension configuration; without it a Golem buys no runtime for itself. */
export const RUNTIME_BOUGHT_EVENT = 'RuntimeBought'

type Context = {
  deps: TickDeps & { selfExtension: SelfExtensionConfig }
  slotBase: SlotBase
  golemId: string
  profile: GolemProfile
}

const wallClockSeconds = () => BigInt(Math.floor(Date.now() / 1000))

export async function selfExtend(
  deps: TickDeps & { selfExtension: SelfExtensionConfig },
  slotBase: SlotBase,
  golemId: string,
  given: GolemProfile,
  at: { now: bigint; phase: Phase; dying: boolean; beatSeconds: bigint },
): Promise<SelfExtensionResult> {
  const config = deps.selfExtension
  const policy = config.payments
  let profile = given
  const ctx: Context = { deps, slotBase, golemId, profile }
  // The payment period is the signer's: it judges windows and periods by the clock x402 clients sign with.
  const period = paymentPeriod(policy, wallClockSeconds())
  // A payment an earlier tick sent but never saw answered is settled first (its TTL was credited, so
  // no later decision would reach its slot again): the same header, sent again.
  let budget = await deps.store.getBudget(paymentBudgetId(golemId), period)
  if (await settleSentPayments(ctx, budget)) {
    profile = parseGolemProfile((await deps.store.getGolem(golemId))?.profile ?? null)
    ctx.profile = profile
    budget = await deps.store.getBudget(paymentBudgetId(golemId), period)
  }
  // Paid from the key, the runway it holds pays; paid by delegation, the owner's account does.
  const held = await deps.client.readContract({
    address: policy.asset,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [config.byDelegation ? grantPayer(profile) : profile.golemKey],
  })
  const step = planSelfExtension({
    now: at.now,
    ttl: profile.life.runwayEndsAt,
    beatSeconds: at.beatSeconds,
    ...(config.marginSeconds === undefined ? {} : { marginSeconds: config.marginSeconds }),
    phase: at.phase,
    dying: at.dying,
    expectedEnd: grantEndOf(profile),
    held,
    runtimeCostPerHour: config.runtimeCostPerHour,
    maxPerPayment: policy.maxPerPayment,
    maxPerPeriod: policy.maxPerPeriod,
    spentInPeriod: authorizedBesides(budget),
  })
  if (step.kind === 'none') return { status: step.refused && step.refused !== 'expected-end' ? 'refused' : 'skipped', reason: step.reason }

  const ref: SlotRef = { golemId, ...step.slot }
  const claim = await deps.store.claimSlot({ ...ref, owner: slotBase.owner, now: slotBase.now, leaseMs: slotBase.leaseMs })
  if (!claim.claimed) {
    if (claim.reason === 'sent') return resend(ctx, claim.slot)
    return { status: 'busy', reason: claim.reason }
  }
  return pay(ctx, step, claim.slot, period)
}

/** Re-sends every payment of the period left `sent` past its lease; true when one was credited. */
async function settleSentPayments(ctx: Context, budget: BudgetRecord | null): Promise<boolean> {
  let credited = false
  for (const r of budget?.reservations ?? []) {
    if (r.state !== 'reserved') continue
    const [ttl, step] = r.reservationId.split(':')
    if (step !== 'extend' || !ttl || !/^\d+$/.test(ttl)) continue
    const slot = await ctx.deps.store.getSlot({ golemId: ctx.golemId, period: BigInt(ttl), step })
    if (slot?.status !== 'sent' || (slot.sentAt ?? 0) + ctx.slotBase.leaseMs > ctx.slotBase.now) continue
    if ((await resend(ctx, slot)).status === 'confirmed') credited = true
  }
  return credited
}

async function pay(
  ctx: Context,
  step: Extract<SelfExtensionStep, { kind: 'extend' }>,
  slot: TickSlot,
  period: bigint,
): Promise<SelfExtensionResult> {
  const { deps, slotBase, golemId, profile } = ctx
  const { store } = deps
  const policy = deps.selfExtension.payments
  const budgetId = paymentBudgetId(golemId)
  const ref: SlotRef = { golemId: slot.golemId, period: slot.period, step: slot.step }
  const reservationId = reservationIdOf(ref, slot.claims)
  // An earlier claim of this slot that never recorded its payment may have left a reservation behind.
  for (let k = 1; k < slot.claims; k++)
    await store.releaseReservation({ golemId: budgetId, period, reservationId: reservationIdOf(ref, k), now: slotBase.now })
  const release = async (reason: string, status: SelfExtensionResult['status'] = 'refused'): Promise<SelfExtensionResult> => {
    await store.releaseReservation({ golemId: budgetId, period, reservationId, now: slotBase.now })
    await store.releaseSlot({ ...ref, owner: slotBase.owner, now: slotBase.now })
    return { status, reason, hours: step.hours, amount: step.amount }
  }
  const reserved = await store.reserveBudget({
    golemId: budgetId,
    period,
    amount: step.amount,
    cap: policy.maxPerPeriod,
    reservationId,
    now: slotBase.now,
  })
  if (!reserved.reserved) return release(`payment-period-bound: ${reserved.available} left of ${policy.maxPerPeriod} this period`)

  let header: string
  let nonce: Hex
  const byDelegation = deps.selfExtension.byDelegation
  try {
    const required = await askPrice(ctx, step.hours)
    const signing = byDelegation ? delegationPaymentPolicy(policy, byDelegation, profile) : policy
    const { signer } = await deps.signers.resolve(profile, {
      payments: { policy: signing, ledger: new StoredPaymentLedger(policy, period, authorizedBesides(reserved.budget, reservationId)) },
    })
    const network = evmNetwork(signer.policy.chainId)
    const accepted = required.accepts.find(
      (r) =>
        r.scheme === 'exact' &&
        // The Golem pays the requirement of its own method: by delegation, or by EIP-3009 authorization.
        asksForErc7710(r.extra) === Boolean(byDelegation) &&
        r.network === network &&
        BigInt(r.amount) === step.amount &&
        isAddressEqual(r.asset as Address, policy.asset) &&
        policy.payees.some((p) => isAddressEqual(p, r.payTo as Address)),
    )
    if (!accepted)
      return release(
        `the API asks no exact price of ${step.amount} on ${network} in the configured asset to a configured payee${byDelegation ? ' by delegation' : ''}`,
      )
    if (byDelegation) {
      // Paid as MetaMask's x402 client pays from a delegation; the GolemSigner's payment policy bounds what it signs.
      const paid = await payByDelegation(signer, deps.deployment.environment, profile, required, accepted)
      nonce = paid.id
      header = encodePaymentSignature(paid.payload)
    } else {
      // Paid as a stock x402 client pays; the GolemSigner's payment policy bounds what it signs.
      nonce = bytesToHex(crypto.getRandomValues(new Uint8Array(32)))
      const authorization = exactAuthorization(accepted, wallClockSeconds(), nonce)
      const signature = await signer.signPaymentAuthorization(authorization)
      header = encodePaymentSignature(exactPaymentPayload(required, accepted, signer.address, authorization, signature))
    }
  } catch (error) {
    // The signer's refusal names its rule; nothing was signed, so the reservation and the slot go back.
    return release(error instanceof Error ? error.message : String(error))
  }
  // Recorded before it is sent: a retry re-sends these bytes. The payment period stands in the nonce field.
  const recorded = await store.recordSlotTx({
    ...ref,
    owner: slotBase.owner,
    txHash: nonce,
    nonce: Number(period),
    rawTx: stringToHex(header),
    now: slotBase.now,
  })
  if (!recorded.recorded) return release(`slot: ${recorded.reason}`, 'busy')
  return send(ctx, recorded.slot, header, { period, reservationId, hours: step.hours, amount: step.amount, nonce })
}

/** A slot an earlier tick recorded but never saw through: the same payment header, sent again. */
async function resend(ctx: Context, slot: TickSlot): Promise<SelfExtensionResult> {
  if (!slot.rawTx || !slot.txHash || slot.txNonce === null) return { status: 'busy', reason: 'sent' }
  const header = hexToString(slot.rawTx)
  const amount = paymentSignatureAmount(header)
  const hours = Number(amount / ctx.deps.selfExtension.runtimeCostPerHour)
  return send(ctx, slot, header, {
    period: BigInt(slot.txNonce),
    reservationId: reservationIdOf({ golemId: slot.golemId, period: slot.period, step: slot.step }, slot.claims),
    hours,
    amount,
    nonce: slot.txHash,
  })
}

async function send(
  ctx: Context,
  slot: TickSlot,
  header: string,
  p: { period: bigint; reservationId: string; hours: number; amount: bigint; nonce: Hex },
): Promise<SelfExtensionResult> {
  const { deps, slotBase, golemId } = ctx
  const { store } = deps
  const ref: SlotRef = { golemId: slot.golemId, period: slot.period, step: slot.step }
  const budget = { golemId: paymentBudgetId(golemId), period: p.period, reservationId: p.reservationId, now: slotBase.now }
  const base = { hours: p.hours, amount: p.amount, nonce: p.nonce, paidFrom: deps.selfExtension.byDelegation ? 'grant' : 'key' } as const
  let res: Response
  try {
    res = await extendRequest(ctx, p.hours, { 'PAYMENT-SIGNATURE': header })
  } catch (error) {
    // Unknown whether the API settled it: the slot stays sent, and a later tick re-sends the same bytes.
    return { status: 'pending', reason: `the API did not answer: ${error instanceof Error ? error.message : String(error)}`, ...base }
  }
  await deps.afterBroadcast?.('extend')
  const body = (await res.json().catch(() => ({}))) as { code?: string; message?: string; profile?: { runwayEndsAt?: string | null } }
  const credited = res.status === 200 || (res.status === 409 && body.code === 'PAYMENT_REPLAYED')
  if (credited) {
    const runwayEndsAt = body.profile?.runwayEndsAt ? BigInt(body.profile.runwayEndsAt) : undefined
    // Timed as the tick that recorded the payment, so a retry writes the same event once.
    await store.appendEvent({
      golemId,
      type: RUNTIME_BOUGHT_EVENT,
      at: tickEventTime(slot.sentAt ?? slotBase.now, RUNTIME_BOUGHT_EVENT),
      eventId: `${RUNTIME_BOUGHT_EVENT}:${slot.period}`,
      data: {
        amount: p.amount.toString(),
        hours: p.hours,
        nonce: p.nonce,
        paymentPeriod: p.period.toString(),
        ...(runwayEndsAt === undefined ? {} : { runwayEndsAt: runwayEndsAt.toString() }),
      },
    })
    await store.commitReservation(budget)
    await store.completeSlot({ ...ref, owner: slotBase.owner, outcome: 'confirmed', txHash: p.nonce, now: slotBase.now })
    return { status: 'confirmed', ...base, ...(runwayEndsAt === undefined ? {} : { runwayEndsAt }) }
  }
  if (res.status === 409 || res.status >= 500) {
    return { status: 'pending', reason: `${res.status} ${body.code ?? ''}: the API may still settle it`.trim(), ...base }
  }
  // Refused by the API (not settled): the bound is given back and the decision is over.
  await store.releaseReservation(budget)
  await store.completeSlot({
    ...ref,
    owner: slotBase.owner,
    outcome: 'failed',
    txHash: p.nonce,
    now: slotBase.now,
    detail: { status: res.status, code: body.code ?? null },
  })
  return { status: 'failed', reason: `${res.status} ${body.code ?? ''}: ${body.message ?? 'refused'}`, ...base }
}

function extendRequest(ctx: Context, hours: number, headers: Record<string, string> = {}): Promise<Response> {
  const f = ctx.deps.selfExtension.fetch ?? fetch
  return f(new URL('/api/v1/extend', ctx.deps.selfExtension.apiUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ golemId: ctx.golemId, hours }),
  })
}

/** The API's price for `hours`, from its 402 answer (x402 v2 PAYMENT-REQUIRED). */
async function askPrice(ctx: Context, hours: number): Promise<PaymentRequired> {
  const res = await extendRequest(ctx, hours)
  const body: unknown = await res.json().catch(() => undefined)
  if (res.status !== 402)
    throw new BardoError(
      'EXTEND_OFFER_REFUSED',
      `POST /api/v1/extend without payment answered ${res.status} ${(body as { code?: string })?.code ?? ''}, not 402`,
    )
  return parsePaymentRequiredHeader(res.headers.get('PAYMENT-REQUIRED'))
}
