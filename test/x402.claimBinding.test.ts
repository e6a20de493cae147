// A payment stays with the Golem and kind it was first presented for, and crash recovery credits only
// this deployment's own settlement for that claim. Runs the attacks on anvil (TestUSDC, the real
// @x402/evm facilitator) against both ledgers: the in-memory one and the store's on DynamoDB (dynalite).
//
// The crash-then-replay attack: the payer's request settles, recording the credit fails (503
// PAYMENT_SETTLEMENT_PENDING), the claim's lease lapses, and an attacker rebuilds the payment header
// from the settlement transaction's public calldata and presents it for their own Golem.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentRequirements } from '@x402/core/types'
import { concatHex, decodeFunctionData, getAddress, numberToHex, sliceHex, type Address, type Hex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { TestUSDCAbi } from '../contracts/artifacts/index.ts'
import { DynamoStore } from '../adapters/store/dynamoStore.ts'
import { createInProcessFacilitator } from '../adapters/x402/settlement.ts'
import type { PaymentFacilitator } from '../core/x402/facilitator.ts'
import type { PaymentLedger, PaymentRef } from '../core/x402/ledger.ts'
import { InMemoryPaymentLedger } from './support/x402/memoryLedger.ts'
import { createX402Payments, type X402Payments } from '../core/x402/payments.ts'
import { paymentLedgerFromStore } from '../core/x402/storeLedger.ts'
import { createTable, documentClient, localDynamoClient, startDynalite, type Dynalite } from '../local/dynalite.ts'
import { answered, signedHeader, startX402Chain, type AnsweredPayment, type X402Chain } from './x402.harness.ts'

const LEASE_MS = 60_000
const T0 = 1_750_000_000_000
const alive = (id: string) => ({ id, lifecycle: 'alive' as const })

let chain: X402Chain
let dynalite: Dynalite
let dynamo: DynamoDBClient
let tables = 0

beforeAll(async () => {
  chain = await startX402Chain()
  dynalite = await startDynalite()
  dynamo = localDynamoClient(dynalite.endpoint)
})
afterAll(async () => {
  dynamo?.destroy()
  await dynalite?.stop()
  await chain?.stop()
})

/** A ledger under test and a way to read what it credited (the Golem and kind of a settled payment). */
type LedgerUnderTest = { ledger: PaymentLedger; creditedTo(ref: PaymentRef): Promise<{ golemId: string; kind: string } | null> }

const ledgers: [string, () => Promise<LedgerUnderTest>][] = [
  [
    'memory ledger',
    async () => {
      const ledger = new InMemoryPaymentLedger()
      return {
        ledger,
        async creditedTo(ref) {
          const e = ledger.get(ref)
          return e?.status === 'settled' ? { golemId: e.credit.golemId, kind: e.credit.kind } : null
        },
      }
    },
  ],
  [
    'DynamoDB ledger on dynalite',
    async () => {
      const tableName = `bardo-x402-binding-${++tables}`
      await createTable(dynamo, tableName)
      const store = new DynamoStore({ client: documentClient(dynamo), tableName, dueShards: 2 })
      return {
        ledger: paymentLedgerFromStore(store),
        async creditedTo(ref) {
          const p = await store.getPayment(ref)
          return p?.status === 'settled' ? { golemId: p.golemId, kind: p.kind } : null
        },
      }
    },
  ],
]

/** Recording the credit fails `failures` times (a store outage or a Lambda timeout after settlement). */
function crashingOnRecord(inner: PaymentLedger, failures = 1): PaymentLedger {
  let left = failures
  return {
    claim: (r, c) => inner.claim(r, c),
    release: (r, o) => inner.release(r, o),
    markSettled: (r, s) => (left-- > 0 ? Promise.reject(new Error('store unavailable')) : inner.markSettled(r, s)),
  }
}

type Deployment = { payments: X402Payments; clock: { now: number } }

function deployment(ledger: PaymentLedger, o: { facilitator?: PaymentFacilitator; ledgerId?: string } = {}): Deployment {
  const clock = { now: T0 }
  const payments = createX402Payments({
    config: {
      chainId: chain.anvil.chainId,
      asset: chain.usdc,
      payTo: chain.operator.account.address,
      pricing: chain.config.pricing,
      ...(o.ledgerId ? { ledgerId: o.ledgerId } : {}),
    },
    ledger,
    facilitator: o.facilitator ?? chain.facilitator,
    now: () => clock.now,
    leaseMs: LEASE_MS,
  })
  return { payments, clock }
}

const extend = async (d: Deployment, golemId: string, header: string) =>
  answered(await d.payments.extend({ header, golemId, golem: alive(golemId) }), 'extend', 'http://127.0.0.1/api/v1/extend')
const feed = async (d: Deployment, golemId: string, header: string) =>
  answered(await d.payments.feed({ header, golemId, golem: alive(golemId) }), 'feed', 'http://127.0.0.1/api/v1/feed')

function refusal(outcome: AnsweredPayment) {
  return outcome.ok
    ? { status: outcome.status, credited: outcome.credit.golemId }
    : { status: outcome.status, code: outcome.code, message: outcome.message }
}

/** Anyone can do this: read the settlement transaction and rebuild the x402 header from its calldata. */
async function headerFromCalldata(txHash: Hex, requirements: PaymentRequirements): Promise<string> {
  const tx = await chain.publicClient.getTransaction({ hash: txHash })
  // transferWithAuthorization(from, to, value, validAfter, validBefore, nonce, v, r, s): 4 + 9 * 32 bytes.
  const { args } = decodeFunctionData({ abi: TestUSDCAbi, data: sliceHex(tx.input, 0, 4 + 9 * 32) })
  const [from, to, value, validAfter, validBefore, nonce, v, r, s] = args as readonly [
    Address,
    Address,
    bigint,
    bigint,
    bigint,
    Hex,
    number,
    Hex,
    Hex,
  ]
  return encodePaymentSignatureHeader({
    x402Version: 2,
    accepted: { ...requirements, amount: value.toString() },
    payload: {
      signature: concatHex([r, s, numberToHex(v, { size: 1 })]),
      authorization: { from, to, value: value.toString(), validAfter: validAfter.toString(), validBefore: validBefore.toString(), nonce },
    },
  })
}

async function refOf(header: string): Promise<PaymentRef> {
  const json = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as { payload: { authorization: { from: Address; nonce: Hex } } }
  return { payer: getAddress(json.payload.authorization.from), nonce: json.payload.authorization.nonce }
}

/**
 * The payer pays $5 for golem-payer's extension (enough for a feed too, so the kind is what differs);
 * settlement succeeds but the credit is never recorded.
 */
async function crashAfterSettlement(d: Deployment, payer: PrivateKeyAccount) {
  const header = await signedHeader(payer, d.payments.requirements('extend'), { value: 5_000_000n })
  const before = await chain.balanceOf(chain.operator.account.address)
  const first = await extend(d, 'golem-payer', header)
  expect(refusal(first)).toMatchObject({ status: 503, code: 'PAYMENT_SETTLEMENT_PENDING' })
  expect(await chain.balanceOf(chain.operator.account.address)).toBe(before + 5_000_000n)
  const txHash = (first.ok ? first.txHash : first.details.txHash) as Hex
  return { header, txHash, ref: await refOf(header) }
}

describe.each(ledgers)('x402 claim binding: %s', (_, make) => {
  test("crash then replay: the rebuilt header is refused for another Golem (409, nothing credited); the payer's retry gets its credit", async () => {
    const { ledger, creditedTo } = await make()
    const d = deployment(crashingOnRecord(ledger))
    const { header, txHash, ref } = await crashAfterSettlement(d, await chain.newPayer())

    d.clock.now += LEASE_MS + 1 // the claim's lease lapsed
    const attackerHeader = await headerFromCalldata(txHash, d.payments.requirements('extend'))
    const attack = await extend(d, 'golem-attacker', attackerHeader)
    expect(refusal(attack)).toEqual({
      status: 409,
      code: 'PAYMENT_BOUND_ELSEWHERE',
      message:
        'golemId: this payment was first presented with another golemId; a payment is credited only to the Golem and kind it was first presented for, never rebound',
    })
    expect(await creditedTo(ref)).toBeNull()
    // Nor for another kind on the payer's own Golem.
    expect(refusal(await feed(d, 'golem-payer', attackerHeader))).toMatchObject({
      status: 409,
      code: 'PAYMENT_BOUND_ELSEWHERE',
      message: expect.stringMatching(/^kind: /),
    })

    const retry = await extend(d, 'golem-payer', header)
    expect(retry.ok && { reconciled: retry.reconciled, txHash: retry.txHash, credit: retry.credit }).toEqual({
      reconciled: true,
      txHash,
      credit: { kind: 'extend', golemId: 'golem-payer', seconds: 36_000n, amount: 5_000_000n },
    })
    expect(await creditedTo(ref)).toEqual({ golemId: 'golem-payer', kind: 'extend' })
    expect(refusal(await extend(d, 'golem-attacker', attackerHeader))).toMatchObject({ status: 409, code: 'PAYMENT_BOUND_ELSEWHERE' })
    expect(await creditedTo(ref)).toEqual({ golemId: 'golem-payer', kind: 'extend' })
  })

  test('an attacker who frees the lapsed claim with a forged signature still cannot reconcile the settlement to another Golem', async () => {
    const { ledger, creditedTo } = await make()
    const d = deployment(crashingOnRecord(ledger))
    const payer = await chain.newPayer()
    const { header, txHash, ref } = await crashAfterSettlement(d, payer)
    d.clock.now += LEASE_MS + 1

    // Same payer, nonce, value and Golem, signed by someone else: it takes over the lapsed claim, fails
    // verification and releases the claim, so the record that held the binding is gone.
    const rebuilt = JSON.parse(Buffer.from(await headerFromCalldata(txHash, d.payments.requirements('extend')), 'base64').toString('utf8'))
    const forged = encodePaymentSignatureHeader({ ...rebuilt, payload: { ...rebuilt.payload, signature: `0x${'1b'.repeat(65)}` } })
    const freeing = await extend(d, 'golem-payer', forged)
    expect(freeing.ok).toBe(false)
    expect(await creditedTo(ref)).toBeNull()

    // The settlement on-chain is tagged for golem-payer's extension, so it reconciles for nothing else.
    const attack = await extend(d, 'golem-attacker', encodePaymentSignatureHeader(rebuilt))
    expect(refusal(attack)).toMatchObject({ status: 409, code: 'PAYMENT_REPLAYED' })
    expect((attack as { details: Record<string, unknown> }).details.reconciliation).toMatch(
      /^transaction\.input must carry the settlement tag/,
    )
    expect(await creditedTo(ref)).toBeNull()

    const retry = await extend(d, 'golem-payer', header)
    expect(retry.ok && retry.reconciled && retry.credit.golemId).toBe('golem-payer')
    expect(await creditedTo(ref)).toEqual({ golemId: 'golem-payer', kind: 'extend' })
  })

  test('two ledgers sharing chain, token and operator: only the one whose settlement account submitted the transfer credits it', async () => {
    const stageA = await make()
    const stageB = await make()
    const a = deployment(crashingOnRecord(stageA.ledger), { ledgerId: 'stage-a' })
    // Stage B settles with its own account (the deployer here) but is paid to the same operator.
    const b = deployment(stageB.ledger, {
      ledgerId: 'stage-b',
      facilitator: createInProcessFacilitator({
        publicClient: chain.publicClient,
        walletClient: chain.deployer,
        networks: [chain.config.network],
        confirmationTimeoutMs: 30_000,
      }),
    })
    const payer = await chain.newPayer()
    const header = await signedHeader(payer, a.payments.requirements('extend'))
    const ref = await refOf(header)
    expect(refusal(await extend(a, 'golem-1', header))).toMatchObject({ status: 503, code: 'PAYMENT_SETTLEMENT_PENDING' })

    const other = await extend(b, 'golem-1', header)
    expect(refusal(other)).toMatchObject({ status: 409, code: 'PAYMENT_REPLAYED' })
    expect((other as { details: Record<string, unknown> }).details.reconciliation).toMatch(
      /^transaction\.from must be this deployment's settlement account/,
    )
    expect(await stageB.creditedTo(ref)).toBeNull()

    a.clock.now += LEASE_MS + 1
    const own = await extend(a, 'golem-1', header)
    expect(own.ok && own.reconciled).toBe(true)
    expect(await stageA.creditedTo(ref)).toEqual({ golemId: 'golem-1', kind: 'extend' })
    expect(await stageB.creditedTo(ref)).toBeNull()
  })

  test('two ledgers sharing the settlement account as well: the ledger id in the settlement tag decides', async () => {
    const stageA = await make()
    const restored = await make()
    const a = deployment(stageA.ledger, { ledgerId: 'stage-a' })
    const b = deployment(restored.ledger, { ledgerId: 'stage-b' })
    const payer = await chain.newPayer()
    const header = await signedHeader(payer, a.payments.requirements('extend'))
    const ref = await refOf(header)
    expect((await extend(a, 'golem-1', header)).ok).toBe(true)

    const other = await extend(b, 'golem-1', header)
    expect(refusal(other)).toMatchObject({ status: 409, code: 'PAYMENT_REPLAYED' })
    expect((other as { details: Record<string, unknown> }).details.reconciliation).toMatch(
      /^transaction\.input must carry the settlement tag/,
    )
    expect(await restored.creditedTo(ref)).toBeNull()
    expect(await stageA.creditedTo(ref)).toEqual({ golemId: 'golem-1', kind: 'extend' })
  })
})
