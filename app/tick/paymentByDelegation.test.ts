// The tick builds its payment delegation as MetaMask's kit's x402 delegation provider builds it (the
// same leaf, caveat for caveat, for the same salt), without bundling the provider's module; and it pays
// only through a settlement account both the seller publishes and its policy allows.
import { createDelegation, getSmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import { createx402DelegationProvider } from '@metamask/smart-accounts-kit/experimental'
import { decodeDelegations, encodeDelegations, hashDelegation } from '@metamask/smart-accounts-kit/utils'
import type { PaymentRequired, PaymentRequirements } from '@x402/core/types'
import type { Address, Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { GolemSigner } from '../../core/custody/golemSigner.ts'
import { MemoryKey } from '../../core/custody/memoryKey.ts'
import type { GolemProfile } from '../../core/lifecycle/profile.ts'
import { policy } from '../../test/support/custody/fixtures.ts'
import { delegationPaymentPolicy, payByDelegation, runtimeByDelegation } from './paymentByDelegation.ts'

const CHAIN = 84_532
const environment = getSmartAccountsEnvironment(CHAIN)
const USDC: Address = '0x000000000000000000000000000000000000c0de'
const PLATFORM: Address = '0x0000000000000000000000000000000000000f1a'
const SETTLEMENT: Address = '0x0000000000000000000000000000000000005e77'
const OWNER: Address = '0x00000000000000000000000000000000000000a1'
const SALT: Hex = `0x${'07'.repeat(32)}`

function setup() {
  const key = MemoryKey.generate()
  const address = key.toRawSigner().address
  const grant = {
    ...createDelegation({
      environment,
      from: OWNER,
      to: address,
      scope: { type: 'erc20PeriodTransfer', tokenAddress: USDC, periodAmount: 10_000_000n, periodDuration: 86_400, startDate: 1 },
    }),
    signature: '0x' as Hex,
  }
  const profile = {
    runway: { chain: [{ ...grant, salt: grant.salt.toString() }], chainHashes: [hashDelegation(grant)] },
  } as unknown as GolemProfile
  const payments = delegationPaymentPolicy(
    {
      asset: USDC,
      assetName: 'USD Coin',
      assetVersion: '2',
      payees: [PLATFORM],
      maxPerPayment: 5_000_000n,
      maxPerPeriod: 8_000_000n,
      periodSeconds: 86_400n,
      maxValiditySeconds: 3_600n,
    },
    runtimeByDelegation(environment, [SETTLEMENT]),
    profile,
  )
  const golem = new GolemSigner({
    signer: key.toRawSigner(),
    policy: policy({ chainId: CHAIN, delegationManager: environment.DelegationManager, payments }),
  })
  return { golem, grant, profile }
}

const accepted = (facilitators: Address[] = [SETTLEMENT]): PaymentRequirements => ({
  scheme: 'exact',
  network: `eip155:${CHAIN}`,
  asset: USDC,
  amount: '500000',
  payTo: PLATFORM,
  maxTimeoutSeconds: 60,
  extra: { assetTransferMethod: 'erc7710', facilitatorAddresses: facilitators },
})
const required = (a: PaymentRequirements): PaymentRequired => ({
  x402Version: 2,
  resource: { url: 'http://localhost/api/v1/extend' },
  accepts: [a],
})

describe('the tick pays by delegation', () => {
  it("builds the same leaf as the kit's x402 delegation provider, and the payload MetaMask's client sends", async () => {
    const s = setup()
    const ours = await payByDelegation(s.golem, environment, s.profile, required(accepted()), accepted(), SALT)
    const kit = await createx402DelegationProvider({
      account: s.golem.account,
      environment,
      from: s.golem.address,
      salt: SALT,
      parentPermissionContext: encodeDelegations([s.grant]),
    })(accepted())
    const { permissionContext, ...rest } = ours.payload.payload as typeof kit
    expect(rest).toEqual({ delegationManager: kit.delegationManager, delegator: kit.delegator })
    // Caveat args are not signed (the builder leaves 0x00 where the provider leaves 0x): the rest is equal.
    const unsignedArgs = (chain: Hex) => decodeDelegations(chain).map((d) => ({ ...d, caveats: d.caveats.map(({ args: _, ...c }) => c) }))
    expect(unsignedArgs(permissionContext)).toEqual(unsignedArgs(kit.permissionContext))
    expect(ours.id).toBe(hashDelegation(decodeDelegations(kit.permissionContext)[0]!))
    expect(ours.payload.accepted).toEqual(accepted())
  })

  it('refuses a seller that publishes no settlement account the policy allows, signing nothing', async () => {
    const s = setup()
    const other = accepted(['0x0000000000000000000000000000000000000bad'])
    await expect(payByDelegation(s.golem, environment, s.profile, required(other), other, SALT)).rejects.toThrow(
      'accepted.extra.facilitatorAddresses: names no settlement account this Golem may pay through',
    )
  })
})
