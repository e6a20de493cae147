// Sends one transaction for one tick slot exactly once, following the store's slot protocol
// (docs/store.md "Tick slots"): simulate -> sign -> claim the slot and record the signed transaction in
// one conditional write -> broadcast -> receipt -> complete. Nothing is broadcast unless that write
// passed: a transaction signed by an attempt that lost it is dropped unsent. A retry that finds the slot
// `sent` reconciles from the chain (receipt, account nonce) and re-broadcasts the identical signed
// transaction instead of signing anew.
// Fees come from the heartbeat when it passed them (one read per heartbeat, not per transaction); the
// receipt comes with the send where the node allows it, else from the shared block watcher. A receipt
// completes the slot only once it is `confirmations` blocks deep (core/finality.ts): until then the slot
// stays `sent` and the outcome is `pending`, and a later attempt settles it from the chain, re-broadcasting
// the same signed bytes if a reorg took its block away. A caller whose own durable outcome stands for the
// slot's completion (the tick's runway redemption) leaves a confirmed slot `sent` (outcomeCompletes).
import {
  BaseError,
  ExecutionRevertedError,
  keccak256,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  type Address,
  type Hex,
  type TransactionReceipt,
  type TransactionSerializable,
} from 'viem'
import { feesPerGasOf, type TickFees } from '../../core/fees.ts'
import { judgeSend, type SendSighting } from '../../core/finality.ts'
import { slotSentAt, type SlotRef, type TickStore, type TickSlot } from '../../core/store/index.ts'
import { slotClaimRefusal } from '../../core/store/rules.ts'
import { waitForBlockReceipt } from './blockReceipts.ts'
import { broadcastSigned } from './broadcast.ts'
import { decodeChainError, type DecodedChainError } from './decodeChainError.ts'
import { withGasHeadroom } from './gasHeadroom.ts'
import type { TickChainClient } from './tickChainClient.ts'

export { classifyBroadcastError } from './broadcast.ts'

export type SlotSendOutcome =
  /**
   * `sentAt`: the store time (ms) the slot's transaction was recorded at, whichever attempt sent it.
   * `earlier`: null for this attempt's own transaction; for one an earlier attempt recorded and this one
   * settled (it lost the slot to it), that one's signed bytes (null for a slot recorded without them), from
   * which what it moved is read.
   */
  | { status: 'confirmed'; txHash: Hex; receipt: TransactionReceipt; sentAt: number; earlier: { rawTx: Hex | null } | null }
  | { status: 'failed'; txHash: Hex | null; reason: string; error?: DecodedChainError }
  | { status: 'refused'; reason: string; error?: DecodedChainError }
  | { status: 'busy'; reason: 'leased' | 'completed' }
  | { status: 'reconciled'; txHash: Hex | null; reason: string }
  /**
   * Recorded and sent, not final yet: mined fewer than `needed` blocks deep (`confirmations` > 0), or
   * waiting in the node's pool (0). The slot stays open; a later attempt settles it from the chain.
   */
  | { status: 'pending'; txHash: Hex; confirmations: number; needed: number }

export type SlotTransaction = {
  sender: Address
  to: Address
  data: Hex
  /** Signs the fully populated transaction through the only signer allowed to sign it. */
  sign(tx: TransactionSerializable): Promise<Hex>
  /**
   * Native value, given the most the transaction can cost in gas (its gas limit times maxFeePerGas):
   * a sweep sends what is left after its own gas. Zero or less sends nothing (the slot is released).
   */
  valueAfterGas?: (maxGasCost: bigint) => bigint
}

export type SendOnceParams = {
  store: TickStore
  client: TickChainClient
  chainId: number
  slot: SlotRef
  owner: string
  /** Store time (ms); chain time drives everything, so accelerated lives stay consistent. */
  now: number
  leaseMs: number
  /** The heartbeat's fee data: priced from it without a fee read of its own. Absent: read from the node. */
  fees?: TickFees
  build(): Promise<SlotTransaction>
  /**
   * How many blocks deep a receipt must be before the slot completes (core/finality.ts). Absent: 1, the
   * receipt itself is final.
   */
  confirmations?: number
  /** Test hook: runs right after the broadcast, before the receipt is recorded (crash injection). */
  afterBroadcast?: (txHash: Hex) => Promise<void> | void
  /**
   * The caller records this send's outcome durably itself (the Golem record's last tick), and a settled
   * outcome there stands for the slot's completion: a successful final receipt then leaves the slot
   * `sent`, one store write fewer. Whoever later finds it `sent` settles it from the chain, as it would
   * the slot of an attempt that crashed after its broadcast.
   */
  outcomeCompletes?: boolean
}

/** What settling a slot from the chain needs: a send's parameters without a transaction to build. */
export type SettleParams = Omit<SendOnceParams, 'build' | 'afterBroadcast' | 'outcomeCompletes'>

export async function sendOnce(p: SendOnceParams): Promise<SlotSendOutcome> {
  let t: SlotTransaction
  let gas: bigint
  try {
    t = await p.build()
    // Simulating first turns a caveat refusal into a decoded reason instead of a reverted transaction.
    gas = await p.client.estimateGas({ account: t.sender, to: t.to, data: t.data, ...(t.valueAfterGas ? { value: 1n } : {}) })
  } catch (error) {
    return unlessTaken(p, () => refuseOrThrow(error))
  }
  const sent = await withSenderLock(
    t.sender,
    async (): Promise<SlotSendOutcome | { taken: TickSlot } | { txHash: Hex; receipt?: TransactionReceipt }> => {
      let raw: Hex
      let nonce: number
      try {
        const [fees, pendingNonce] = await Promise.all([
          p.fees ? feesPerGasOf(p.fees) : p.client.estimateFeesPerGas(),
          p.client.getTransactionCount({ address: t.sender, blockTag: 'pending' }),
        ])
        nonce = pendingNonce
        const gasLimit = withGasHeadroom(gas)
        const value = t.valueAfterGas ? t.valueAfterGas(gasLimit * fees.maxFeePerGas) : 0n
        if (value < 0n || (t.valueAfterGas && value === 0n))
          return unlessTaken(p, async () => ({ status: 'refused', reason: 'value: nothing left after gas' }) as const)
        raw = await t.sign({
          type: 'eip1559',
          chainId: p.chainId,
          nonce,
          to: t.to,
          data: t.data,
          value,
          gas: gasLimit,
          maxFeePerGas: fees.maxFeePerGas,
          maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
        })
      } catch (error) {
        return unlessTaken(p, () => refuseOrThrow(error))
      }
      const txHash = keccak256(raw)
      // The claim and the signed bytes in one conditional write: nothing is broadcast unless it passed.
      const claim = await p.store.claimSlotWithTx({
        ...p.slot,
        owner: p.owner,
        now: p.now,
        leaseMs: p.leaseMs,
        txHash,
        nonce,
        rawTx: raw,
        sender: t.sender,
      })
      if (!claim.claimed) return claim.reason === 'sent' ? { taken: claim.slot } : { status: 'busy', reason: claim.reason }
      const broadcast = await broadcastSigned(p.client, raw)
      if (broadcast.kind === 'nonceTooLow') {
        // Another process signed with the same nonce first: settle from the chain what happened.
        const slot = await p.store.getSlot(p.slot)
        if (slot) return reconcile(p, slot, false)
      }
      return broadcast.kind === 'receipt' ? { txHash, receipt: broadcast.receipt } : { txHash }
    },
  )
  if ('taken' in sent) return reconcile(p, sent.taken)
  if ('status' in sent) return sent
  await p.afterBroadcast?.(sent.txHash)
  const receipt = sent.receipt ?? (await waitForBlockReceipt(p.client, { hash: sent.txHash, timeout: 60_000 }))
  return complete(p, { txHash: sent.txHash, sentAt: p.now, earlier: null }, receipt, p.outcomeCompletes)
}

/**
 * Settles a slot an earlier attempt left `sent` from the chain, without a transaction of its own: a tick
 * that finds one open never signs for it again.
 */
export function settleSlot(p: SettleParams, slot: TickSlot): Promise<SlotSendOutcome> {
  return reconcile(p, slot)
}

/**
 * An attempt that ends before its write (refused by the simulation, nothing left after gas, a failure
 * to price or sign) first looks at the slot: an earlier attempt may have sent for it, and that one is
 * settled from the chain (its redemption is why the simulation refuses now), or another holds it.
 */
async function unlessTaken(p: SendOnceParams, otherwise: () => Promise<SlotSendOutcome>): Promise<SlotSendOutcome> {
  const slot = await p.store.getSlot(p.slot)
  const refusal = slotClaimRefusal(slot, p.owner, p.now)
  if (refusal === null || !slot) return otherwise()
  return refusal === 'sent' ? reconcile(p, slot) : { status: 'busy', reason: refusal }
}

/**
 * A simulation the chain refused is a refusal, named when its revert data decodes; a revert with no data
 * (a call inside the owner's account that failed without a reason, such as a transfer of ETH it does not
 * hold) is a refusal too. Anything else (the RPC, the signer) is thrown.
 */
async function refuseOrThrow(error: unknown): Promise<SlotSendOutcome> {
  const decoded = decodeChainError(error)
  if (decoded) return { status: 'refused', reason: decoded.name, error: decoded }
  if (error instanceof BaseError && error.walk((e) => e instanceof ExecutionRevertedError))
    return { status: 'refused', reason: 'execution reverted without a reason' }
  throw error
}

/**
 * Transactions of one sender are priced, signed, recorded and broadcast one at a time in this process:
 * ticks that share a key (the operator's) would otherwise read the same pending nonce.
 */
const senderLocks = new Map<string, Promise<void>>()
async function withSenderLock<T>(sender: Address, fn: () => Promise<T>): Promise<T> {
  const key = sender.toLowerCase()
  const previous = senderLocks.get(key) ?? Promise.resolve()
  let unlock!: () => void
  const mine = previous.then(() => new Promise<void>((resolve) => (unlock = resolve)))
  senderLocks.set(key, mine)
  await previous
  try {
    return await fn()
  } finally {
    unlock()
    if (senderLocks.get(key) === mine) senderLocks.delete(key)
  }
}

/** The slot's transaction: its hash, when it was recorded, and, when an earlier attempt recorded it, its signed bytes. */
type RecordedTx = { txHash: Hex; sentAt: number; earlier: { rawTx: Hex | null } | null }

/**
 * A receipt judged final or not; a final one completes the slot, unless `outcomeCompletes` leaves a
 * success to the caller's own outcome.
 */
async function complete(
  p: SettleParams,
  recorded: RecordedTx,
  receipt: TransactionReceipt,
  outcomeCompletes = false,
): Promise<SlotSendOutcome> {
  const { txHash } = recorded
  const depth = p.confirmations ?? 1
  if (depth > 1) {
    // A receipt is final only `depth` blocks deep: a shallower one may still be reorged away.
    const head = (await p.client.getBlock({ blockTag: 'latest' })).number
    const verdict = judgeSend({ kind: 'receipt', blockNumber: receipt.blockNumber, head }, depth)
    if (verdict.kind === 'confirming') return { status: 'pending', txHash, confirmations: verdict.confirmations, needed: verdict.needed }
  }
  if (receipt.status === 'success') {
    if (!outcomeCompletes) await p.store.completeSlot({ ...p.slot, owner: p.owner, outcome: 'confirmed', txHash, now: p.now })
    return { status: 'confirmed', receipt, ...recorded }
  }
  await p.store.completeSlot({ ...p.slot, owner: p.owner, outcome: 'failed', txHash, now: p.now })
  return { status: 'failed', txHash, reason: 'reverted' }
}

/**
 * A slot with a recorded transaction: find out from the chain what happened to it (a receipt, the pool,
 * the sender's nonce) and act as core/finality.ts rules: complete once deep enough, wait while it is in
 * the pool, re-broadcast the same signed bytes when it is gone with its nonce unused (a crash before the
 * broadcast, a lost broadcast, a reorg that took its block), give up only when another transaction took
 * its nonce. Never a new signature.
 */
async function reconcile(p: SettleParams, slot: TickSlot, mayRebroadcast = true): Promise<SlotSendOutcome> {
  const txHash = slot.txHash
  if (!txHash) return { status: 'busy', reason: 'completed' }
  // Only "no such receipt" means not mined. Any other failure (a dropped or failed RPC request) must
  // not be read as "not mined": the nonce check below would then call a mined redemption reconciled.
  const recorded = { txHash, sentAt: slotSentAt(slot), earlier: { rawTx: slot.rawTx } }
  const receipt = await receiptOf(p.client, txHash)
  if (receipt) return complete(p, recorded, receipt)
  const known = await p.client.getTransaction({ hash: txHash }).then(
    () => true,
    (error: unknown) => {
      if (error instanceof TransactionNotFoundError) return false
      throw error
    },
  )
  const sighting: SendSighting = known
    ? { kind: 'known' }
    : { kind: 'gone', nonceUsed: await nonceUsed(p, slot), hasSignedTx: Boolean(slot.rawTx) }
  const verdict = judgeSend(sighting, p.confirmations ?? 1)
  // In the pool: it is waited for by a later attempt, not here. A transaction of a reorg that took several
  // of one sender's may wait there for an earlier nonce that only a later step of this tick re-broadcasts.
  if (verdict.kind === 'wait') return { status: 'pending', txHash, confirmations: 0, needed: p.confirmations ?? 1 }
  if (verdict.kind === 'nonceTaken') {
    // Another transaction took the nonce: ours can never be mined. Nothing was redeemed by it.
    await p.store.completeSlot({ ...p.slot, owner: p.owner, outcome: 'reconciled', txHash, now: p.now, detail: { why: 'nonce-used' } })
    return { status: 'reconciled', txHash, reason: 'nonce used by another transaction' }
  }
  if (verdict.kind !== 'rebroadcast' || !slot.rawTx || !mayRebroadcast) return { status: 'busy', reason: 'leased' }
  // Gone with its nonce unused: send the same bytes (one hash, one nonce: mined at most once).
  const again = await broadcastSigned(p.client, slot.rawTx, { sync: false })
  if (again.kind === 'nonceTooLow') return reconcile(p, slot, false)
  // One look for its receipt (a node that mines on arrival has it), no waiting: a re-broadcast behind a
  // missing earlier nonce would hold the tick until the timeout, and a later attempt settles it anyway.
  const landed = again.kind === 'receipt' ? again.receipt : await receiptOf(p.client, txHash)
  if (landed) return complete(p, recorded, landed)
  return { status: 'pending', txHash, confirmations: 0, needed: p.confirmations ?? 1 }
}

/** The receipt of `hash`, or null when the node has none (any other failure is thrown, never read as "not mined"). */
async function receiptOf(client: TickChainClient, hash: Hex): Promise<TransactionReceipt | null> {
  return client.getTransactionReceipt({ hash }).catch((error: unknown) => {
    if (error instanceof TransactionReceiptNotFoundError) return null
    throw error
  })
}

/** Whether the sender's mined nonce is past the recorded transaction's: another transaction took it. */
async function nonceUsed(p: SettleParams, slot: TickSlot): Promise<boolean> {
  if (!slot.txSender || slot.txNonce === null) return false
  const latest = await p.client.getTransactionCount({ address: slot.txSender, blockTag: 'latest' })
  return latest > slot.txNonce
}
