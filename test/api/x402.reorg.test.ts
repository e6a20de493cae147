// x402 credits whose settlement a reorg takes away, through the HTTP app on anvil with a confirmation
// depth of 3 blocks (anvil's default is 1). A settled payment is confirming until its settlement is 3
// blocks deep: it extends no life and the payer's retry of the same payment says so. A settlement
// reorged out while the payer's authorization is still valid is broadcast again from its recorded
// signed bytes (same hash) and the credit goes final once it is deep: the runway is extended once and
// the USDC moved once. One reorged out whose authorization then expired unused can never land: the
// credit is reversed, nothing moved, no runtime granted, and the reversal is in the Golem's events.
import { decodePaymentResponseHeader, decodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentRequirements } from '@x402/core/types'
import { createWalletClient, http, parseAbi, type Address, type Hex, type PrivateKeyAccount } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { advanceConfirmingCredits } from '../../core/lifecycle/applyPaymentCredit.ts'
import { signedHeader } from '../x402.harness.ts'
import { postJson, PRICING, requirementsOf, startApiStack, type ApiStack } from './harness.ts'
import { chainCreditStanding } from '../../adapters/x402/creditStanding.ts'

const DEPTH = 3
const transferWithAuthorizationAbi = parseAbi([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
])
const CONFIRMATIONS = { 31337: DEPTH }

let stack: ApiStack
const rpc = (method: string, params: unknown[] = []) =>
  stack.devnet.publicClient.request({ method: method as never, params: params as never }) as Promise<unknown>
const app = () => stack.app({ confirmations: CONFIRMATIONS })

beforeAll(async () => {
  stack = await startApiStack()
  for (const id of ['remined', 'elsewhere', 'expired']) await stack.provision(id)
}, 120_000)
afterAll(async () => stack?.stop())

async function mineToDepth(txHash: Hex): Promise<void> {
  const { blockNumber } = await stack.devnet.publicClient.getTransactionReceipt({ hash: txHash })
  const head = await stack.devnet.publicClient.getBlockNumber({ cacheTime: 0 })
  const missing = blockNumber + BigInt(DEPTH - 1) - head
  if (missing > 0n) await rpc('anvil_mine', [`0x${missing.toString(16)}`])
}

async function events(golemId: string, type: string) {
  return (await stack.store.listEvents({ golemId, limit: 100 })).events.filter((e) => e.type === type)
}

async function extend(golemId: string, o: { validBefore?: bigint } = {}) {
  const payer: PrivateKeyAccount = await stack.newPayer()
  const ask = await postJson(app(), '/api/v1/extend', { golemId, hours: 1 })
  expect(ask.status).toBe(402)
  const requirements: PaymentRequirements = requirementsOf(ask)
  const header = await signedHeader(payer, requirements, o)
  const send = () => postJson(app(), '/api/v1/extend', { golemId, hours: 1 }, { 'payment-signature': header })
  return { payer, requirements, header, send, first: await send() }
}

describe('an x402 credit at a confirmation depth of 3 blocks', () => {
  it('a settlement reorged out and re-mined from its signed bytes is credited exactly once, the USDC moved once', async () => {
    const before = await stack.profile('remined')
    const operatorBefore = await stack.usdcBalance(stack.operator)
    const { payer, requirements, send, first } = await extend('remined')
    expect(first.status).toBe(200)
    const body = (await first.json()) as { txHash: Hex; profile: { applied: boolean; reason?: string } }
    // Settled one block deep: confirming, no runtime granted.
    expect(body.profile).toMatchObject({ applied: false, reason: 'confirming' })
    expect(decodePaymentResponseHeader(first.headers.get('payment-response')!).success).toBe(true)
    expect((await stack.profile('remined')).life.runwayEndsAt).toBe(before.life.runwayEndsAt)
    expect(await events('remined', 'PaymentConfirming')).toHaveLength(1)
    expect(await events('remined', 'PaymentCredited')).toHaveLength(0)
    const amount = BigInt(requirements.amount)
    expect(await stack.usdcBalance(stack.operator)).toBe(operatorBefore + amount)

    // The settlement's block is replaced by an empty one: the transfer is gone.
    await rpc('anvil_reorg', [1, []])
    expect(await stack.usdcBalance(stack.operator)).toBe(operatorBefore)

    // The payer's retry judges it again: gone, authorization unused and valid -> the same bytes again.
    const retry = await send()
    expect(retry.status).toBe(409)
    expect(((await retry.json()) as { details: { credit?: unknown } }).details.credit).toEqual({ standing: 'confirming' })
    const again = await stack.devnet.publicClient.waitForTransactionReceipt({ hash: body.txHash })
    expect(again.status).toBe('success')
    expect(await stack.usdcBalance(stack.operator)).toBe(operatorBefore + amount)
    expect((await stack.profile('remined')).life.runwayEndsAt).toBe(before.life.runwayEndsAt)

    // Deep enough: the next look makes it final and applies it, once.
    await mineToDepth(body.txHash)
    const final = await send()
    expect(final.status).toBe(409)
    expect(((await final.json()) as { details: { credit?: unknown } }).details.credit).toBeUndefined()
    const after = await stack.profile('remined')
    expect(after.life.runwayEndsAt - before.life.runwayEndsAt).toBeGreaterThanOrEqual((amount * 3600n) / PRICING.runtimeCostPerHour)
    const credited = await events('remined', 'PaymentCredited')
    expect(credited.map((e) => e.data.txHash)).toEqual([body.txHash])
    // Looked at again (a sweep): nothing more is applied.
    const swept = await advanceConfirmingCredits(
      {
        store: stack.store,
        runtimeCostPerHour: PRICING.runtimeCostPerHour,
        chainNow: async () => (await stack.devnet.publicClient.getBlock()).timestamp,
        standing: standingOnChain(),
      },
      'remined',
      0,
    )
    expect(swept).toEqual({ checked: 0, applied: 0, reversed: 0 })
    await send()
    expect((await stack.profile('remined')).life.runwayEndsAt).toBe(after.life.runwayEndsAt)
    expect(await stack.usdcBalance(stack.operator)).toBe(operatorBefore + amount)
    expect(await stack.usdcBalance(payer.address)).toBe(100_000_000n - amount)
  }, 120_000)

  it('a settlement reorged out whose authorization someone else then carried stands once that transfer is deep: credited once, moved once', async () => {
    const before = await stack.profile('elsewhere')
    const operatorBefore = await stack.usdcBalance(stack.operator)
    const { payer, requirements, header, send, first } = await extend('elsewhere')
    const body = (await first.json()) as { txHash: Hex; profile: { applied: boolean; reason?: string } }
    expect(body.profile).toMatchObject({ applied: false, reason: 'confirming' })
    await rpc('anvil_reorg', [1, []])
    // Another account submits the payer's signed authorization itself (it is public once broadcast).
    const { payload } = decodePaymentSignatureHeader(header)
    const auth = payload.authorization as { from: Address; to: Address; value: string; validAfter: string; validBefore: string; nonce: Hex }
    const other = await stack.devnet.fundedAccount()
    const wallet = createWalletClient({ account: other, chain: stack.devnet.publicClient.chain, transport: http(stack.devnet.rpcUrl) })
    const theirs = await wallet.writeContract({
      address: stack.devnet.deployment.assets.usdc,
      abi: transferWithAuthorizationAbi,
      functionName: 'transferWithAuthorization',
      args: [
        auth.from,
        auth.to,
        BigInt(auth.value),
        BigInt(auth.validAfter),
        BigInt(auth.validBefore),
        auth.nonce,
        payload.signature as Hex,
      ],
    })
    expect((await stack.devnet.publicClient.waitForTransactionReceipt({ hash: theirs })).status).toBe('success')
    const amount = BigInt(requirements.amount)
    expect(await stack.usdcBalance(stack.operator)).toBe(operatorBefore + amount)
    // Not deep yet: still confirming, nothing applied; our bytes are not sent again (the authorization is used).
    const early = await send()
    expect(((await early.json()) as { details: { credit?: unknown } }).details.credit).toEqual({ standing: 'confirming' })
    expect((await stack.profile('elsewhere')).life.runwayEndsAt).toBe(before.life.runwayEndsAt)
    await mineToDepth(theirs)
    const final = await send()
    expect(((await final.json()) as { details: { credit?: unknown } }).details.credit).toBeUndefined()
    const after = await stack.profile('elsewhere')
    expect(after.life.runwayEndsAt).toBeGreaterThan(before.life.runwayEndsAt)
    expect(await events('elsewhere', 'PaymentCredited')).toHaveLength(1)
    await send()
    expect((await stack.profile('elsewhere')).life.runwayEndsAt).toBe(after.life.runwayEndsAt)
    expect(await stack.usdcBalance(stack.operator)).toBe(operatorBefore + amount)
    expect(await stack.usdcBalance(payer.address)).toBe(100_000_000n - amount)
    // Our recorded settlement never landed.
    await expect(stack.devnet.publicClient.getTransactionReceipt({ hash: body.txHash })).rejects.toThrow()
  }, 120_000)

  it('a settlement reorged out whose authorization expired unused is reversed: nothing moved, no runtime, the reversal readable', async () => {
    const before = await stack.profile('expired')
    const operatorBefore = await stack.usdcBalance(stack.operator)
    const validBefore = BigInt(Math.floor(Date.now() / 1000)) + 120n
    const { payer, send, first } = await extend('expired', { validBefore })
    expect(first.status).toBe(200)
    const body = (await first.json()) as { txHash: Hex; profile: { applied: boolean; reason?: string } }
    expect(body.profile).toMatchObject({ applied: false, reason: 'confirming' })
    await rpc('anvil_reorg', [1, []])
    expect(await stack.usdcBalance(stack.operator)).toBe(operatorBefore)
    // Nobody looks until the authorization has expired on the chain's clock.
    await stack.devnet.increaseTime(3600)
    const sweep = await advanceConfirmingCredits(
      {
        store: stack.store,
        runtimeCostPerHour: PRICING.runtimeCostPerHour,
        chainNow: async () => (await stack.devnet.publicClient.getBlock()).timestamp,
        standing: standingOnChain(),
      },
      'expired',
      0,
    )
    expect(sweep).toEqual({ checked: 1, applied: 0, reversed: 1 })
    const reversed = await events('expired', 'PaymentReversed')
    expect(reversed).toHaveLength(1)
    expect(reversed[0]!.data).toMatchObject({ payer: payer.address.toLowerCase(), txHash: body.txHash, reason: 'authorization-expired' })
    // The payer's retry reads the reversal; it grants nothing and moves nothing.
    const retry = await send()
    expect(retry.status).toBe(409)
    expect(((await retry.json()) as { details: { credit?: unknown } }).details.credit).toEqual({ standing: 'reversed' })
    expect((await stack.profile('expired')).life.runwayEndsAt).toBe(before.life.runwayEndsAt)
    expect(await events('expired', 'PaymentCredited')).toHaveLength(0)
    expect(await stack.usdcBalance(stack.operator)).toBe(operatorBefore)
    expect(await stack.usdcBalance(payer.address)).toBe(100_000_000n)
    // The Golem's events route shows it.
    const listed = await app().request('/api/v1/golems/expired/events')
    expect(listed.status).toBe(200)
    expect(JSON.stringify(await listed.json())).toContain('PaymentReversed')
    // A later sweep does not ask again.
    const later = await advanceConfirmingCredits(
      { store: stack.store, runtimeCostPerHour: PRICING.runtimeCostPerHour, chainNow: async () => 0n, standing: standingOnChain() },
      'expired',
      0,
    )
    expect(later).toEqual({ checked: 0, applied: 0, reversed: 0 })
  }, 120_000)
})

function standingOnChain() {
  return chainCreditStanding({
    client: stack.devnet.publicClient,
    asset: stack.devnet.deployment.assets.usdc,
    depth: DEPTH,
    findSettlement: async () => null,
  })
}
