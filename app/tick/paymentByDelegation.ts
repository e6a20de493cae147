// The Golem's runtime paid from its owner's grant by delegation (x402's `erc7710` transfer method): the
// key signs, through its GolemSigner, the open delegation MetaMask's kit builds for a payment, under the
// Golem's runway grant, redeemable only by the seller's
// settlement account. The seller redeems the chain for one transfer from the owner's account to its
// payee: the money never passes through the key.
import { ANY_BENEFICIARY } from '@metamask/smart-accounts-kit'
import { SIGNABLE_DELEGATION_TYPED_DATA, toDelegationStruct } from '@metamask/smart-accounts-kit/utils'
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types'
import { bytesToHex, concat, encodePacked, hashStruct, isAddress, isAddressEqual, numberToHex, pad, type Address, type Hex } from 'viem'
import type { UnsignedDelegation } from '../../core/custody/golemSigner.ts'
import { encodeDelegationChain } from '../../core/delegations/redeem.ts'
import type { GolemSigner } from '../../core/custody/golemSigner.ts'
import type { PaymentPolicy, RuntimeByDelegation } from '../../core/custody/paymentPolicy.ts'
import type { TickFramework } from '../../core/deployment.ts'
import { BardoError, InvariantError } from '../../core/errors.ts'
import { toDelegations, type GolemProfile } from '../../core/lifecycle/profile.ts'

/** The delegation-payment rule of a deployment's framework: its enforcers, the seller's settlement accounts. */
export function runtimeByDelegation(framework: TickFramework, redeemers: readonly Address[]): RuntimeByDelegation {
  const e = framework.caveatEnforcers
  const at = (name: string): Address => {
    const address = e[name]
    if (address === undefined) throw new InvariantError('FRAMEWORK_MISSING', `deployment: the framework has no ${name}`)
    return address
  }
  return {
    redeemers,
    enforcers: {
      valueLte: at('ValueLteEnforcer'),
      erc20TransferAmount: at('ERC20TransferAmountEnforcer'),
      redeemer: at('RedeemerEnforcer'),
      allowedCalldata: at('AllowedCalldataEnforcer'),
    },
  }
}

/** The payment policy of one Golem paying by delegation: only under its own runway grant. */
export function delegationPaymentPolicy(policy: PaymentPolicy, rule: RuntimeByDelegation, profile: GolemProfile): PaymentPolicy {
  return { ...policy, delegation: { ...rule, grants: [profile.runway.chainHashes[0] as Hex] } }
}

/** Whose money a payment by delegation moves: the root delegator of the runway chain (the owner's account). */
export const grantPayer = (profile: GolemProfile): Address => profile.runway.chain[profile.runway.chain.length - 1]!.delegator as Address

/** transfer(to, amount): the payee is the word right after the 4-byte selector. */
const TRANSFER_PAYEE_INDEX = 4n

/**
 * The open delegation the kit's x402 delegation provider builds for a payment, from its parts: no
 * native value (ValueLte 0), an ERC-20 transfer amount of the price, the settlement accounts both the
 * seller publishes and the policy allows (Redeemer), the payee pinned (AllowedCalldata). The provider's
 * module and the kit's caveat builders bring MetaMask's utils library and the kit's storage client,
 * which would nearly double the tick's bundle; paymentByDelegation.test.ts checks the delegation is
 * the provider's, caveat for caveat.
 */
export function paymentDelegation(
  framework: TickFramework,
  from: Address,
  parentHash: Hex,
  accepted: PaymentRequirements,
  redeemers: readonly Address[],
  salt: Hex,
): UnsignedDelegation {
  const e = framework.caveatEnforcers
  const enforcer = (name: string): Address => {
    const address = e[name]
    if (address === undefined) throw new InvariantError('FRAMEWORK_MISSING', `deployment: the framework has no ${name}`)
    return address
  }
  return {
    delegate: ANY_BENEFICIARY,
    delegator: from,
    authority: parentHash,
    caveats: [
      { enforcer: enforcer('ValueLteEnforcer'), terms: numberToHex(0n, { size: 32 }), args: '0x' },
      {
        enforcer: enforcer('ERC20TransferAmountEnforcer'),
        terms: encodePacked(['address', 'uint256'], [accepted.asset as Address, BigInt(accepted.amount)]),
        args: '0x',
      },
      { enforcer: enforcer('RedeemerEnforcer'), terms: concat([...redeemers]), args: '0x' },
      {
        enforcer: enforcer('AllowedCalldataEnforcer'),
        terms: encodePacked(['uint256', 'bytes'], [TRANSFER_PAYEE_INDEX, pad(accepted.payTo as Address, { size: 32 })]),
        args: '0x',
      },
    ],
    salt,
  }
}

/** A delegation's hash as the DelegationManager computes it (the kit's hashDelegation): its EIP-712 struct hash. */
export function delegationHashOf(d: UnsignedDelegation): Hex {
  const { signature: _signature, ...data } = toDelegationStruct({ ...d, signature: '0x' })
  return hashStruct({ primaryType: 'Delegation', types: SIGNABLE_DELEGATION_TYPED_DATA, data })
}

/**
 * The x402 payment for `accepted`, by delegation: the payment delegation under the runway grant, signed
 * through the GolemSigner. The payload is what MetaMask's x402 client sends (the DelegationManager, the
 * chain leaf first, the root delegator); `id` is the leaf's hash, the payment's identity in the seller's
 * ledger.
 */
export async function payByDelegation(
  signer: GolemSigner,
  framework: TickFramework,
  profile: GolemProfile,
  required: PaymentRequired,
  accepted: PaymentRequirements,
  salt: Hex = bytesToHex(crypto.getRandomValues(new Uint8Array(32))),
): Promise<{ payload: PaymentPayload; id: Hex }> {
  const allowed = signer.policy.payments?.delegation?.redeemers ?? []
  const published = Array.isArray(accepted.extra?.facilitatorAddresses) ? (accepted.extra.facilitatorAddresses as unknown[]) : []
  const redeemers = allowed.filter((a) => published.some((p) => typeof p === 'string' && isAddress(p) && isAddressEqual(p, a)))
  if (redeemers.length === 0)
    throw new BardoError('PAYMENT_REDEEMER', 'accepted.extra.facilitatorAddresses: names no settlement account this Golem may pay through')
  const chain = toDelegations(profile.runway.chain)
  const unsigned = paymentDelegation(framework, signer.address, profile.runway.chainHashes[0] as Hex, accepted, redeemers, salt)
  const leaf = await signer.signDelegation(unsigned)
  const root = chain[chain.length - 1]!
  return {
    payload: {
      x402Version: 2,
      payload: {
        delegationManager: framework.DelegationManager,
        permissionContext: encodeDelegationChain([leaf, ...chain]),
        delegator: root.delegator,
      },
      ...(required.extensions === undefined ? {} : { extensions: required.extensions }),
      resource: required.resource,
      accepted,
    },
    id: delegationHashOf(unsigned),
  }
}
