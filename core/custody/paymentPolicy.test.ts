// The Golem's one payment path: an EIP-3009 TransferWithAuthorization (the x402 exact scheme's typed
// data) of the configured asset, to a configured payee, within the per-payment and per-period bounds.
// Each refusal names its rule, and a refused request changes nothing (the period's total stays).
import { authorizationTypes as x402AuthorizationTypes } from '@x402/evm'
import { recoverTypedDataAddress, type Address, type Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { SignerPolicyError } from './errors.ts'
import { GolemSigner } from './golemSigner.ts'
import { MemoryKey } from './memoryKey.ts'
import { MemoryPaymentLedger, paymentTypedData, type PaymentAuthorization, type PaymentPolicy } from './paymentPolicy.ts'
import { CHAIN_ID, RANDOM_TARGET, policy } from '../../test/support/custody/fixtures.ts'

const USDC: Address = '0x000000000000000000000000000000000000c0de'
const PLATFORM: Address = '0x0000000000000000000000000000000000000f1a'
const NOW = 1_800_000_000n
const payments: PaymentPolicy = {
  asset: USDC,
  assetName: 'USD Coin',
  assetVersion: '2',
  payees: [PLATFORM],
  maxPerPayment: 5_000_000n,
  maxPerPeriod: 8_000_000n,
  periodSeconds: 86_400n,
  maxValiditySeconds: 3_600n,
}
const nonce = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}`
const auth = (o: Partial<PaymentAuthorization> = {}): PaymentAuthorization => ({
  to: PLATFORM,
  value: 1_000_000n,
  validAfter: NOW - 60n,
  validBefore: NOW + 600n,
  nonce: nonce(1),
  ...o,
})

const setup = (p: Partial<PaymentPolicy> | null = {}) => {
  const key = MemoryKey.generate()
  const ledger = new MemoryPaymentLedger()
  let now = NOW
  const golem = new GolemSigner({
    signer: key.toRawSigner(),
    policy: policy(p === null ? {} : { payments: { ...payments, ...p } }),
    paymentLedger: ledger,
    now: () => now,
  })
  return { golem, ledger, setNow: (t: bigint) => (now = t) }
}
const rule = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(SignerPolicyError)
  return (err as SignerPolicyError).rule
}

describe('GolemSigner.signPaymentAuthorization', () => {
  it('signs an EIP-3009 authorization that recovers to the key, and counts it in the period', async () => {
    const { golem, ledger } = setup()
    const a = auth()
    const signature = await golem.signPaymentAuthorization(a)
    const td = paymentTypedData(payments, CHAIN_ID, golem.address, a)
    expect(td.types).toEqual(x402AuthorizationTypes)
    expect(await recoverTypedDataAddress({ ...td, signature })).toBe(golem.address)
    expect(ledger.spent(NOW / 86_400n)).toBe(1_000_000n)
  })

  it('accepts the same typed data through the viem account (the x402 client signs there)', async () => {
    const { golem } = setup()
    const td = paymentTypedData(payments, CHAIN_ID, golem.address, auth())
    const signature = await golem.account.signTypedData(td)
    expect(await recoverTypedDataAddress({ ...td, signature })).toBe(golem.address)
  })

  it('refuses a payee not configured, anything over the per-payment bound, and no policy at all', async () => {
    const { golem, ledger } = setup()
    expect(await rule(golem.signPaymentAuthorization(auth({ to: RANDOM_TARGET })))).toBe('payee-allowed')
    expect(await rule(golem.signPaymentAuthorization(auth({ value: 5_000_001n })))).toBe('payment-bound')
    expect(await rule(golem.signPaymentAuthorization(auth({ value: 0n })))).toBe('payment-amount')
    expect(ledger.spent(NOW / 86_400n)).toBe(0n)
    expect(await rule(setup(null).golem.signPaymentAuthorization(auth()))).toBe('payments-configured')
  })

  it('refuses what would take the period over its bound; the next period starts again', async () => {
    const { golem, ledger, setNow } = setup()
    await golem.signPaymentAuthorization(auth({ value: 5_000_000n, nonce: nonce(1) }))
    expect(await rule(golem.signPaymentAuthorization(auth({ value: 3_000_001n, nonce: nonce(2) })))).toBe('payment-period-bound')
    await golem.signPaymentAuthorization(auth({ value: 3_000_000n, nonce: nonce(3) }))
    expect(ledger.spent(NOW / 86_400n)).toBe(8_000_000n)
    expect(await rule(golem.signPaymentAuthorization(auth({ value: 1n, nonce: nonce(4) })))).toBe('payment-period-bound')
    const tomorrow = NOW + 86_400n
    setNow(tomorrow)
    await golem.signPaymentAuthorization(
      auth({ value: 5_000_000n, validAfter: tomorrow - 60n, validBefore: tomorrow + 600n, nonce: nonce(5) }),
    )
    expect(ledger.spent(tomorrow / 86_400n)).toBe(5_000_000n)
  })

  it('refuses an expired or far-future window and a malformed nonce', async () => {
    const { golem } = setup()
    expect(await rule(golem.signPaymentAuthorization(auth({ validBefore: NOW })))).toBe('payment-window')
    expect(await rule(golem.signPaymentAuthorization(auth({ validAfter: NOW + 700n, validBefore: NOW + 600n })))).toBe('payment-window')
    expect(await rule(golem.signPaymentAuthorization(auth({ validBefore: NOW + 3_601n })))).toBe('payment-window')
    expect(await rule(golem.signPaymentAuthorization(auth({ nonce: '0x01' })))).toBe('payment-nonce')
  })

  it('refuses typed data on another asset, chain or domain, from another account, or of another shape', async () => {
    const { golem } = setup()
    const td = paymentTypedData(payments, CHAIN_ID, golem.address, auth())
    const sign = (x: unknown) => golem.account.signTypedData(x as never)
    expect(await rule(sign({ ...td, domain: { ...td.domain, verifyingContract: RANDOM_TARGET } }))).toBe('payment-asset')
    expect(await rule(sign({ ...td, domain: { ...td.domain, chainId: 1 } }))).toBe('payment-asset')
    expect(await rule(sign({ ...td, domain: { ...td.domain, name: 'Other' } }))).toBe('payment-asset')
    expect(await rule(sign({ ...td, message: { ...td.message, from: RANDOM_TARGET } }))).toBe('payment-from-self')
    const extra = {
      ...td,
      types: { ...td.types, TransferWithAuthorization: [...td.types.TransferWithAuthorization, { name: 'extra', type: 'uint256' }] },
    }
    expect(await rule(sign(extra))).toBe('payment-is-eip3009')
    // An ERC-20 Permit (an allowance to anyone) is neither a payment nor a delegation.
    expect(await rule(sign({ ...td, primaryType: 'Permit', types: { Permit: [{ name: 'owner', type: 'address' }] } }))).toBe(
      'typed-data-is-delegation',
    )
  })

  it('rejects a malformed payment policy, naming the field', () => {
    const key = MemoryKey.generate()
    const make = (p: Partial<PaymentPolicy>) => () =>
      new GolemSigner({ signer: key.toRawSigner(), policy: policy({ payments: { ...payments, ...p } }) })
    expect(make({ payees: [] })).toThrow(/policy.payments.payees/)
    expect(make({ maxPerPayment: 0n })).toThrow(/policy.payments.maxPerPayment/)
    expect(make({ maxPerPeriod: 1n })).toThrow(/policy.payments.maxPerPeriod/)
    expect(make({ asset: '0x12' as Address })).toThrow(/policy.payments.asset/)
  })
})
