// The PaymentLedger contract, run against both implementations: the in-memory reference and the
// adapter over core/store (here its InMemoryStore; DynamoStore shares its rules).
import { describe, expect, test } from 'vitest'
import { InMemoryStore } from '../../adapters/store/memoryStore.ts'
import type { PaymentLedger } from './ledger.ts'
import { InMemoryPaymentLedger } from '../../test/support/x402/memoryLedger.ts'
import { paymentLedgerFromStore } from './storeLedger.ts'

const ref = { payer: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC', nonce: `0x${'ab'.repeat(32)}` } as const
const claim = (owner: string, now: number) => ({ golemId: 'golem-1', kind: 'feed' as const, amount: 5n, owner, now, leaseMs: 1000 })
const settled = (owner: string, now: number) => ({
  txHash: `0x${'01'.repeat(32)}` as const,
  credit: { kind: 'feed' as const, golemId: 'golem-1', amount: 5n },
  owner,
  now,
})

const ledgers: [string, () => PaymentLedger][] = [
  ['InMemoryPaymentLedger', () => new InMemoryPaymentLedger()],
  ['paymentLedgerFromStore(InMemoryStore)', () => paymentLedgerFromStore(new InMemoryStore())],
]

describe.each(ledgers)('%s', (_, make) => {
  test('one claim wins; others see pending-elsewhere until the lease lapses', async () => {
    const ledger = make()
    expect(await ledger.claim(ref, claim('owner-a', 0))).toBe('claimed')
    expect(await ledger.claim(ref, claim('owner-b', 500))).toBe('pending-elsewhere')
    // The same payment with the payer and nonce spelled in other cases.
    const shouted = { payer: ref.payer.toLowerCase() as `0x${string}`, nonce: `0x${'AB'.repeat(32)}` as `0x${string}` }
    expect(await ledger.claim(shouted, claim('owner-c', 600))).toBe('pending-elsewhere')
    await ledger.release(ref, 'owner-b') // not b's claim: no effect
    expect(await ledger.claim(ref, claim('owner-b', 900))).toBe('pending-elsewhere')
    expect(await ledger.claim(ref, claim('owner-b', 1000))).toBe('claimed') // a's lease lapsed
  })

  test('a released claim can be claimed again at once', async () => {
    const ledger = make()
    expect(await ledger.claim(ref, claim('owner-a', 0))).toBe('claimed')
    await ledger.release(ref, 'owner-a')
    expect(await ledger.claim(ref, claim('owner-b', 1))).toBe('claimed')
  })

  test('settled once: later claims are duplicates, a second settle is refused, release does nothing', async () => {
    const ledger = make()
    expect(await ledger.claim(ref, claim('owner-a', 0))).toBe('claimed')
    expect(await ledger.markSettled(ref, settled('owner-a', 10))).toBe('settled')
    expect(await ledger.markSettled(ref, settled('owner-a', 11))).toBe('duplicate')
    await ledger.release(ref, 'owner-a')
    expect(await ledger.claim(ref, claim('owner-b', 10_000_000))).toBe('duplicate')
  })

  test('a settle whose claim was taken over by a live claim is refused (the new holder records it)', async () => {
    const ledger = make()
    expect(await ledger.claim(ref, claim('owner-a', 0))).toBe('claimed')
    expect(await ledger.claim(ref, claim('owner-b', 2000))).toBe('claimed')
    expect(await ledger.markSettled(ref, settled('owner-a', 2100))).toBe('duplicate')
    expect(await ledger.markSettled(ref, settled('owner-b', 2200))).toBe('settled')
  })

  test('a claim never rebinds: another Golem, kind or amount is refused, before and after the lease lapses and once settled', async () => {
    const ledger = make()
    expect(await ledger.claim(ref, claim('owner-a', 0))).toBe('claimed')
    for (const now of [500, 5000]) {
      expect(await ledger.claim(ref, { ...claim('owner-b', now), golemId: 'golem-2' })).toEqual({ boundTo: 'golemId' })
      expect(await ledger.claim(ref, { ...claim('owner-b', now), kind: 'extend' })).toEqual({ boundTo: 'kind' })
      expect(await ledger.claim(ref, { ...claim('owner-b', now), amount: 6n })).toEqual({ boundTo: 'amount' })
    }
    // The first terms still take the lapsed claim over.
    expect(await ledger.claim(ref, claim('owner-c', 5000))).toBe('claimed')
    expect(await ledger.markSettled(ref, settled('owner-c', 5001))).toBe('settled')
    expect(await ledger.claim(ref, { ...claim('owner-d', 9000), golemId: 'golem-2' })).toEqual({ boundTo: 'golemId' })
    expect(await ledger.claim(ref, claim('owner-d', 9000))).toBe('duplicate')
  })

  test('concurrent claims: exactly one wins', async () => {
    const ledger = make()
    const outcomes = await Promise.all(Array.from({ length: 25 }, (_, i) => ledger.claim(ref, claim(`owner-${i}`, 0))))
    expect(outcomes.filter((o) => o === 'claimed')).toHaveLength(1)
    expect(outcomes.filter((o) => o === 'pending-elsewhere')).toHaveLength(24)
  })
})
