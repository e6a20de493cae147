// processPayment's decisions without a chain: a scripted facilitator stands in for @x402/evm, so the
// paths a real chain rarely takes (lost receipts, a store outage, a crash before recording) are
// exercised deterministically. test/x402.test.ts runs the same pipeline against anvil. The outcome
// carries no HTTP; statuses and headers are checked on the API's answer to it (paymentResponse.ts).
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload, SettleResponse, VerifyResponse } from '@x402/core/types'
import { getAddress, toHex, type Address, type Hex } from 'viem'
import { describe, expect, expectTypeOf, test } from 'vitest'
import { shortMessage } from './errors.ts'
import type { OnChainSettlement, PaymentFacilitator } from './facilitator.ts'
import type { PaymentLedger } from './ledger.ts'
import { InMemoryPaymentLedger } from '../../test/support/x402/memoryLedger.ts'
import {
  processPayment,
  type PaymentCredited,
  type PaymentOutcome,
  type PaymentRefused,
  type ProcessPaymentInput,
} from './processPayment.ts'
import { createX402Payments } from './payments.ts'
import { answerPayment, paymentResource, toResponse } from '../../functions/api/paymentResponse.ts'
import { requirementsFor, resolveX402Config } from './requirements.ts'
import { settlementTag } from './settlementTag.ts'

const OPERATOR: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const USDC: Address = '0x5FbDB2315678afecb367f032d93F642f64180aa3'
const PAYER: Address = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
const TX: Hex = `0x${'cd'.repeat(32)}`
const config = resolveX402Config({
  chainId: 31337,
  asset: USDC,
  payTo: OPERATOR,
  pricing: { runtimeCostPerHour: 500_000n, deathReserve: 5_000_000n },
})
const golem = { id: 'golem-1', lifecycle: 'alive' as const }
const LEDGER_ID = 'unit-ledger'
/** What the settlement account's transaction carries: transferWithAuthorization calldata, then the tag. */
const ourInput = (nonce: Hex, o: { golemId?: string; kind?: 'extend' | 'feed'; amount?: bigint; ledgerId?: string } = {}) =>
  `0xe3ee160e${'00'.repeat(64)}${settlementTag({ ledgerId: o.ledgerId ?? LEDGER_ID, payer: PAYER, nonce, golemId: o.golemId ?? golem.id, kind: o.kind ?? 'extend', amount: o.amount ?? 500_000n }).slice(2)}` as Hex

function header(
  o: { value?: bigint; nonce?: Hex; accepted?: Record<string, unknown>; x402Version?: number } = {},
  kind: 'extend' | 'feed' = 'extend',
): string {
  const req = requirementsFor(config, kind)
  const value = (o.value ?? BigInt(req.amount)).toString()
  const payload: PaymentPayload = {
    x402Version: o.x402Version ?? 2,
    accepted: { ...req, amount: value, ...o.accepted },
    payload: {
      signature: `0x${'11'.repeat(65)}`,
      authorization: {
        from: PAYER,
        to: OPERATOR,
        value,
        validAfter: '0',
        validBefore: '99999999999',
        nonce: o.nonce ?? toHex(crypto.getRandomValues(new Uint8Array(32))),
      },
    },
  }
  return encodePaymentSignatureHeader(payload)
}

type Script = {
  verify?: VerifyResponse | (() => Promise<VerifyResponse>)
  settle?: SettleResponse | (() => Promise<SettleResponse>)
  found?: OnChainSettlement | null
}

function fakeFacilitator(script: Script = {}) {
  const calls = { verify: 0, settle: 0, findSettlement: 0 }
  const facilitator: PaymentFacilitator = {
    settlementAccount: OPERATOR,
    async verify() {
      calls.verify++
      const v = script.verify ?? { isValid: true, payer: PAYER }
      return typeof v === 'function' ? v() : v
    },
    async settle(payload) {
      calls.settle++
      const s = script.settle ?? {
        success: true,
        transaction: TX,
        network: config.network,
        payer: (payload.payload.authorization as { from: string }).from,
      }
      return typeof s === 'function' ? s() : s
    },
    async findSettlement() {
      calls.findSettlement++
      return script.found ?? null
    },
  }
  return { facilitator, calls }
}

function run(
  over: Partial<ProcessPaymentInput> & { header: string | undefined },
  ledger: PaymentLedger,
  facilitator: PaymentFacilitator,
  now = 1_000_000,
): Promise<PaymentOutcome> {
  return processPayment({
    golemId: golem.id,
    golem,
    kind: 'extend',
    requirements: requirementsFor(config, 'extend'),
    pricing: config.pricing,
    ledger,
    ledgerId: LEDGER_ID,
    facilitator,
    now,
    ...over,
  })
}

/** The API's answer to an outcome of a request to /api/v1/extend. */
const answer = (outcome: PaymentOutcome) => answerPayment(outcome, paymentResource('extend', 'http://127.0.0.1/api/v1/extend'))

function expectRefused(outcome: PaymentOutcome, status: number, code: string) {
  expect(outcome.ok).toBe(false)
  if (outcome.ok) return
  const answered = answer(outcome)
  expect({ status: answered.status, code: outcome.code }).toEqual({ status, code })
  expect(answered.body.code).toBe(code)
  expect(outcome).not.toHaveProperty('credit')
}

describe('processPayment', () => {
  test('a valid payment is settled once and credited pro rata (overpayment buys more time)', async () => {
    const ledger = new InMemoryPaymentLedger()
    const { facilitator, calls } = fakeFacilitator()
    const outcome = await run({ header: header({ value: 750_000n }) }, ledger, facilitator)
    expect(outcome.ok).toBe(true)
    if (!outcome.ok) return
    expect(outcome.credit).toEqual({ kind: 'extend', golemId: 'golem-1', seconds: 5400n, amount: 750_000n })
    expect(decodePaymentResponseHeader(answer(outcome).headers['PAYMENT-RESPONSE']!)).toMatchObject({
      success: true,
      transaction: TX,
      network: 'eip155:31337',
    })
    expect(calls).toEqual({ verify: 1, settle: 1, findSettlement: 0 })
    expect(ledger.settled()).toHaveLength(1)
    const response = toResponse(answer(outcome))
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ golemId: 'golem-1', credit: { kind: 'extend', seconds: '5400', amount: '750000' } })
  })

  test('a credited outcome says what to credit: the settled record the ledger holds, with no HTTP in it', async () => {
    const ledger = new InMemoryPaymentLedger()
    const nonce = toHex(crypto.getRandomValues(new Uint8Array(32)))
    const outcome = await run({ header: header({ nonce, value: 750_000n }) }, ledger, fakeFacilitator().facilitator, 1_234_000)
    expect(outcome.ok && { code: outcome.code, payment: outcome.payment }).toEqual({
      code: 'PAYMENT_CREDITED',
      payment: {
        status: 'settled',
        payer: PAYER,
        nonce,
        golemId: 'golem-1',
        kind: 'extend',
        amount: 750_000n,
        txHash: TX,
        creditedAt: 1_234_000,
      },
    })
    expect(ledger.settled()).toMatchObject([{ txHash: TX, settledAt: 1_234_000, credit: { golemId: 'golem-1', amount: 750_000n } }])
    expect(outcome).not.toHaveProperty('status')
    expect(outcome).not.toHaveProperty('headers')
    expectTypeOf<PaymentCredited>().not.toHaveProperty('status')
    expectTypeOf<PaymentCredited>().not.toHaveProperty('headers')
    expectTypeOf<PaymentRefused>().not.toHaveProperty('status')
    expectTypeOf<PaymentRefused>().not.toHaveProperty('headers')
  })

  test('a replay the ledger knows carries the payment to repair; a nonce only the chain says is used does not', async () => {
    const ledger = new InMemoryPaymentLedger()
    const nonce = toHex(crypto.getRandomValues(new Uint8Array(32)))
    expect((await run({ header: header({ nonce }) }, ledger, fakeFacilitator().facilitator)).ok).toBe(true)
    const replay = await run({ header: header({ nonce }) }, ledger, fakeFacilitator().facilitator)
    expectRefused(replay, 409, 'PAYMENT_REPLAYED')
    expect(replay.ok || replay.alreadyCredited).toEqual({ payer: PAYER, nonce })

    const used = fakeFacilitator({ verify: { isValid: false, invalidReason: 'invalid_exact_evm_nonce_already_used' } })
    const onChain = await run({ header: header() }, new InMemoryPaymentLedger(), used.facilitator)
    expectRefused(onChain, 409, 'PAYMENT_REPLAYED')
    expect(onChain).not.toHaveProperty('alreadyCredited')
  })

  test('feed credits the amount paid', async () => {
    const ledger = new InMemoryPaymentLedger()
    const outcome = await run(
      { header: header({}, 'feed'), kind: 'feed', requirements: requirementsFor(config, 'feed') },
      ledger,
      fakeFacilitator().facilitator,
    )
    expect(outcome.ok && outcome.credit).toEqual({ kind: 'feed', golemId: 'golem-1', amount: 5_000_000n })
  })

  test('no header -> 402 with a PAYMENT-REQUIRED header a client can pay from', async () => {
    const outcome = await run({ header: undefined }, new InMemoryPaymentLedger(), fakeFacilitator().facilitator)
    expectRefused(outcome, 402, 'PAYMENT_REQUIRED')
    expect(outcome.ok || outcome.requirements).toEqual(requirementsFor(config, 'extend'))
    const required = decodePaymentRequiredHeader(answer(outcome).headers['PAYMENT-REQUIRED']!)
    expect(required).toMatchObject({
      x402Version: 2,
      accepts: [
        {
          scheme: 'exact',
          network: 'eip155:31337',
          asset: USDC,
          payTo: OPERATOR,
          amount: '500000',
          extra: { name: 'USD Coin', version: '2' },
        },
      ],
    })
  })

  test.each([
    [undefined, 404, 'GOLEM_NOT_FOUND'],
    [{ id: 'golem-1', lifecycle: 'dead' as const }, 410, 'GOLEM_DEAD'],
    [{ id: 'golem-1', lifecycle: 'dying' as const }, 503, 'GOLEM_DYING'],
  ])('golem %j -> %i %s before any payment is looked at', async (g, status, code) => {
    const ledger = new InMemoryPaymentLedger()
    const { facilitator, calls } = fakeFacilitator()
    expectRefused(await run({ header: header(), golem: g }, ledger, facilitator), status, code)
    expect(calls).toEqual({ verify: 0, settle: 0, findSettlement: 0 })
    expect(ledger.entries()).toEqual([])
  })

  test.each([
    ['x402Version 1', { x402Version: 1 }, 400, 'PAYMENT_VERSION_UNSUPPORTED'],
    ['scheme upto', { accepted: { scheme: 'upto' } }, 402, 'PAYMENT_SCHEME_UNSUPPORTED'],
    ['accepted.amount != value', { accepted: { amount: '600000' } }, 402, 'PAYMENT_AMOUNT_MISMATCH'],
    ['one unit short', { value: 499_999n }, 402, 'PAYMENT_UNDERPAID'],
  ])('%s -> %i %s without touching ledger or chain', async (_, o, status, code) => {
    const ledger = new InMemoryPaymentLedger()
    const { facilitator, calls } = fakeFacilitator()
    expectRefused(await run({ header: header(o) }, ledger, facilitator), status, code)
    expect(calls.verify + calls.settle).toBe(0)
    expect(ledger.entries()).toEqual([])
  })

  test.each([
    ['invalid_exact_evm_signature', undefined, 'PAYMENT_SIGNATURE_INVALID'],
    ['invalid_exact_evm_payload_authorization_valid_before', undefined, 'PAYMENT_EXPIRED'],
    ['invalid_exact_evm_payload_authorization_valid_after', undefined, 'PAYMENT_NOT_YET_VALID'],
    ['invalid_exact_evm_insufficient_balance', undefined, 'PAYMENT_INSUFFICIENT_BALANCE'],
    ['invalid_exact_evm_nonce_already_used', undefined, 'PAYMENT_REPLAYED'],
    // No Multicall3 on the chain: the reason is generic, the revert string is not.
    [
      'invalid_exact_evm_transaction_simulation_failed',
      'reverted with the following reason:\nERC20: transfer amount exceeds balance',
      'PAYMENT_INSUFFICIENT_BALANCE',
    ],
    ['invalid_exact_evm_transaction_simulation_failed', "reverted: ECRecover: invalid signature 's' value", 'PAYMENT_SIGNATURE_INVALID'],
    ['invalid_exact_evm_token_name_mismatch', undefined, 'PAYMENT_INVALID'],
  ])('verify says %s -> %s, claim released, nothing settled', async (reason, message, code) => {
    const ledger = new InMemoryPaymentLedger()
    const { facilitator, calls } = fakeFacilitator({
      verify: { isValid: false, invalidReason: reason, ...(message ? { invalidMessage: message } : {}) },
    })
    const outcome = await run({ header: header() }, ledger, facilitator)
    expectRefused(outcome, code === 'PAYMENT_REPLAYED' ? 409 : 402, code)
    expect(calls.settle).toBe(0)
    expect(ledger.entries()).toEqual([])
  })

  test('verify throwing (RPC down) -> 503 FACILITATOR_UNAVAILABLE, claim released, RPC text kept from the client', async () => {
    const ledger = new InMemoryPaymentLedger()
    const rpcError = new Error('HTTP request failed.\nURL: https://base-mainnet.example/v2/provider-secret-key')
    const { facilitator } = fakeFacilitator({ verify: async () => Promise.reject(rpcError) })
    const seen: unknown[] = []
    const outcome = await run({ header: header(), onUnexpectedError: (e) => seen.push(e) }, ledger, facilitator)
    expectRefused(outcome, 503, 'FACILITATOR_UNAVAILABLE')
    expect(JSON.stringify(outcome)).not.toContain('provider-secret-key')
    expect(seen).toEqual([rpcError])
    expect(ledger.entries()).toEqual([])
  })

  test('facilitator messages reach the client trimmed and without URLs', () => {
    expect(
      shortMessage(
        'The contract function "transferWithAuthorization" reverted with the following reason:\nERC20: transfer amount exceeds balance\n\nURL: http://x',
      ),
    ).toBe('The contract function "transferWithAuthorization" reverted with the following reason: ERC20: transfer amount exceeds balance')
    expect(shortMessage('failed at https://rpc.example/v2/key-123 now')).toBe('failed at <url> now')
    expect(shortMessage('x'.repeat(500))).toHaveLength(200)
  })

  test('a reverted settlement -> 402 PAYMENT_SETTLEMENT_FAILED, claim released so the payer may retry', async () => {
    const ledger = new InMemoryPaymentLedger()
    const { facilitator } = fakeFacilitator({
      settle: { success: false, errorReason: 'invalid_exact_evm_transaction_failed', transaction: TX, network: config.network },
    })
    expectRefused(await run({ header: header() }, ledger, facilitator), 402, 'PAYMENT_SETTLEMENT_FAILED')
    expect(ledger.entries()).toEqual([])
  })

  test('the store refusing the claim -> 503, and the facilitator is never called', async () => {
    const broken: PaymentLedger = {
      claim: () => Promise.reject(new Error('store down')),
      markSettled: () => Promise.reject(new Error('x')),
      release: async () => {},
    }
    const { facilitator, calls } = fakeFacilitator()
    expectRefused(await run({ header: header() }, broken, facilitator), 503, 'PAYMENT_LEDGER_UNAVAILABLE')
    expect(calls.verify).toBe(0)
  })

  test('a lost receipt keeps the claim; after the lease a retry reconciles from the chain and credits once', async () => {
    const ledger = new InMemoryPaymentLedger()
    const nonce = toHex(crypto.getRandomValues(new Uint8Array(32)))
    const h = header({ nonce })
    const pending = fakeFacilitator({
      settle: { success: false, errorReason: 'settlement_pending', transaction: TX, network: config.network },
    })
    const first = await run({ header: h, leaseMs: 60_000 }, ledger, pending.facilitator, 1_000_000)
    expectRefused(first, 503, 'PAYMENT_SETTLEMENT_PENDING')
    expect(first.ok || first.retryAfterMs).toBe(60_000)
    expect(answer(first).headers['Retry-After']).toBe('60')
    expect(ledger.entries()).toMatchObject([{ status: 'pending' }])

    // Within the lease the payment is still someone else's to finish.
    expectRefused(await run({ header: h, leaseMs: 60_000 }, ledger, pending.facilitator, 1_030_000), 409, 'PAYMENT_IN_PROGRESS')

    // The transfer did land: the token now says the nonce is used, and the chain has the transfer.
    const found = {
      txHash: TX,
      from: PAYER,
      to: getAddress(OPERATOR),
      value: 500_000n,
      blockNumber: 7n,
      submitter: OPERATOR,
      input: ourInput(nonce),
    }
    const chain = fakeFacilitator({ verify: { isValid: false, invalidReason: 'invalid_exact_evm_nonce_already_used' }, found })
    const retry = await run({ header: h, leaseMs: 60_000 }, ledger, chain.facilitator, 1_061_000)
    expect(retry.ok && { reconciled: retry.reconciled, txHash: retry.txHash, credit: retry.credit }).toEqual({
      reconciled: true,
      txHash: TX,
      credit: { kind: 'extend', golemId: 'golem-1', seconds: 3600n, amount: 500_000n },
    })
    expect(chain.calls.settle).toBe(0)
    expectRefused(await run({ header: h }, ledger, chain.facilitator, 1_062_000), 409, 'PAYMENT_REPLAYED')
    expect(ledger.settled()).toHaveLength(1)
  })

  test('a used nonce whose transfer went elsewhere (or for another value) is a replay, not a credit', async () => {
    const ledger = new InMemoryPaymentLedger()
    const nonce = toHex(crypto.getRandomValues(new Uint8Array(32)))
    const found = {
      txHash: TX,
      from: PAYER,
      to: getAddress(PAYER),
      value: 500_000n,
      blockNumber: 7n,
      submitter: OPERATOR,
      input: ourInput(nonce),
    }
    const { facilitator } = fakeFacilitator({ verify: { isValid: false, invalidReason: 'invalid_exact_evm_nonce_already_used' }, found })
    expectRefused(await run({ header: header({ nonce }) }, ledger, facilitator), 409, 'PAYMENT_REPLAYED')
    const other = fakeFacilitator({
      verify: { isValid: false, invalidReason: 'invalid_exact_evm_nonce_already_used' },
      found: { ...found, to: getAddress(OPERATOR), value: 1n },
    })
    expectRefused(await run({ header: header({ nonce }) }, ledger, other.facilitator), 409, 'PAYMENT_REPLAYED')
    expect(ledger.entries()).toEqual([])
  })

  test('recording the credit failing after settlement -> 503, claim kept for reconciliation', async () => {
    const inner = new InMemoryPaymentLedger()
    const flaky: PaymentLedger = {
      claim: (r, c) => inner.claim(r, c),
      release: (r, o) => inner.release(r, o),
      markSettled: () => Promise.reject(new Error('store down')),
    }
    expectRefused(await run({ header: header() }, flaky, fakeFacilitator().facilitator), 503, 'PAYMENT_SETTLEMENT_PENDING')
    expect(inner.entries()).toMatchObject([{ status: 'pending' }])
  })

  test('after a crash the payment stays bound: another Golem or kind -> 409 PAYMENT_BOUND_ELSEWHERE, nothing verified or credited; the first terms reconcile', async () => {
    const inner = new InMemoryPaymentLedger()
    const flaky: PaymentLedger = {
      claim: (r, c) => inner.claim(r, c),
      release: (r, o) => inner.release(r, o),
      markSettled: () => Promise.reject(new Error('store down')),
    }
    const nonce = toHex(crypto.getRandomValues(new Uint8Array(32)))
    const h = header({ nonce, value: 5_000_000n })
    const tags: (Hex | undefined)[] = []
    const first = fakeFacilitator()
    const settle = first.facilitator.settle.bind(first.facilitator)
    first.facilitator.settle = (p, r, o) => (tags.push(o?.tag), settle(p, r, o))
    expectRefused(await run({ header: h, leaseMs: 1000 }, flaky, first.facilitator, 0), 503, 'PAYMENT_SETTLEMENT_PENDING')
    expect(tags).toEqual([
      settlementTag({ ledgerId: LEDGER_ID, payer: PAYER, nonce, golemId: golem.id, kind: 'extend', amount: 5_000_000n }),
    ])

    const found = {
      txHash: TX,
      from: PAYER,
      to: OPERATOR,
      value: 5_000_000n,
      blockNumber: 7n,
      submitter: OPERATOR,
      input: ourInput(nonce, { amount: 5_000_000n }),
    }
    const chain = fakeFacilitator({ verify: { isValid: false, invalidReason: 'invalid_exact_evm_nonce_already_used' }, found })
    const other = await run({ header: h, golemId: 'golem-2', golem: { id: 'golem-2', lifecycle: 'alive' } }, inner, chain.facilitator, 5000)
    expectRefused(other, 409, 'PAYMENT_BOUND_ELSEWHERE')
    expect(other.ok || other.message).toBe(
      'golemId: this payment was first presented with another golemId; a payment is credited only to the Golem and kind it was first presented for, never rebound',
    )
    const feed = await run({ header: h, kind: 'feed', requirements: requirementsFor(config, 'feed') }, inner, chain.facilitator, 5000)
    expectRefused(feed, 409, 'PAYMENT_BOUND_ELSEWHERE')
    expect(feed.ok || feed.message).toMatch(/^kind: /)
    expect(chain.calls).toEqual({ verify: 0, settle: 0, findSettlement: 0 })
    expect(inner.entries()).toMatchObject([{ status: 'pending', claim: { golemId: 'golem-1', kind: 'extend' } }])

    const own = await run({ header: h }, inner, chain.facilitator, 5000)
    expect(own.ok && own.reconciled && own.credit).toEqual({ kind: 'extend', golemId: 'golem-1', seconds: 36_000n, amount: 5_000_000n })
  })

  test.each([
    ['submitted by another account', { submitter: PAYER }, /^transaction\.from /],
    ['tagged for another Golem', { golemId: 'golem-2' }, /^transaction\.input /],
    ['tagged for another ledger', { ledgerId: 'other-stage' }, /^transaction\.input /],
  ] as const)('a used nonce whose settlement was %s is a replay, not a credit', async (_, over, reason) => {
    const ledger = new InMemoryPaymentLedger()
    const nonce = toHex(crypto.getRandomValues(new Uint8Array(32)))
    const input = ourInput(nonce, 'submitter' in over ? {} : over)
    const found = {
      txHash: TX,
      from: PAYER,
      to: OPERATOR,
      value: 500_000n,
      blockNumber: 7n,
      submitter: 'submitter' in over ? over.submitter : OPERATOR,
      input,
    }
    const outcome = await run(
      { header: header({ nonce }) },
      ledger,
      fakeFacilitator({ verify: { isValid: false, invalidReason: 'invalid_exact_evm_nonce_already_used' }, found }).facilitator,
    )
    expectRefused(outcome, 409, 'PAYMENT_REPLAYED')
    expect(outcome.ok || outcome.details.reconciliation).toMatch(reason)
    expect(ledger.entries()).toEqual([])
  })

  test('twenty concurrent copies of one payment: one settle, one credit, nineteen 409s', async () => {
    const ledger = new InMemoryPaymentLedger()
    const { facilitator, calls } = fakeFacilitator({
      settle: async () => {
        await new Promise((r) => setTimeout(r, 20))
        return { success: true, transaction: TX, network: config.network }
      },
    })
    const h = header()
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => run({ header: h }, ledger, facilitator)))
    expect(outcomes.filter((o) => o.ok)).toHaveLength(1)
    for (const o of outcomes.filter((o) => !o.ok)) expect([409]).toContain(answer(o).status)
    expect(calls.settle).toBe(1)
    expect(ledger.settled()).toHaveLength(1)
  })

  test('createX402Payments prices extend by the hour and feed by the death reserve', async () => {
    const ledger = new InMemoryPaymentLedger()
    const payments = createX402Payments({
      config: { chainId: 31337, asset: USDC, payTo: OPERATOR, pricing: config.pricing },
      ledger,
      facilitator: fakeFacilitator().facilitator,
      now: () => 5,
    })
    expect(payments.requirements('extend', 3).amount).toBe('1500000')
    expect(payments.requirements('feed').amount).toBe('5000000')
    const under = await payments.extend({
      header: header({ value: 1_000_000n }),
      golemId: 'golem-1',
      golem,
      hours: 3,
    })
    expectRefused(under, 402, 'PAYMENT_UNDERPAID')
    const ok = await payments.extend({
      header: header({ value: 1_500_000n }),
      golemId: 'golem-1',
      golem,
      hours: 3,
    })
    expect(ok.ok && ok.credit).toMatchObject({ kind: 'extend', seconds: 10_800n })
  })
})
