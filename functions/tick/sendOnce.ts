// Sends one transaction for one tick slot exactly once, following the store's slot protocol
// (docs/store.md "Tick slots"): claim -> reserve -> simulate -> sign -> record the signed transaction ->
// broadcast -> receipt -> complete. A retry that finds the slot `sent` reconciles from the chain
// (receipt, account nonce) and re-broadcasts the identical signed transaction instead of signing anew.
import { keccak256, type Address, type Hex, type PublicClient, type TransactionReceipt, type TransactionSerializable } from 'viem'
import type { SlotRef, Store, TickSlot } from '../../core/store/index.ts'
import { decodeChainError, type DecodedChainError } from '../shared/decodeChainError.ts'

export type SlotSendOutcome =
  | { status: 'confirmed'; txHash: Hex; receipt: TransactionReceipt }
  | { status: 'failed'; txHash: Hex | null; reason: string; error?: DecodedChainError }
  | { status: 'refused'; reason: string; error?: DecodedChainError }
  | { status: 'busy'; reason: 'leased' | 'completed' }
  | { status: 'reconciled'; txHash: Hex | null; reason: string }

export type SlotTransaction = {
  sender: Address
  to: Address
  data: Hex
  /** Signs the fully populated transaction through the only signer allowed to sign it. */
  sign(tx: TransactionSerializable): Promise<Hex>
}

export type SendOnceParams = {
  store: Store
  client: PublicClient
  chainId: number
  slot: SlotRef
  owner: string
  /** Store time (ms); chain time drives everything, so accelerated lives stay consistent. */
  now: number
  leaseMs: number
  build(): Promise<SlotTransaction>
  /** Reserve this much of the period budget before signing; released if the transaction fails. */
  reserve?: { amount: bigint; cap: bigint }
  /** Test hook: runs right after the broadcast, before the receipt (crash injection). */
  afterBroadcast?: (txHash: Hex) => Promise<void> | void
}

const reservationIdOf = (slot: SlotRef) => `${slot.period}:${slot.step}`

export async function sendOnce(p: SendOnceParams): Promise<SlotSendOutcome> {
  const claim = await p.store.claimSlot({ ...p.slot, owner: p.owner, now: p.now, leaseMs: p.leaseMs })
  if (!claim.claimed) {
    if (claim.reason === 'sent') return reconcile(p, claim.slot)
    return { status: 'busy', reason: claim.reason }
  }
  const reservationId = reservationIdOf(p.slot)
  if (p.reserve) {
    const r = await p.store.reserveBudget({ golemId: p.slot.golemId, period: p.slot.period, amount: p.reserve.amount, cap: p.reserve.cap, reservationId, now: p.now })
    if (!r.reserved) {
      await p.store.releaseSlot({ ...p.slot, owner: p.owner, now: p.now })
      return { status: 'refused', reason: `budget: ${r.reason}` }
    }
  }
  const release = async () => {
    if (p.reserve) await p.store.releaseReservation({ golemId: p.slot.golemId, period: p.slot.period, reservationId, now: p.now })
    await p.store.releaseSlot({ ...p.slot, owner: p.owner, now: p.now })
  }
  let raw: Hex
  let nonce: number
  try {
    const t = await p.build()
    // Simulating first turns a caveat refusal into a decoded reason instead of a reverted transaction.
    const gas = await p.client.estimateGas({ account: t.sender, to: t.to, data: t.data })
    const [fees, pendingNonce] = await Promise.all([
      p.client.estimateFeesPerGas(),
      p.client.getTransactionCount({ address: t.sender, blockTag: 'pending' }),
    ])
    nonce = pendingNonce
    raw = await t.sign({
      type: 'eip1559',
      chainId: p.chainId,
      nonce,
      to: t.to,
      data: t.data,
      value: 0n,
      gas: (gas * 13n) / 10n,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    })
  } catch (error) {
    await release()
    const decoded = decodeChainError(error)
    if (decoded) return { status: 'refused', reason: decoded.name, error: decoded }
    throw error
  }
  const txHash = keccak256(raw)
  const recorded = await p.store.recordSlotTx({ ...p.slot, owner: p.owner, txHash, nonce, now: p.now, rawTx: raw })
  if (!recorded.recorded) {
    // We lost the lease: another invocation owns the slot now; never broadcast.
    if (p.reserve) await p.store.releaseReservation({ golemId: p.slot.golemId, period: p.slot.period, reservationId, now: p.now })
    return { status: 'busy', reason: 'leased' }
  }
  await broadcast(p.client, raw)
  await p.afterBroadcast?.(txHash)
  return finish(p, txHash)
}

async function broadcast(client: PublicClient, raw: Hex): Promise<void> {
  try {
    await client.sendRawTransaction({ serializedTransaction: raw })
  } catch (error) {
    // The node already has it (a re-broadcast, or a lost response to our first send): fine.
    if (/already known|known transaction|nonce too low|already imported/i.test(String(error))) return
    throw error
  }
}

async function finish(p: SendOnceParams, txHash: Hex): Promise<SlotSendOutcome> {
  const receipt = await p.client.waitForTransactionReceipt({ hash: txHash, timeout: 60_000 })
  return complete(p, txHash, receipt)
}

async function complete(p: SendOnceParams, txHash: Hex, receipt: TransactionReceipt): Promise<SlotSendOutcome> {
  const reservationId = reservationIdOf(p.slot)
  if (receipt.status === 'success') {
    await p.store.completeSlot({ ...p.slot, owner: p.owner, outcome: 'confirmed', txHash, now: p.now })
    if (p.reserve) await p.store.commitReservation({ golemId: p.slot.golemId, period: p.slot.period, reservationId, now: p.now })
    return { status: 'confirmed', txHash, receipt }
  }
  await p.store.completeSlot({ ...p.slot, owner: p.owner, outcome: 'failed', txHash, now: p.now })
  if (p.reserve) await p.store.releaseReservation({ golemId: p.slot.golemId, period: p.slot.period, reservationId, now: p.now })
  return { status: 'failed', txHash, reason: 'reverted' }
}

/** A slot with a recorded transaction: find out from the chain what happened to it. */
async function reconcile(p: SendOnceParams, slot: TickSlot): Promise<SlotSendOutcome> {
  const txHash = slot.txHash
  if (!txHash) return { status: 'busy', reason: 'completed' }
  const receipt = await p.client.getTransactionReceipt({ hash: txHash }).catch(() => null)
  if (receipt) return complete(p, txHash, receipt)
  const sender = slot.rawTx ? await senderOf(p, slot) : null
  const latest = sender ? await p.client.getTransactionCount({ address: sender, blockTag: 'latest' }) : null
  if (latest !== null && slot.txNonce !== null && latest > slot.txNonce) {
    // Another transaction took the nonce: ours can never be mined. Nothing was redeemed by it.
    await p.store.completeSlot({ ...p.slot, owner: p.owner, outcome: 'reconciled', txHash, now: p.now, detail: { why: 'nonce-used' } })
    if (p.reserve) await p.store.releaseReservation({ golemId: p.slot.golemId, period: p.slot.period, reservationId: reservationIdOf(p.slot), now: p.now })
    return { status: 'reconciled', txHash, reason: 'nonce used by another transaction' }
  }
  if (!slot.rawTx) return { status: 'busy', reason: 'leased' }
  // Crashed between recording and broadcasting (or the broadcast was lost): send the same bytes.
  await broadcast(p.client, slot.rawTx)
  return finish(p, txHash)
}

async function senderOf(p: SendOnceParams, slot: TickSlot): Promise<Address | null> {
  const { recoverTransactionAddress } = await import('viem')
  try {
    return await recoverTransactionAddress({ serializedTransaction: slot.rawTx as never })
  } catch {
    return null
  }
}
