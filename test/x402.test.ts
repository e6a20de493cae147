// POST /api/v1/extend and /feed payments end to end on anvil: the real @x402/core facilitator with
// @x402/evm's exact scheme settles EIP-3009 TestUSDC transfers to the operator. Every refusal is
// checked for status, code, no credit, no ledger entry and unchanged balances.
import { x402Client } from '@x402/core/client'
import { decodePaymentResponseHeader, encodePaymentSignatureHeader, x402HTTPClient } from '@x402/core/http'
import type { PaymentRequirements } from '@x402/core/types'
import { ExactEvmScheme as ExactEvmClientScheme } from '@x402/evm/exact/client'
import { getAddress, type Address, type Hex } from 'viem'
import { privateKeyToAccount, generatePrivateKey, type PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { TestUSDCAbi } from '../contracts/artifacts/index.ts'
import { InMemoryPaymentLedger } from './support/x402/memoryLedger.ts'
import { DEFAULT_LEDGER_ID } from '../core/x402/requirements.ts'
import { settlementTag } from '../core/x402/settlementTag.ts'
import { createX402Payments, type X402Payments } from '../core/x402/payments.ts'
import { toResponse } from '../functions/api/paymentResponse.ts'
import type { PayableGolem } from '../core/x402/processPayment.ts'
import {
  answered,
  countingFacilitator,
  payWithX402Client,
  signPayment,
  signedHeader,
  startX402Chain,
  type AnsweredPayment,
  type X402Chain,
} from './x402.harness.ts'

const URL_EXTEND = 'http://127.0.0.1/api/v1/extend'
const alive: PayableGolem = { id: 'golem-1', lifecycle: 'alive' }

let chain: X402Chain
let ledger: InMemoryPaymentLedger
let facilitator: ReturnType<typeof countingFacilitator>
let payments: X402Payments
let operator: Address

beforeAll(async () => {
  chain = await startX402Chain()
  operator = chain.operator.account.address
})
afterAll(async () => chain?.stop())
beforeEach(() => {
  ledger = new InMemoryPaymentLedger()
  facilitator = countingFacilitator(chain.facilitator)
  payments = createX402Payments({
    config: { chainId: chain.anvil.chainId, asset: chain.usdc, payTo: operator, pricing: chain.config.pricing },
    ledger,
    facilitator,
  })
})

/** `null` stands for "no such Golem" (the registry returned undefined). Answered as the API answers it. */
const extend = async (header: string | undefined, golem: PayableGolem | null = alive, hours = 1) =>
  answered(await payments.extend({ header, golemId: 'golem-1', golem: golem ?? undefined, hours }), 'extend', URL_EXTEND)

async function balances(payer: Address) {
  return { payer: await chain.balanceOf(payer), operator: await chain.balanceOf(operator) }
}

/** The refusal contract: this status and code, no credit, nothing in the ledger, no money moved. */
async function expectRefusedCleanly(
  outcome: AnsweredPayment,
  status: number,
  code: string,
  payer: PrivateKeyAccount,
  before: { payer: bigint; operator: bigint },
) {
  expect(outcome.ok, JSON.stringify(outcome.ok ? outcome.body : outcome.body)).toBe(false)
  if (outcome.ok) return
  expect({ status: outcome.status, code: outcome.code }).toEqual({ status, code })
  expect(outcome).not.toHaveProperty('credit')
  expect(ledger.settled()).toEqual([])
  expect(ledger.entries()).toEqual([])
  expect(await balances(payer.address)).toEqual(before)
}

describe('x402 extend/feed on anvil', () => {
  test('a standard x402 client pays for one hour: USDC moves to the operator once, credit and PAYMENT-RESPONSE returned', async () => {
    const payer = await chain.newPayer()
    const before = await balances(payer.address)
    const header = await payWithX402Client(payer, payments.requirements('extend'), URL_EXTEND)
    const outcome = await extend(header)
    expect(outcome.ok).toBe(true)
    if (!outcome.ok) return
    expect(outcome.credit).toEqual({ kind: 'extend', golemId: 'golem-1', seconds: 3600n, amount: 500_000n })
    expect(await balances(payer.address)).toEqual({ payer: before.payer - 500_000n, operator: before.operator + 500_000n })

    const receipt = await chain.publicClient.getTransactionReceipt({ hash: outcome.txHash })
    expect(receipt.status).toBe('success')
    expect(getAddress(receipt.from)).toBe(getAddress(operator)) // the operator submitted and paid gas
    const settlement = decodePaymentResponseHeader(outcome.headers['PAYMENT-RESPONSE']!)
    expect(settlement).toEqual({
      success: true,
      transaction: outcome.txHash,
      network: `eip155:${chain.anvil.chainId}`,
      payer: payer.address,
    })
    expect(ledger.settled()).toMatchObject([{ txHash: outcome.txHash, credit: outcome.credit }])
    expect(facilitator.calls).toEqual({ verify: 1, settle: 1, findSettlement: 0 })

    const response = toResponse(outcome)
    expect(response.status).toBe(200)
    expect(response.headers.get('PAYMENT-RESPONSE')).toBe(outcome.headers['PAYMENT-RESPONSE'])

    // Replay: the same header again is refused and moves nothing.
    const after = await balances(payer.address)
    const replay = await extend(header)
    expect(replay.ok || { status: replay.status, code: replay.code }).toEqual({ status: 409, code: 'PAYMENT_REPLAYED' })
    expect(await balances(payer.address)).toEqual(after)
    expect(ledger.settled()).toHaveLength(1)
    expect(facilitator.calls.settle).toBe(1)
  })

  test("the full x402 HTTP loop with @x402/core's client: 402 + PAYMENT-REQUIRED, pay, 200 + PAYMENT-RESPONSE", async () => {
    const payer = await chain.newPayer()
    const client = new x402HTTPClient(
      x402Client.fromConfig({ schemes: [{ network: 'eip155:*', client: new ExactEvmClientScheme(payer) }], spendControls: false }),
    )
    const unpaid = toResponse(await extend(undefined))
    expect(unpaid.status).toBe(402)
    const required = client.getPaymentRequiredResponse((name) => unpaid.headers.get(name), await unpaid.json())
    expect(required.accepts).toEqual([payments.requirements('extend')])
    const paymentHeaders = client.encodePaymentSignatureHeader(await client.createPaymentPayload(required))
    const paid = toResponse(await extend(paymentHeaders['PAYMENT-SIGNATURE']))
    expect(paid.status).toBe(200)
    expect(client.getPaymentSettleResponse((name) => paid.headers.get(name))).toMatchObject({ success: true, payer: payer.address })
    expect(await paid.json()).toMatchObject({ golemId: 'golem-1', credit: { kind: 'extend', seconds: '3600' } })
  })

  test('extend for several hours with an overpayment credits every second paid for', async () => {
    const payer = await chain.newPayer()
    const outcome = await extend(await signedHeader(payer, payments.requirements('extend', 3), { value: 1_750_000n }), alive, 3)
    expect(outcome.ok && outcome.credit).toEqual({ kind: 'extend', golemId: 'golem-1', seconds: 12_600n, amount: 1_750_000n })
  })

  test('feed takes the death reserve and credits it', async () => {
    const payer = await chain.newPayer()
    const before = await balances(payer.address)
    const header = await payWithX402Client(payer, payments.requirements('feed'), 'http://127.0.0.1/api/v1/feed')
    const outcome = answered(await payments.feed({ header, golemId: 'golem-1', golem: alive }), 'feed', 'http://127.0.0.1/api/v1/feed')
    expect(outcome.ok && outcome.credit).toEqual({ kind: 'feed', golemId: 'golem-1', amount: 5_000_000n })
    expect(await balances(payer.address)).toEqual({ payer: before.payer - 5_000_000n, operator: before.operator + 5_000_000n })
  })

  const now = () => BigInt(Math.floor(Date.now() / 1000))
  const req = () => payments.requirements('extend')
  const otherChainRequirements = (): PaymentRequirements => ({ ...req(), network: 'eip155:1' })

  const cases: [string, number, string, (payer: PrivateKeyAccount) => Promise<string>, bigint?][] = [
    [
      'forged signature (signed by another key)',
      402,
      'PAYMENT_SIGNATURE_INVALID',
      (p) => signedHeader(p, req(), { signer: privateKeyToAccount(generatePrivateKey()) }),
    ],
    ['signed for another chain id', 402, 'PAYMENT_SIGNATURE_INVALID', (p) => signedHeader(p, req(), { domain: { chainId: 1 } })],
    [
      'malleated signature (high s)',
      402,
      'PAYMENT_SIGNATURE_INVALID',
      async (p) => {
        // The same signature's twin (n - s, flipped v) recovers the same key; USDC refuses it.
        const payload = await signPayment(p, req())
        const sig = payload.payload.signature as string
        const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
        const s = BigInt(`0x${sig.slice(66, 130)}`)
        const v = Number.parseInt(sig.slice(130, 132), 16)
        payload.payload.signature = `${sig.slice(0, 66)}${(n - s).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}`
        return encodePaymentSignatureHeader(payload)
      },
    ],
    ['expired', 402, 'PAYMENT_EXPIRED', (p) => signedHeader(p, req(), { validBefore: now() - 60n })],
    [
      'not yet valid',
      402,
      'PAYMENT_NOT_YET_VALID',
      (p) => signedHeader(p, req(), { validAfter: now() + 3600n, validBefore: now() + 7200n }),
    ],
    ['underpaid by one unit', 402, 'PAYMENT_UNDERPAID', (p) => signedHeader(p, req(), { value: 499_999n })],
    ['wrong payTo (authorization.to)', 402, 'PAYMENT_WRONG_PAY_TO', (p) => signedHeader(p, req(), { to: p.address })],
    ['wrong payTo (accepted.payTo)', 402, 'PAYMENT_WRONG_PAY_TO', (p) => signedHeader(p, { ...req(), payTo: p.address }, { to: operator })],
    ['wrong asset', 402, 'PAYMENT_WRONG_ASSET', (p) => signedHeader(p, { ...req(), asset: '0x000000000000000000000000000000000000dEaD' })],
    ['wrong network', 402, 'PAYMENT_WRONG_NETWORK', (p) => signedHeader(p, otherChainRequirements())],
    ['malformed: bad base64', 400, 'PAYMENT_HEADER_NOT_BASE64', async () => 'eyJ4NDAyVmVyc2lvbiI6Mn0*'],
    ['malformed: bad JSON', 400, 'PAYMENT_HEADER_NOT_JSON', async () => Buffer.from('{"x402Version":2,"accepted":').toString('base64')],
    [
      'malformed: missing fields',
      400,
      'PAYMENT_HEADER_INVALID',
      async (p) => {
        const payload = await signPayment(p, req())
        delete (payload.payload.authorization as Record<string, unknown>).nonce
        return encodePaymentSignatureHeader(payload)
      },
    ],
    ['insufficient balance', 402, 'PAYMENT_INSUFFICIENT_BALANCE', (p) => signedHeader(p, req()), 100_000n],
  ]

  test.each(cases)('%s -> %i %s, no credit, no money moved', async (_, status, code, make, funding) => {
    const payer = await chain.newPayer(funding ?? 100_000_000n)
    const before = await balances(payer.address)
    const outcome = await extend(await make(payer))
    await expectRefusedCleanly(outcome, status, code, payer, before)
    if (outcome.ok === false && outcome.status === 402) expect(outcome.headers['PAYMENT-REQUIRED']).toBeTruthy()
    expect(facilitator.calls.settle).toBe(0)
  })

  test.each([
    ['unknown Golem', null, 404, 'GOLEM_NOT_FOUND'],
    ['dead Golem', { id: 'golem-1', lifecycle: 'dead' as const }, 410, 'GOLEM_DEAD'],
    ['dying Golem', { id: 'golem-1', lifecycle: 'dying' as const }, 503, 'GOLEM_DYING'],
  ])('%s is refused before the payment is touched; the authorization stays unspent', async (_, golem, status, code) => {
    const payer = await chain.newPayer()
    const before = await balances(payer.address)
    const header = await signedHeader(payer, req())
    await expectRefusedCleanly(await extend(header, golem), status, code, payer, before)
    expect(facilitator.calls).toEqual({ verify: 0, settle: 0, findSettlement: 0 })
    // The same authorization is still good for a live Golem.
    expect((await extend(header)).ok).toBe(true)
  })

  test('the same payment sent twice concurrently settles once and credits once', async () => {
    const payer = await chain.newPayer()
    const before = await balances(payer.address)
    const header = await signedHeader(payer, req())
    const [a, b] = await Promise.all([extend(header), extend(header)])
    const ok = [a, b].filter((o) => o.ok)
    const refused = [a, b].filter((o) => !o.ok)
    expect(ok).toHaveLength(1)
    expect(refused.map((o) => !o.ok && [o.status, o.code])).toEqual([[409, expect.stringMatching(/^PAYMENT_(IN_PROGRESS|REPLAYED)$/)]])
    expect(facilitator.calls.settle).toBe(1)
    expect(ledger.settled()).toHaveLength(1)
    expect(await balances(payer.address)).toEqual({ payer: before.payer - 500_000n, operator: before.operator + 500_000n })
  })

  test('different payers at once all settle (the operator key sends one nonce at a time)', async () => {
    const payers = await Promise.all(Array.from({ length: 5 }, () => chain.newPayer()))
    const before = await chain.balanceOf(operator)
    const outcomes = await Promise.all(payers.map(async (p) => extend(await signedHeader(p, req()))))
    expect(outcomes.map((o) => o.ok)).toEqual([true, true, true, true, true])
    expect(await chain.balanceOf(operator)).toBe(before + 5n * 500_000n)
    expect(ledger.settled()).toHaveLength(5)
  })

  test('a payment settled but never recorded (a crash) is reconciled from the chain and credited once', async () => {
    const payer = await chain.newPayer()
    const payload = await signPayment(payer, req())
    // The facilitator settles (tagged for this ledger's claim, as processPayment sends it), then the
    // process "dies" before the ledger hears of it.
    const auth = payload.payload.authorization as { from: Address; nonce: Hex }
    const tag = settlementTag({
      ledgerId: DEFAULT_LEDGER_ID,
      payer: auth.from,
      nonce: auth.nonce,
      golemId: 'golem-1',
      kind: 'extend',
      amount: 500_000n,
    })
    const settled = await chain.facilitator.settle(payload, req(), { tag })
    expect(settled.success).toBe(true)
    const outcome = await extend(encodePaymentSignatureHeader(payload))
    expect(outcome.ok && { reconciled: outcome.reconciled, txHash: outcome.txHash, credit: outcome.credit }).toEqual({
      reconciled: true,
      txHash: settled.transaction,
      credit: { kind: 'extend', golemId: 'golem-1', seconds: 3600n, amount: 500_000n },
    })
    expect(facilitator.calls.settle).toBe(0)
    const again = await extend(encodePaymentSignatureHeader(payload))
    expect(again.ok || again.code).toBe('PAYMENT_REPLAYED')
    expect(ledger.settled()).toHaveLength(1)
  })

  test("a transfer the settlement account sent without this claim's tag is not credited by reconciliation", async () => {
    const payer = await chain.newPayer()
    const payload = await signPayment(payer, req())
    expect((await chain.facilitator.settle(payload, req())).success).toBe(true)
    const outcome = await extend(encodePaymentSignatureHeader(payload))
    expect(outcome.ok || { code: outcome.code, reconciliation: outcome.details.reconciliation }).toEqual({
      code: 'PAYMENT_REPLAYED',
      reconciliation:
        'transaction.input must carry the settlement tag of this ledger, Golem and kind; the transfer was submitted for another claim',
    })
    expect(ledger.entries()).toEqual([])
  })

  test('an authorization the payer canceled on-chain is refused as replayed, with no credit', async () => {
    const payer = await chain.newPayer()
    const payload = await signPayment(payer, req())
    const nonce = (payload.payload.authorization as { nonce: `0x${string}` }).nonce
    const signature = await payer.signTypedData({
      domain: { name: 'USD Coin', version: '2', chainId: chain.anvil.chainId, verifyingContract: chain.usdc },
      types: {
        CancelAuthorization: [
          { name: 'authorizer', type: 'address' },
          { name: 'nonce', type: 'bytes32' },
        ],
      },
      primaryType: 'CancelAuthorization',
      message: { authorizer: payer.address, nonce },
    })
    const hash = await chain.deployer.writeContract({
      address: chain.usdc,
      abi: TestUSDCAbi,
      functionName: 'cancelAuthorization',
      args: [payer.address, nonce, signature],
    })
    await chain.publicClient.waitForTransactionReceipt({ hash })
    const before = await balances(payer.address)
    await expectRefusedCleanly(await extend(encodePaymentSignatureHeader(payload)), 409, 'PAYMENT_REPLAYED', payer, before)
  })
})
