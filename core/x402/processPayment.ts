// One x402-paid request, start to finish: refuse what cannot be credited, claim the payment in the
// ledger, verify and settle it with the facilitator, record the credit once. Every refusal changes
// nothing: a claim taken for a payment that then fails is released, and no credit is ever recorded
// without a settled transfer to the operator. A payment stays bound to the Golem, kind and amount it
// was first claimed for, and crash recovery credits only a transfer this deployment's settlement
// account submitted, tagged for that claim. The chain, ledger and clock come in as arguments. The
// outcome is a code and the facts behind it; the API turns it into an HTTP answer.
import { randomUUID } from 'node:crypto'
import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types'
import { getAddress, isAddressEqual, type Address, type Hex } from 'viem'
import type { SettledPaymentRecord } from '../store/records.ts'
import { codeForFacilitatorReason, PAYMENT_CREDITED, shortMessage, type X402ErrorCode } from './errors.ts'
import type { PaymentFacilitator } from './facilitator.ts'
import { checkErc7710Payload, ERC7710_ASSET_TRANSFER_METHOD, type Erc7710Terms } from './erc7710.ts'
import {
  isErc7710Payment,
  PAYMENT_SIGNATURE_HEADER,
  parsePaymentHeader,
  type ParsedErc7710Payload,
  type ParsedPaymentPayload,
} from './header.ts'
import type { PaymentLedger, PaymentRef } from './ledger.ts'
import { creditFor, type Credit, type GolemPricing, type PaymentKind } from './pricing.ts'
import { reconcileSettlement } from './reconcile.ts'
import { X402_VERSION } from './requirements.ts'
import { settlementTag } from './settlementTag.ts'

/** The part of a Golem record a payment cares about (the API's GolemView fits). */
export type PayableGolem = { id: string; lifecycle: 'alive' | 'dying' | 'dead' }

export type ProcessPaymentInput = {
  /** The PAYMENT-SIGNATURE header as received (absent: refuse with PAYMENT_REQUIRED and the requirements). */
  header: string | null | undefined
  /** The Golem the request names, and what the registry returned for it (undefined: unknown). */
  golemId: string
  golem: PayableGolem | undefined
  kind: PaymentKind
  /** From requirementsFor(): `amount` is the minimum price; a payment may carry more. */
  requirements: PaymentRequirements
  pricing: GolemPricing
  ledger: PaymentLedger
  /** Names this deployment's ledger in every settlement tag (see settlementTag.ts). */
  ledgerId: string
  facilitator: PaymentFacilitator
  /** Payments by ERC-7710 delegation are accepted through these contracts; absent or null: EIP-3009 only. */
  erc7710?: Erc7710Terms | null
  /** Unix ms, for the ledger's claim lease and records. (x402 checks validity on the wall clock.) */
  now: number
  /** How long a claim holds before it lapses (a crashed request must not block a payment forever). */
  leaseMs?: number
  /** Told about facilitator and RPC exceptions; the client only hears FACILITATOR_UNAVAILABLE. */
  onUnexpectedError?: (error: unknown) => void
}

/** A payment settled and recorded once in the ledger: what it credits, and the receipt for the payer. */
export type PaymentCredited = {
  ok: true
  code: typeof PAYMENT_CREDITED
  credit: Credit
  payer: Address
  nonce: Hex
  txHash: Hex
  /** True when the transfer was found on-chain instead of sent by this request (crash recovery). */
  reconciled: boolean
  /** When the ledger recorded the credit (unix ms): the settled record's `creditedAt`. */
  creditedAt: number
  settlement: SettleResponse
  /** What to credit to the Golem's profile: the ledger's settled record as this request wrote it. */
  payment: SettledPaymentRecord
}

export type PaymentRefused = {
  ok: false
  code: X402ErrorCode
  message: string
  details: Record<string, unknown>
  /** What the payment must be: the payer may pay these and retry. */
  requirements: PaymentRequirements
  /** The claim is kept until its lease lapses: the same payment is worth retrying after this long. */
  retryAfterMs?: number
  /** The ledger holds this payment as credited already: applying it again repairs a credit that never reached the profile. */
  alreadyCredited?: PaymentRef
}

export type PaymentOutcome = PaymentCredited | PaymentRefused

export const DEFAULT_CLAIM_LEASE_MS = 5 * 60_000

type Ctx = ProcessPaymentInput & { leaseMs: number }

function refuse(ctx: Ctx, code: X402ErrorCode, message: string, details: Record<string, unknown> = {}): PaymentRefused {
  const refused: PaymentRefused = { ok: false, code, message, details, requirements: ctx.requirements }
  if (code === 'PAYMENT_SETTLEMENT_PENDING') refused.retryAfterMs = ctx.leaseMs
  return refused
}

/** The ledger answered that this payment was credited already: a replay, which may repair the profile. */
function replayed(ctx: Ctx, ref: PaymentRef, keyField: string): PaymentRefused {
  return {
    ...refuse(ctx, 'PAYMENT_REPLAYED', `${keyField}: this payment was already credited`, { ...ref }),
    alreadyCredited: ref,
  }
}

/**
 * A payment that passed every check made without the ledger or the chain: what it pays, and by whom.
 * `method` says how the money moves: an EIP-3009 authorization, or an ERC-7710 delegation whose ledger
 * key is its leaf delegation's hash.
 */
export type CheckedPayment = { ok: true; payload: ParsedPaymentPayload; ref: PaymentRef; value: bigint; method: 'eip3009' | 'erc7710' }

/** The payload field that names the payment's ledger key, and the one that carries its amount. */
const keyFields = {
  eip3009: { key: 'payload.authorization.nonce', amount: 'payload.authorization.value' },
  erc7710: { key: 'payload.permissionContext', amount: 'accepted.amount' },
} as const

/**
 * The checks made before the ledger or the chain is touched: the Golem can be credited, the header is
 * present and well formed, and it pays this deployment's asset to its operator at least the price.
 */
export function checkPayment(input: ProcessPaymentInput): CheckedPayment | PaymentRefused {
  return precheck({ ...input, leaseMs: input.leaseMs ?? DEFAULT_CLAIM_LEASE_MS })
}

function precheck(ctx: Ctx): CheckedPayment | PaymentRefused {
  const { golem, golemId, requirements: req } = ctx

  // Never ask for (or take) a payment that cannot be credited.
  if (golem === undefined) return refuse(ctx, 'GOLEM_NOT_FOUND', `golemId: no Golem ${golemId}`, { golemId })
  if (golem.lifecycle === 'dead') return refuse(ctx, 'GOLEM_DEAD', `golemId: ${golemId} is dead; it cannot be extended or fed`, { golemId })
  if (golem.lifecycle === 'dying') {
    return refuse(ctx, 'GOLEM_DYING', `golemId: ${golemId} is running its death protocol; payments are refused`, { golemId })
  }
  if (ctx.header === undefined || ctx.header === null || ctx.header === '') {
    return refuse(ctx, 'PAYMENT_REQUIRED', `${PAYMENT_SIGNATURE_HEADER}: required; pay as the PAYMENT-REQUIRED header says`, {
      amount: req.amount,
      asset: req.asset,
      payTo: req.payTo,
      network: req.network,
    })
  }

  const parsed = parsePaymentHeader(ctx.header)
  if (!parsed.ok) return refuse(ctx, parsed.code, parsed.message, parsed.field === undefined ? {} : { field: parsed.field })
  const { accepted } = parsed.payload
  if (parsed.payload.x402Version !== X402_VERSION) {
    return refuse(ctx, 'PAYMENT_VERSION_UNSUPPORTED', `x402Version: must be ${X402_VERSION}, got ${parsed.payload.x402Version}`)
  }
  if (accepted.scheme !== req.scheme)
    return refuse(ctx, 'PAYMENT_SCHEME_UNSUPPORTED', `accepted.scheme: must be "${req.scheme}"`, { scheme: accepted.scheme })
  if (accepted.network !== req.network) {
    return refuse(ctx, 'PAYMENT_WRONG_NETWORK', `accepted.network: must be ${req.network}, got ${accepted.network}`, {
      expected: req.network,
      got: accepted.network,
    })
  }
  if (!isAddressEqual(accepted.asset, req.asset as Address)) {
    return refuse(ctx, 'PAYMENT_WRONG_ASSET', `accepted.asset: must be ${req.asset}, got ${accepted.asset}`, {
      expected: req.asset,
      got: accepted.asset,
    })
  }
  if (isErc7710Payment(parsed.payload)) return precheckErc7710(ctx, parsed.payload)
  const auth = parsed.payload.payload.authorization
  for (const [field, to] of [
    ['accepted.payTo', accepted.payTo],
    ['payload.authorization.to', auth.to],
  ] as const) {
    if (!isAddressEqual(to, req.payTo as Address)) {
      return refuse(ctx, 'PAYMENT_WRONG_PAY_TO', `${field}: must be the operator ${req.payTo}, got ${to}`, { expected: req.payTo, got: to })
    }
  }
  const value = BigInt(auth.value)
  if (value !== BigInt(accepted.amount)) {
    return refuse(
      ctx,
      'PAYMENT_AMOUNT_MISMATCH',
      `payload.authorization.value: must equal accepted.amount (${accepted.amount}), got ${auth.value}`,
    )
  }
  const price = BigInt(req.amount)
  if (value < price) {
    return refuse(ctx, 'PAYMENT_UNDERPAID', `payload.authorization.value: must be at least ${price} for ${ctx.kind}, got ${value}`, {
      required: price.toString(),
      offered: value.toString(),
    })
  }

  return { ok: true, payload: parsed.payload, ref: { payer: getAddress(auth.from), nonce: auth.nonce }, value, method: 'eip3009' }
}

/**
 * An ERC-7710 payment's own checks: accepted here, paid to the operator, at least the price (the
 * amount is the accepted requirement's: the redemption transfers exactly that), and a delegation chain
 * rooted at the payer that only Bardo's settlement account may redeem, through this deployment's
 * DelegationManager. Whether it really moves the money is the facilitator's simulation.
 */
function precheckErc7710(ctx: Ctx, parsed: ParsedErc7710Payload): CheckedPayment | PaymentRefused {
  const req = ctx.requirements
  const { accepted, payload } = parsed
  if (ctx.erc7710 === undefined || ctx.erc7710 === null) {
    return refuse(
      ctx,
      'PAYMENT_SCHEME_UNSUPPORTED',
      `accepted.extra.assetTransferMethod: "${ERC7710_ASSET_TRANSFER_METHOD}" is not accepted here; pay by EIP-3009`,
      { assetTransferMethod: ERC7710_ASSET_TRANSFER_METHOD },
    )
  }
  if (!isAddressEqual(accepted.payTo, req.payTo as Address)) {
    return refuse(ctx, 'PAYMENT_WRONG_PAY_TO', `accepted.payTo: must be the operator ${req.payTo}, got ${accepted.payTo}`, {
      expected: req.payTo,
      got: accepted.payTo,
    })
  }
  const value = BigInt(accepted.amount)
  const price = BigInt(req.amount)
  if (value < price) {
    return refuse(ctx, 'PAYMENT_UNDERPAID', `accepted.amount: must be at least ${price} for ${ctx.kind}, got ${value}`, {
      required: price.toString(),
      offered: value.toString(),
    })
  }
  const checked = checkErc7710Payload(payload, ctx.erc7710, ctx.facilitator.settlementAccount)
  if (!checked.ok) return refuse(ctx, 'PAYMENT_INVALID', `${checked.field}: ${checked.rule}`, { field: checked.field })
  return { ok: true, payload: parsed, ref: { payer: getAddress(payload.delegator), nonce: checked.key }, value, method: 'erc7710' }
}

export async function processPayment(input: ProcessPaymentInput): Promise<PaymentOutcome> {
  const ctx: Ctx = { ...input, leaseMs: input.leaseMs ?? DEFAULT_CLAIM_LEASE_MS }
  const checked = precheck(ctx)
  if (!checked.ok) return checked
  const { golemId } = ctx
  const { ref, value, method } = checked
  const fields = keyFields[method]
  const req = ctx.requirements
  const owner = randomUUID()
  let claim
  try {
    claim = await ctx.ledger.claim(ref, { golemId, kind: ctx.kind, amount: value, owner, now: ctx.now, leaseMs: ctx.leaseMs })
  } catch (error) {
    ctx.onUnexpectedError?.(error)
    return refuse(ctx, 'PAYMENT_LEDGER_UNAVAILABLE', 'ledger: could not claim the payment; nothing was charged, retry later')
  }
  if (claim === 'duplicate') return replayed(ctx, ref, fields.key)
  if (claim === 'pending-elsewhere') {
    return refuse(ctx, 'PAYMENT_IN_PROGRESS', `${fields.key}: this payment is being settled by another request`, { ...ref })
  }
  if (typeof claim === 'object') {
    const field = claim.boundTo === 'amount' ? fields.amount : claim.boundTo
    return refuse(
      ctx,
      'PAYMENT_BOUND_ELSEWHERE',
      `${field}: this payment was first presented with another ${field}; a payment is credited only to the Golem and kind it was first presented for, never rebound`,
      { ...ref, field },
    )
  }

  const { accepted, payload } = checked.payload
  const x402Payload: PaymentPayload = {
    x402Version: X402_VERSION,
    accepted: { ...accepted, extra: accepted.extra ?? {} },
    payload: { ...payload },
  }
  // The facilitator checks value == amount; the payer may pay more than the price, so the
  // requirements handed to it carry the paid value (already checked to be >= the price). An ERC-7710
  // payment's requirements say so, so the facilitator redeems instead of transferring by authorization.
  const effective: PaymentRequirements =
    method === 'erc7710'
      ? { ...req, amount: value.toString(), extra: { assetTransferMethod: ERC7710_ASSET_TRANSFER_METHOD } }
      : { ...req, amount: value.toString() }
  const tag = settlementTag({ ledgerId: ctx.ledgerId, payer: ref.payer, nonce: ref.nonce, golemId, kind: ctx.kind, amount: value })
  const afterClaim: AfterClaim = { ctx, ref, owner, value, tag, method }
  if (!isErc7710Payment(checked.payload)) afterClaim.validBefore = BigInt(checked.payload.payload.authorization.validBefore)

  let verified
  try {
    verified = await ctx.facilitator.verify(x402Payload, effective)
  } catch (error) {
    ctx.onUnexpectedError?.(error)
    await release(afterClaim)
    return refuse(ctx, 'FACILITATOR_UNAVAILABLE', 'facilitator: could not verify the payment; nothing was charged, retry later')
  }
  if (!verified.isValid) {
    return failAfterClaim(
      afterClaim,
      codeForFacilitatorReason(verified.invalidReason, verified.invalidMessage),
      verified.invalidReason,
      verified.invalidMessage,
    )
  }

  let settlement: SettleResponse
  try {
    settlement = await ctx.facilitator.settle(x402Payload, effective, { tag })
  } catch (error) {
    // The exact scheme turns every failure after broadcasting into a result, so a throw means
    // nothing was sent (and if something was, a retry reconciles it from the chain).
    ctx.onUnexpectedError?.(error)
    await release(afterClaim)
    return refuse(ctx, 'FACILITATOR_UNAVAILABLE', 'facilitator: could not settle the payment; nothing was charged, retry later')
  }
  if (!settlement.success) {
    if (settlement.errorReason === 'settlement_pending' && settlement.transaction !== '') {
      // Sent but unconfirmed: keep the claim. A retry after the lease reconciles from the chain.
      return refuse(
        ctx,
        'PAYMENT_SETTLEMENT_PENDING',
        `settlement: transaction ${settlement.transaction} is not confirmed yet; retry the same payment later`,
        { txHash: settlement.transaction },
      )
    }
    const code = codeForFacilitatorReason(settlement.errorReason, settlement.errorMessage)
    return failAfterClaim(
      afterClaim,
      code === 'PAYMENT_INVALID' ? 'PAYMENT_SETTLEMENT_FAILED' : code,
      settlement.errorReason,
      settlement.errorMessage,
    )
  }
  return recordCredit(afterClaim, settlement, false)
}

type AfterClaim = {
  ctx: Ctx
  ref: PaymentRef
  owner: string
  value: bigint
  tag: Hex
  method: CheckedPayment['method']
  /** The EIP-3009 authorization's end (unix seconds): a settlement still unmined then can never land. */
  validBefore?: bigint
}

async function release({ ctx, ref, owner }: AfterClaim): Promise<void> {
  try {
    await ctx.ledger.release(ref, owner)
  } catch {
    // The claim lapses on its own after the lease; nothing was credited either way.
  }
}

async function failAfterClaim(
  a: AfterClaim,
  code: X402ErrorCode,
  reason: string | undefined,
  message: string | undefined,
): Promise<PaymentOutcome> {
  // "Nonce used" or "expired" may hide a transfer that did reach the operator (a crash or a lost
  // receipt before the credit was recorded). If the chain has it, and it is this deployment's own
  // settlement for this claim, credit it now, once. A delegation already redeemed fails its
  // simulation in whichever way its caveats say (allowance spent, expired, ...), so an ERC-7710
  // payment is looked for after any failure.
  let unreconciled: string | undefined
  if (code === 'PAYMENT_REPLAYED' || code === 'PAYMENT_EXPIRED' || a.method === 'erc7710') {
    const query = { asset: a.ctx.requirements.asset as Address, payer: a.ref.payer, nonce: a.ref.nonce }
    const found = await a.ctx.facilitator
      .findSettlement(a.method === 'erc7710' ? { ...query, erc7710: { tag: a.tag } } : query)
      .catch((error: unknown) => {
        a.ctx.onUnexpectedError?.(error)
        return null
      })
    if (found) {
      const decision = reconcileSettlement(found, {
        settlementAccount: a.ctx.facilitator.settlementAccount,
        payTo: a.ctx.requirements.payTo as Address,
        value: a.value,
        tag: a.tag,
      })
      if (decision.accept) {
        const settlement: SettleResponse = {
          success: true,
          transaction: found.txHash,
          network: a.ctx.requirements.network,
          payer: a.ref.payer,
        }
        return recordCredit(a, settlement, true)
      }
      unreconciled = `${decision.field} ${decision.rule}`
    }
  }
  await release(a)
  const details: Record<string, unknown> = { payer: a.ref.payer }
  if (reason !== undefined) details.reason = reason
  const short = shortMessage(message)
  if (short !== undefined) details.facilitatorMessage = short
  if (unreconciled !== undefined) details.reconciliation = unreconciled
  if (a.method === 'erc7710') {
    const why = short === undefined ? (reason ?? 'invalid payment') : short
    const rule = `must redeem for a transfer of exactly ${a.value} to the operator from the settlement account (${why})`
    return refuse(a.ctx, code, `${keyFields.erc7710.key}: ${rule}; nothing was credited`, details)
  }
  const what = code === 'PAYMENT_REPLAYED' ? 'the authorization nonce is already used or canceled on-chain' : (reason ?? 'invalid payment')
  return refuse(a.ctx, code, `payment: ${what}; nothing was credited`, details)
}

async function recordCredit(a: AfterClaim, settlement: SettleResponse, reconciled: boolean): Promise<PaymentOutcome> {
  const { ctx, ref, owner } = a
  const txHash = settlement.transaction as Hex
  const credit = creditFor(ctx.kind, ctx.golemId, a.value, ctx.pricing)
  // What a reorg of the settlement needs: the same signed bytes to send again (only a settlement this
  // request sent has them) and when the authorization stops being valid.
  const signedTx = reconciled ? undefined : ctx.facilitator.takeSignedSettlement?.(txHash)
  const finality = {
    ...(signedTx === undefined ? {} : { signedTx }),
    ...(a.validBefore === undefined ? {} : { validBefore: a.validBefore }),
  }
  let recorded
  try {
    recorded = await ctx.ledger.markSettled(ref, { txHash, credit, owner, now: ctx.now, ...finality })
  } catch (error) {
    ctx.onUnexpectedError?.(error)
    // The transfer happened; the claim stays so a retry after the lease reconciles and credits it.
    return refuse(
      ctx,
      'PAYMENT_SETTLEMENT_PENDING',
      `ledger: transaction ${txHash} settled but the credit was not recorded; retry the same payment later`,
      { txHash },
    )
  }
  if (recorded === 'duplicate') return replayed(ctx, ref, keyFields[a.method].key)
  return {
    ok: true,
    code: PAYMENT_CREDITED,
    credit,
    payer: ref.payer,
    nonce: ref.nonce,
    txHash,
    reconciled,
    creditedAt: ctx.now,
    settlement,
    payment: {
      status: 'settled',
      payer: ref.payer,
      nonce: ref.nonce,
      golemId: credit.golemId,
      kind: credit.kind,
      amount: credit.amount,
      txHash,
      creditedAt: ctx.now,
    },
  }
}
