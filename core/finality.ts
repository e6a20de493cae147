// When a recorded send is final, and what to do with one that is not. Pure: the chain's answers about
// the recorded transaction come in (its receipt's block and the head, or whether the node still knows
// it, or whether its nonce was used), the verdict goes out; sendOnce applies it. A slot holding a
// recorded transaction is complete only once its receipt is `depth` blocks deep (the block that mined
// it counts as one): until then a reorg may take the block away, and the slot is re-checked on later
// ticks. A transaction whose receipt is gone is found again from the same signed bytes, never signed
// anew: a new signature at a new nonce could land next to the old one, which anyone may re-broadcast.
import { BardoError } from './errors.ts'

/**
 * Confirmation depth per chain id, in blocks.
 * - Base (8453) and Base Sepolia (84532): 30 blocks, about 60 s at Base's 2 s blocks, about one heartbeat.
 *   A reorg of Base's unsafe head (the sequencer's blocks before their batch is derived from L1) is rare
 *   and shallow; 30 is also the window the indexer follows reorgs in, so a send the custody calls final
 *   is one the indexer no longer expects to drop.
 * - anvil (31337): 1 block. A local chain mines at once and reorgs only when a test asks it to; the reorg
 *   suites configure a deeper one (TickDeps.confirmations) so a send is mined, not yet final, and reorged.
 */
export const CONFIRMATION_DEPTHS: Readonly<Record<number, number>> = { 8453: 30, 84532: 30, 31337: 1 }

/** The deepest confirmation depth accepted: deeper than any reorg a chain the custody runs on has seen. */
export const MAX_CONFIRMATION_DEPTH = 1_000

export class FinalityConfigError extends BardoError {
  constructor(field: string, rule: string) {
    super('FINALITY_CONFIG', `${field}: ${rule}`, { details: { field } })
  }
}

/** Confirmation depths configured per chain id (over CONFIRMATION_DEPTHS). */
export type ConfirmationDepths = Readonly<Record<number, number>>

/**
 * The confirmation depth of `chainId`: the configured one, else the default. A configured entry that is
 * not a chain id and a whole number of blocks from 1 to MAX_CONFIRMATION_DEPTH, or a chain with no depth
 * at all, is refused, naming the field and the rule.
 */
export function confirmationDepth(chainId: number, configured: ConfirmationDepths = {}): number {
  for (const [key, depth] of Object.entries(configured)) {
    const field = `confirmations[${key}]`
    if (!/^[1-9][0-9]*$/.test(key)) throw new FinalityConfigError(field, 'the key must be a chain id, a positive whole number')
    if (!Number.isInteger(depth) || depth < 1 || depth > MAX_CONFIRMATION_DEPTH)
      throw new FinalityConfigError(field, `must be a whole number of blocks from 1 to ${MAX_CONFIRMATION_DEPTH}, got ${String(depth)}`)
  }
  const depth = configured[chainId] ?? CONFIRMATION_DEPTHS[chainId]
  if (depth === undefined)
    throw new FinalityConfigError(`confirmations[${chainId}]`, `no confirmation depth is set for chain ${chainId}: configure one`)
  return depth
}

/** How deep a receipt's block is under the head: the mining block counts as one; a head behind it, zero. */
export function confirmationsOf(blockNumber: bigint, head: bigint): number {
  return head >= blockNumber ? Number(head - blockNumber + 1n) : 0
}

/** A receipt's standing at depth `depth`: final once that deep, confirming until then. */
export function receiptStanding(
  receipt: { blockNumber: bigint; head: bigint },
  depth: number,
): { kind: 'final'; confirmations: number } | { kind: 'confirming'; confirmations: number; needed: number } {
  const confirmations = confirmationsOf(receipt.blockNumber, receipt.head)
  return confirmations >= depth ? { kind: 'final', confirmations } : { kind: 'confirming', confirmations, needed: depth }
}

/** What the chain says about a recorded transaction. */
export type SendSighting =
  /** Its receipt, in the block `blockNumber`, with the chain's head at `head`. */
  | { kind: 'receipt'; blockNumber: bigint; head: bigint }
  /** No receipt, but the node knows the transaction by its hash (in its pool). */
  | { kind: 'known' }
  /** No receipt and unknown by hash: dropped, or never broadcast, or reorged out of the chain. */
  | { kind: 'gone'; nonceUsed: boolean; hasSignedTx: boolean }

export type SendVerdict =
  /** Deep enough: the slot completes with this receipt's outcome. */
  | { kind: 'final'; confirmations: number }
  /** Mined, not deep enough yet: the slot stays open and a later tick looks again. */
  | { kind: 'confirming'; confirmations: number; needed: number }
  /** In the pool: a later attempt looks again; re-broadcasting it adds nothing, and a new signature is never made. */
  | { kind: 'wait' }
  /** Gone with its nonce unused: broadcast the same signed bytes again (same hash, same nonce). */
  | { kind: 'rebroadcast' }
  /** Gone and another transaction took its nonce: it can never land, and nothing moved by it. */
  | { kind: 'nonceTaken' }
  /** Gone with no signed bytes recorded to send again: leave the slot for the chain to answer later. */
  | { kind: 'unknown' }

/** The rule: a receipt `depth` blocks deep is final; a missing one is waited for, re-sent as is, or given up only when its nonce is taken. */
export function judgeSend(sighting: SendSighting, depth: number): SendVerdict {
  switch (sighting.kind) {
    case 'receipt':
      return receiptStanding(sighting, depth)
    case 'known':
      return { kind: 'wait' }
    case 'gone':
      if (sighting.nonceUsed) return { kind: 'nonceTaken' }
      return sighting.hasSignedTx ? { kind: 'rebroadcast' } : { kind: 'unknown' }
  }
}
