// How sendOnce reads a node's refusal of a raw transaction, checked against anvil's real answers: the
// same bytes again are "already known" (sent), and another transaction at a nonce that is taken, pending
// (another process signing for the operator key) or mined, means ours may never be mined; and how a
// retry reconciles a recorded transaction whose nonce went to another, and two of one sender's that a
// reorg took out of the chain, settled out of nonce order; and a caller whose own outcome completes the
// slot (outcomeCompletes) finding it left `sent`.
import { createWalletClient, http, keccak256, parseEther, type Hex, type TransactionSerializable } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { withReceiptPolling } from './receipts.ts'
import { startAnvil, type Anvil } from '../../local/anvil.ts'
import { devnetClients } from '../../local/devnet.ts'
import { InMemoryStore } from '../store/memoryStore.ts'
import type { SlotRef } from '../../core/store/index.ts'
import { classifyBroadcastError, sendOnce, type SlotTransaction } from './sendOnce.ts'

let anvil: Anvil
beforeAll(async () => {
  anvil = await startAnvil()
})
afterAll(async () => anvil?.stop())

/** The chain's clients and a key the deployer funded with 1 ETH: the key's 32 bytes are `byte` repeated. */
async function fundedKey(byte: string) {
  const { publicClient, deployer } = devnetClients(anvil.rpcUrl)
  const client = withReceiptPolling(publicClient)
  const key = privateKeyToAccount(`0x${byte.repeat(32)}` as Hex)
  await client.waitForTransactionReceipt({ hash: await deployer.sendTransaction({ to: key.address, value: parseEther('1') }) })
  return { client, deployer, key }
}

/** Attempts at `slot`, each by its own invocation: a transaction of the funded key to the deployer. */
function attemptsAt(
  funded: Awaited<ReturnType<typeof fundedKey>>,
  store: InMemoryStore,
  slot: SlotRef,
  o: { outcomeCompletes?: boolean; now?: () => number } = {},
) {
  return (owner: string, tx: Omit<SlotTransaction, 'sender' | 'to'>, afterBroadcast?: () => never) =>
    sendOnce({
      store,
      client: funded.client,
      chainId: anvil.chainId,
      slot,
      owner,
      now: o.now?.() ?? Date.now(),
      leaseMs: 1_000,
      build: async () => ({ sender: funded.key.address, to: funded.deployer.account.address, ...tx }),
      ...(afterBroadcast ? { afterBroadcast } : {}),
      ...(o.outcomeCompletes ? { outcomeCompletes: true } : {}),
    })
}

async function refusal(send: () => Promise<unknown>): Promise<unknown> {
  try {
    await send()
  } catch (error) {
    return error
  }
  throw new Error('the node accepted the transaction')
}

describe('classifyBroadcastError', () => {
  it('reads the refusals of anvil: the same bytes are sent, another transaction at a pending or mined nonce is nonceTooLow', async () => {
    const { client, deployer, key } = await fundedKey('42')
    const wallet = createWalletClient({ account: key, chain: client.chain, transport: http(anvil.rpcUrl) })
    const fees = { maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n }
    const sign = (data: Hex) =>
      wallet.signTransaction({ to: deployer.account.address, data, nonce: 0, gas: 50_000n, ...fees, chain: client.chain })
    const [ours, theirs] = await Promise.all([sign('0x01'), sign('0x02')])

    await client.request({ method: 'evm_setAutomine' as never, params: [false] as never })
    await client.sendRawTransaction({ serializedTransaction: ours })
    expect(classifyBroadcastError(await refusal(() => client.sendRawTransaction({ serializedTransaction: ours })))).toBe('sent')
    const pending = await refusal(() => client.sendRawTransaction({ serializedTransaction: theirs }))
    expect(String(pending)).toMatch(/replacement transaction underpriced/i)
    expect(classifyBroadcastError(pending)).toBe('nonceTooLow')

    await client.request({ method: 'evm_mine' as never, params: [] as never })
    await client.request({ method: 'evm_setAutomine' as never, params: [true] as never })
    const mined = await refusal(() => client.sendRawTransaction({ serializedTransaction: theirs }))
    expect(classifyBroadcastError(mined)).toBe('nonceTooLow')
    expect(classifyBroadcastError(new Error('insufficient funds for gas * price + value'))).toBe('unknown')
  })
})

describe('sendOnce reconciling a recorded transaction', () => {
  it("completes the slot as reconciled when another transaction took its nonce, reading the sender from the slot's record", async () => {
    const { client, deployer, key } = await fundedKey('44')
    const wallet = createWalletClient({ account: key, chain: client.chain, transport: http(anvil.rpcUrl) })
    const tx = { to: deployer.account.address, nonce: 0, gas: 50_000n, maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n }
    const [ours, theirs] = await Promise.all([
      wallet.signTransaction({ ...tx, data: '0x01', chain: client.chain }),
      wallet.signTransaction({ ...tx, data: '0x02', chain: client.chain }),
    ])
    // A tick recorded `ours` and died before broadcasting it; then the key's nonce 0 went to `theirs`.
    const store = new InMemoryStore()
    const slot = { golemId: 'g-reconcile', period: 0n, step: 'runway' }
    const now = Date.now()
    await store.claimSlot({ ...slot, owner: 'inv-a', now, leaseMs: 1_000 })
    await store.recordSlotTx({ ...slot, owner: 'inv-a', txHash: keccak256(ours), nonce: 0, rawTx: ours, sender: key.address, now })
    await client.waitForTransactionReceipt({ hash: await client.sendRawTransaction({ serializedTransaction: theirs }) })

    const outcome = await sendOnce({
      store,
      client,
      chainId: anvil.chainId,
      slot,
      owner: 'inv-b',
      now: now + 60_000,
      leaseMs: 1_000,
      build: () => Promise.reject(new Error('a recorded slot is reconciled, never built again')),
    })
    expect(outcome).toEqual({ status: 'reconciled', txHash: keccak256(ours), reason: 'nonce used by another transaction' })
    expect(await store.getSlot(slot)).toMatchObject({ status: 'reconciled', detail: { why: 'nonce-used' } })
  })
})

describe('sendOnce settling transactions a reorg took away', () => {
  it('re-broadcasts each as signed and never waits on one held behind a missing nonce: pending, then final 3 deep', async () => {
    const { client, deployer, key } = await fundedKey('55')
    const rpc = (method: string, params: unknown[] = []) => client.request({ method: method as never, params: params as never })
    const wallet = createWalletClient({ account: key, chain: client.chain, transport: http(anvil.rpcUrl) })
    const store = new InMemoryStore()
    const now = Date.now()
    const tx = { to: deployer.account.address, gas: 50_000n, maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n }
    const slots = [0, 1].map((n) => ({ golemId: 'g-reorg', period: 0n, step: `step-${n}` }))
    const snapshot = await rpc('evm_snapshot')
    const hashes: Hex[] = []
    for (const [n, slot] of slots.entries()) {
      const raw = await wallet.signTransaction({ ...tx, nonce: n, value: 1n, chain: client.chain })
      await store.claimSlot({ ...slot, owner: 'inv-a', now, leaseMs: 1_000 })
      await store.recordSlotTx({ ...slot, owner: 'inv-a', txHash: keccak256(raw), nonce: n, rawTx: raw, sender: key.address, now })
      hashes.push(await client.sendRawTransaction({ serializedTransaction: raw }))
    }
    await client.waitForTransactionReceipt({ hash: hashes[1]! })
    await rpc('evm_revert', [snapshot])
    expect(await client.getTransactionCount({ address: key.address, blockTag: 'latest' })).toBe(0)

    const settle = (n: number) =>
      sendOnce({
        store,
        client,
        chainId: anvil.chainId,
        slot: slots[n]!,
        owner: `inv-${n}`,
        now: now + 60_000,
        leaseMs: 1_000,
        confirmations: 3,
        build: () => Promise.reject(new Error('a recorded slot is settled from the chain, never built again')),
      })
    // The later nonce first: re-broadcast, held in the pool behind nonce 0, answered at once as pending.
    expect(await settle(1)).toEqual({ status: 'pending', txHash: hashes[1], confirmations: 0, needed: 3 })
    // Known to the node now: waited for, not sent again.
    expect(await settle(1)).toEqual({ status: 'pending', txHash: hashes[1], confirmations: 0, needed: 3 })
    // Nonce 0 re-broadcast and mined, nonce 1 behind it: pending either way. The re-broadcast takes one
    // look for its receipt, which a node that mines on arrival usually has (1 or 2 blocks deep) and anvil
    // under load may not yet answer (0): a later attempt settles it.
    const first = await settle(0)
    expect(first).toMatchObject({ status: 'pending', txHash: hashes[0], needed: 3 })
    expect([0, 1, 2]).toContain((first as { confirmations: number }).confirmations)
    // Once both are mined: one or two blocks deep (the same block or the next), short of three.
    await client.waitForTransactionReceipt({ hash: hashes[0]! })
    await client.waitForTransactionReceipt({ hash: hashes[1]! })
    const mined = await settle(0)
    expect(mined).toMatchObject({ status: 'pending', txHash: hashes[0], needed: 3 })
    expect([1, 2]).toContain((mined as { confirmations: number }).confirmations)
    expect((await settle(1)).status).toBe('pending')
    await rpc('anvil_mine', ['0x2'])
    for (const n of [0, 1]) {
      expect(await settle(n)).toMatchObject({ status: 'confirmed', txHash: hashes[n] })
      expect(await store.getSlot(slots[n]!)).toMatchObject({ status: 'confirmed', claims: 1, txHash: hashes[n] })
    }
    // Two transactions of the key, each mined once: its nonce is 2.
    expect(await client.getTransactionCount({ address: key.address, blockTag: 'latest' })).toBe(2)
  })
})

describe('sendOnce claiming the slot with its signed transaction', () => {
  it('an attempt that loses the write to one that sent broadcasts nothing: it settles the first, whose transaction alone is mined', async () => {
    const funded = await fundedKey('66')
    const { client, key } = funded
    const store = new InMemoryStore()
    const slot = { golemId: 'g-race', period: 0n, step: 'runway' }
    const signed: Hex[] = []
    const send = attemptsAt(funded, store, slot)
    const transfer = {
      data: '0x01' as const,
      sign: async (tx: TransactionSerializable) => {
        const raw = await funded.key.signTransaction(tx)
        signed.push(raw)
        return raw
      },
    }
    const attempt = (owner: string, afterBroadcast?: () => never) => send(owner, transfer, afterBroadcast)
    // The first attempt dies right after its broadcast: its slot stays `sent`.
    await expect(
      attempt('inv-a', () => {
        throw new Error('crashed after the broadcast')
      }),
    ).rejects.toThrow('crashed after the broadcast')
    const first = keccak256(signed[0]!)
    expect(await store.getSlot(slot)).toMatchObject({ status: 'sent', owner: 'inv-a', txHash: first, claims: 1 })

    // The second signs (its simulation passes: a plain transfer), loses the write, and settles the first,
    // answering with the first's signed bytes (what it moved is read from those, not from its own).
    expect(await attempt('inv-b')).toMatchObject({ status: 'confirmed', txHash: first, earlier: { rawTx: signed[0] } })
    expect(signed).toHaveLength(2)
    expect(keccak256(signed[1]!)).not.toBe(first)
    expect(await store.getSlot(slot)).toMatchObject({ status: 'confirmed', owner: 'inv-a', txHash: first, claims: 1 })
    // A third finds the slot completed: busy, nothing sent.
    expect(await attempt('inv-c')).toEqual({ status: 'busy', reason: 'completed' })
    expect(await client.getTransactionCount({ address: key.address, blockTag: 'latest' })).toBe(1)
  })

  it('a refusal before the write leaves no slot behind; a sweep refused after its slot was sent settles that one instead', async () => {
    const funded = await fundedKey('77')
    const { client, key } = funded
    const store = new InMemoryStore()
    const slot = { golemId: 'g-sweep', period: 0n, step: 'return-eth' }
    const send = attemptsAt(funded, store, slot)
    const sweep = (owner: string, left: (maxGasCost: bigint) => bigint) =>
      send(owner, { data: '0x', valueAfterGas: left, sign: (tx) => funded.key.signTransaction(tx) })
    expect(await sweep('inv-a', () => 0n)).toEqual({ status: 'refused', reason: 'value: nothing left after gas' })
    expect(await store.getSlot(slot)).toBeNull()
    const swept = await sweep('inv-b', () => parseEther('0.5'))
    expect(swept).toMatchObject({ status: 'confirmed' })
    // Nothing is left to sweep now, but the slot says it was swept: the answer is the slot's, not a refusal.
    expect(await sweep('inv-c', () => 0n)).toEqual({ status: 'busy', reason: 'completed' })
    expect(await client.getTransactionCount({ address: key.address, blockTag: 'latest' })).toBe(1)
  })

  it("with outcomeCompletes a success leaves the slot `sent` for the caller's outcome; a later attempt settles it, at the first one's time", async () => {
    const funded = await fundedKey('88')
    const store = new InMemoryStore()
    const slot = { golemId: 'g-outcome', period: 0n, step: 'runway' }
    let now = 1_000_000
    const send = attemptsAt(funded, store, slot, { outcomeCompletes: true, now: () => now })
    const transfer = { data: '0x02' as const, sign: (tx: TransactionSerializable) => funded.key.signTransaction(tx) }
    const first = await send('inv-a', transfer)
    expect(first).toMatchObject({ status: 'confirmed', sentAt: 1_000_000, earlier: null })
    const txHash = first.status === 'confirmed' ? first.txHash : null
    expect(await store.getSlot(slot)).toMatchObject({ status: 'sent', owner: 'inv-a', txHash, claims: 1 })
    // A later attempt (its own time) loses the write and settles the slot: the first one's transaction and time.
    now = 2_000_000
    const settled = await send('inv-b', transfer)
    expect(settled).toMatchObject({ status: 'confirmed', txHash, sentAt: 1_000_000 })
    expect(settled.status === 'confirmed' && settled.earlier?.rawTx && keccak256(settled.earlier.rawTx)).toBe(txHash)
    expect(await store.getSlot(slot)).toMatchObject({ status: 'confirmed', txHash, claims: 1 })
    expect(await funded.client.getTransactionCount({ address: funded.key.address, blockTag: 'latest' })).toBe(1)
  })
})
