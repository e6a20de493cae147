// The PaymentLedger contract in one process's memory: the reference the contract test holds the
// durable ledger to, and the ledger of suites that need no store.
import type { Hex } from 'viem'
import type { Credit } from '../../../core/x402/pricing.ts'
import {
  boundField,
  type ClaimOutcome,
  type PaymentClaim,
  type PaymentLedger,
  type PaymentRef,
  type SettledPayment,
} from '../../../core/x402/ledger.ts'

export type LedgerEntry =
  | { status: 'pending'; ref: PaymentRef; claim: PaymentClaim; leaseUntil: number }
  | { status: 'settled'; ref: PaymentRef; claim: PaymentClaim | null; txHash: Hex; credit: Credit; settledAt: number }

const keyOf = (ref: PaymentRef) => `${ref.payer.toLowerCase()}:${ref.nonce.toLowerCase()}`

/**
 * One process's ledger. Each method does its read-check-write without an `await` in between, so
 * Node's single thread makes it atomic.
 */
export class InMemoryPaymentLedger implements PaymentLedger {
  readonly #entries = new Map<string, LedgerEntry>()

  async claim(ref: PaymentRef, claim: PaymentClaim): Promise<ClaimOutcome> {
    const key = keyOf(ref)
    const existing = this.#entries.get(key)
    const bound = existing === undefined ? null : boundField(existing.status === 'settled' ? existing.credit : existing.claim, claim)
    if (bound !== null) return { boundTo: bound }
    if (existing?.status === 'settled') return 'duplicate'
    if (existing?.status === 'pending' && existing.leaseUntil > claim.now && existing.claim.owner !== claim.owner) {
      return 'pending-elsewhere'
    }
    this.#entries.set(key, { status: 'pending', ref, claim, leaseUntil: claim.now + claim.leaseMs })
    return 'claimed'
  }

  async markSettled(ref: PaymentRef, settled: SettledPayment): Promise<'settled' | 'duplicate'> {
    const key = keyOf(ref)
    const existing = this.#entries.get(key)
    if (existing?.status === 'settled') return 'duplicate'
    // Our claim lapsed and another request holds the payment now: it will find the transfer on-chain
    // and record it (the store behaves the same way), so this request must not.
    if (existing?.status === 'pending' && existing.claim.owner !== settled.owner && existing.leaseUntil > settled.now) return 'duplicate'
    this.#entries.set(key, {
      status: 'settled',
      ref,
      claim: existing?.claim ?? null,
      txHash: settled.txHash,
      credit: settled.credit,
      settledAt: settled.now,
    })
    return 'settled'
  }

  async release(ref: PaymentRef, owner: string): Promise<void> {
    const key = keyOf(ref)
    const existing = this.#entries.get(key)
    if (existing?.status === 'pending' && existing.claim.owner === owner) this.#entries.delete(key)
  }

  get(ref: PaymentRef): LedgerEntry | undefined {
    return this.#entries.get(keyOf(ref))
  }

  entries(): LedgerEntry[] {
    return [...this.#entries.values()]
  }

  settled(): Extract<LedgerEntry, { status: 'settled' }>[] {
    return this.entries().filter((e): e is Extract<LedgerEntry, { status: 'settled' }> => e.status === 'settled')
  }
}
