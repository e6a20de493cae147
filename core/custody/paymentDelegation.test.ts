// Paying by delegation (x402's `erc7710` method) from the owner's grant: the key signs only the open
// delegation MetaMask's kit builds for a payment (createx402DelegationProvider, unmodified), under a
// grant it pays from, redeemable only by a configured settlement account, for the configured asset to a
// configured payee, within the per-payment and per-period bounds. Each refusal names its rule, and a
// refused request changes nothing (the period's total stays).
import { createDelegation, getSmartAccountsEnvironment, type Delegation } from '@metamask/smart-accounts-kit'
import { createx402DelegationProvider, type PaymentRequirements } from '@metamask/smart-accounts-kit/experimental'
import { decodeDelegations, encodeDelegations, hashDelegation } from '@metamask/smart-accounts-kit/utils'
import { recoverTypedDataAddress, type Address, type Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { SignerPolicyError } from './errors.ts'
import { GolemSigner } from './golemSigner.ts'
import { MemoryKey } from './memoryKey.ts'
import { MemoryPaymentLedger, type PaymentPolicy } from './paymentPolicy.ts'
import { policy } from '../../test/support/custody/fixtures.ts'

const CHAIN = 84_532
const environment = getSmartAccountsEnvironment(CHAIN)
const e = environment.caveatEnforcers
const USDC: Address = '0x000000000000000000000000000000000000c0de'
const PLATFORM: Address = '0x0000000000000000000000000000000000000f1a'
const SETTLEMENT: Address = '0x0000000000000000000000000000000000005e77'
const OWNER: Address = '0x00000000000000000000000000000000000000a1'
const NOW = 1_800_000_000n

const setup = (o: Partial<PaymentPolicy> = {}) => {
  const key = MemoryKey.generate()
  const address = key.toRawSigner().address
  const grant: Delegation = {
    ...createDelegation({
      environment,
      from: OWNER,
      to: address,
      scope: { type: 'erc20PeriodTransfer', tokenAddress: USDC, periodAmount: 10_000_000n, periodDuration: 86_400, startDate: 1 },
    }),
    signature: '0x',
  }
  const payments: PaymentPolicy = {
    asset: USDC,
    assetName: 'USD Coin',
    assetVersion: '2',
    payees: [PLATFORM],
    maxPerPayment: 5_000_000n,
    maxPerPeriod: 8_000_000n,
    periodSeconds: 86_400n,
    maxValiditySeconds: 3_600n,
    delegation: {
      redeemers: [SETTLEMENT],
      grants: [hashDelegation(grant)],
      enforcers: {
        valueLte: e.ValueLteEnforcer!,
        erc20TransferAmount: e.ERC20TransferAmountEnforcer!,
        redeemer: e.RedeemerEnforcer!,
        allowedCalldata: e.AllowedCalldataEnforcer!,
      },
    },
    ...o,
  }
  const ledger = new MemoryPaymentLedger()
  const golem = new GolemSigner({
    signer: key.toRawSigner(),
    policy: policy({ chainId: CHAIN, delegationManager: environment.DelegationManager, payments }),
    paymentLedger: ledger,
    now: () => NOW,
  })
  return { golem, ledger, grant }
}

const requirements = (o: Partial<PaymentRequirements> = {}): PaymentRequirements => ({
  scheme: 'exact',
  network: `eip155:${CHAIN}`,
  asset: USDC,
  amount: '1000000',
  payTo: PLATFORM,
  maxTimeoutSeconds: 60,
  extra: { assetTransferMethod: 'erc7710', facilitatorAddresses: [SETTLEMENT] },
  ...o,
})

/** The kit's provider, as a payer uses it: the Golem's account signs a leaf under its grant. */
function pay(s: ReturnType<typeof setup>, r: PaymentRequirements = requirements(), parent: Delegation = s.grant) {
  return createx402DelegationProvider({
    account: s.golem.account,
    environment,
    from: s.golem.address,
    parentPermissionContext: encodeDelegations([parent]),
  })(r)
}

const rule = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => undefined,
    (x) => x,
  )
  expect(err).toBeInstanceOf(SignerPolicyError)
  return (err as SignerPolicyError).rule
}

describe('GolemSigner: paying by delegation from the owner grant', () => {
  it("signs the kit's payment leaf under its grant: rooted at the owner, counted in the period", async () => {
    const s = setup()
    const out = await pay(s)
    expect(out.delegator).toBe(OWNER)
    const [leaf, parent] = decodeDelegations(out.permissionContext)
    expect(hashDelegation(parent!)).toBe(hashDelegation(s.grant))
    expect(leaf!.authority).toBe(hashDelegation(s.grant))
    const signer = await recoverTypedDataAddress({
      ...s.golem.delegationTypedData(leaf!),
      signature: leaf!.signature,
    } as never)
    expect(signer).toBe(s.golem.address)
    expect(s.ledger.spent(NOW / 86_400n)).toBe(1_000_000n)
  })

  it('refuses beyond the per-payment and the per-period bounds, counting nothing', async () => {
    const s = setup()
    expect(await rule(pay(s, requirements({ amount: '5000001' })))).toBe('payment-bound')
    await pay(s, requirements({ amount: '5000000' }))
    expect(await rule(pay(s, requirements({ amount: '3000001' })))).toBe('payment-period-bound')
    expect(s.ledger.spent(NOW / 86_400n)).toBe(5_000_000n)
  })

  it('refuses another payee, asset, settlement account or grant, and a Golem with no delegation payments', async () => {
    const s = setup()
    expect(await rule(pay(s, requirements({ payTo: '0x0000000000000000000000000000000000000bad' })))).toBe('payee-allowed')
    expect(await rule(pay(s, requirements({ asset: '0x0000000000000000000000000000000000000bad' })))).toBe('payment-asset')
    expect(await rule(pay(s, requirements({ extra: { facilitatorAddresses: ['0x0000000000000000000000000000000000000bad'] } })))).toBe(
      'payment-redeemer',
    )
    const other: Delegation = { ...s.grant, salt: '0x07' }
    expect(await rule(pay(s, requirements(), other))).toBe('payment-grant')
    const none = setup({ delegation: undefined })
    expect(await rule(pay(none))).toBe('no-open-delegation')
    expect(s.ledger.spent(NOW / 86_400n)).toBe(0n)
  })

  it('refuses an open delegation with no redeemer (anyone could redeem it) or with a caveat of its own', async () => {
    const s = setup()
    // Without facilitator addresses the kit leaves the redeemer open.
    expect(await rule(pay(s, requirements({ extra: { assetTransferMethod: 'erc7710' } })))).toBe('payment-delegation-caveats')
    const withExtra = createx402DelegationProvider({
      account: s.golem.account,
      environment,
      from: s.golem.address,
      parentPermissionContext: encodeDelegations([s.grant]),
      caveats: [{ type: 'limitedCalls', limit: 1 }],
    })
    expect(await rule(withExtra(requirements()))).toBe('payment-delegation-caveats')
  })

  it('still refuses a named sub-delegation shape that is not its own', async () => {
    const s = setup()
    const td = s.golem.delegationTypedData({
      delegate: PLATFORM,
      delegator: OWNER,
      authority: hashDelegation(s.grant) as Hex,
      caveats: [],
      salt: 1n,
    } as never)
    expect(await rule(s.golem.account.signTypedData(td as never))).toBe('own-delegation')
  })
})
