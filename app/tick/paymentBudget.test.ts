// The signer's period bound read from the store: a GolemSigner whose ledger is the stored budget of
// its payments refuses what would pass the bound with what other processes already authorized, and a
// period it did not read.
import type { Address, Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { InMemoryStore } from '../../adapters/store/index.ts'
import { SignerPolicyError } from '../../core/custody/errors.ts'
import { GolemSigner } from '../../core/custody/golemSigner.ts'
import { MemoryKey } from '../../core/custody/memoryKey.ts'
import { paymentPeriod, type PaymentPolicy } from '../../core/custody/paymentPolicy.ts'
import { policy } from '../../test/support/custody/fixtures.ts'
import { authorizedBesides, paymentBudgetId, StoredPaymentLedger } from './paymentBudget.ts'

const PLATFORM: Address = '0x0000000000000000000000000000000000000f1a'
const NOW = 1_800_000_000n
const payments: PaymentPolicy = {
  asset: '0x000000000000000000000000000000000000c0de',
  assetName: 'USD Coin',
  assetVersion: '2',
  payees: [PLATFORM],
  maxPerPayment: 5_000_000n,
  maxPerPeriod: 8_000_000n,
  periodSeconds: 86_400n,
  maxValiditySeconds: 3_600n,
}
const period = paymentPeriod(payments, NOW)
const nonce: Hex = `0x${'01'.repeat(32)}`
const pay = (signer: GolemSigner, value: bigint) =>
  signer.signPaymentAuthorization({ to: PLATFORM, value, validAfter: 0n, validBefore: NOW + 600n, nonce })

async function signerOverStore(store: InMemoryStore, reservationId?: string) {
  const budget = await store.getBudget(paymentBudgetId('g1'), period)
  return new GolemSigner({
    signer: MemoryKey.generate().toRawSigner(),
    policy: policy({ payments }),
    paymentLedger: new StoredPaymentLedger(payments, period, authorizedBesides(budget, reservationId)),
    now: () => NOW,
  })
}

describe('the stored payment ledger', () => {
  it('counts what the store holds as spent and reserved this period, less the payment being signed', async () => {
    const store = new InMemoryStore()
    const reserve = (amount: bigint, reservationId: string) =>
      store.reserveBudget({ golemId: paymentBudgetId('g1'), period, amount, cap: payments.maxPerPeriod, reservationId, now: 1 })
    await reserve(4_000_000n, 'a')
    await store.commitReservation({ golemId: paymentBudgetId('g1'), period, reservationId: 'a', now: 2 })
    await reserve(3_000_000n, 'b')
    // A new process: 4 spent and 3 reserved elsewhere; 2 more would pass the bound of 8.
    const err = await pay(await signerOverStore(store), 2_000_000n).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(SignerPolicyError)
    expect((err as Error).message).toMatch(/with 7000000 already authorized this period exceeds the per-period bound 8000000/)
    // The reservation being signed is not counted against itself.
    await expect(pay(await signerOverStore(store, 'b'), 3_000_000n)).resolves.toMatch(/^0x/)
    expect(authorizedBesides(null)).toBe(0n)
  })

  it('answers the bound for a period it did not read, so the signer refuses rather than signs unread', () => {
    const ledger = new StoredPaymentLedger(payments, period, 1n)
    expect(ledger.spent(period)).toBe(1n)
    expect(ledger.spent(period + 1n)).toBe(payments.maxPerPeriod)
  })
})
