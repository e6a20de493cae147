// A payment by delegation (x402's `erc7710` transfer method): the key signs an open delegation under the
// owner's grant, redeemable only by the seller's settlement account, for one transfer of the configured
// asset to a configured payee, within the same per-payment and per-period bounds as an EIP-3009
// payment. It is built as the MetaMask kit's x402 delegation provider builds it: a zero native value,
// an ERC-20 transfer amount, the redeemers and the payee pinned as transfer's first argument. Any other
// caveat, grant, redeemer, payee or asset is refused, unsigned.
import { ANY_BENEFICIARY } from '@metamask/smart-accounts-kit'
import { hexToBigInt, isAddress, isAddressEqual, isHex, pad, size, sliceHex, type Address, type Hex } from 'viem'
import { SignerPolicyError } from './errors.ts'
import { checkPaymentBounds, type PaymentPolicy } from './paymentPolicy.ts'
import { checkOwnDelegationEnvelope, type DelegationTypedDataInput } from './policy.ts'

/** Whether typed data is a delegation to anyone (the open delegation a payment by delegation is). */
export function isOpenDelegation(td: DelegationTypedDataInput): boolean {
  const delegate = td.message?.delegate
  return td.primaryType === 'Delegation' && typeof delegate === 'string' && delegate.toLowerCase() === ANY_BENEFICIARY.toLowerCase()
}

type Caveat = { enforcer: Address; terms: Hex }

function caveatsOf(value: unknown): Caveat[] {
  if (!Array.isArray(value)) throw new SignerPolicyError('payment-delegation-caveats', 'delegation.caveats must be a list')
  return value.map((c, i) => {
    const { enforcer, terms } = (c ?? {}) as { enforcer?: unknown; terms?: unknown }
    if (typeof enforcer !== 'string' || !isAddress(enforcer, { strict: false }) || typeof terms !== 'string' || !isHex(terms))
      throw new SignerPolicyError('payment-delegation-caveats', `delegation.caveats[${i}] must have an enforcer address and hex terms`)
    return { enforcer, terms }
  })
}

/**
 * Checks a payment delegation against the policy and the period's spending, and returns the period and
 * amount to record once it is signed. Bad input changes nothing: the ledger is written by the caller
 * only after the signature exists.
 */
export function checkPaymentDelegationTypedData(
  td: DelegationTypedDataInput,
  policy: PaymentPolicy | undefined,
  config: { chainId: number; delegationManager: Address },
  signer: Address,
  now: bigint,
  spentInPeriod: (period: bigint) => bigint,
): { period: bigint; amount: bigint } {
  const rule = policy?.delegation
  if (!policy || !rule)
    throw new SignerPolicyError('payment-delegation-configured', 'this Golem pays by no delegation: it signs no open delegation')
  const m = checkOwnDelegationEnvelope(td, config, signer)
  const authority = m.authority
  if (typeof authority !== 'string' || !rule.grants.some((g) => g.toLowerCase() === authority.toLowerCase()))
    throw new SignerPolicyError('payment-grant', `delegation.authority ${String(authority)} is not a grant this Golem pays from`)
  const caveats = caveatsOf(m.caveats)
  const { enforcers } = rule
  const only = (enforcer: Address, name: string): Caveat => {
    const found = caveats.filter((c) => isAddressEqual(c.enforcer, enforcer))
    if (found.length !== 1)
      throw new SignerPolicyError('payment-delegation-caveats', `delegation.caveats must hold exactly one ${name}, found ${found.length}`)
    return found[0]!
  }
  const known = Object.values(enforcers)
  const stranger = caveats.find((c) => !known.some((e) => isAddressEqual(e, c.enforcer)))
  if (stranger)
    throw new SignerPolicyError('payment-delegation-caveats', `delegation.caveats holds ${stranger.enforcer}, not an enforcer of a payment`)

  const value = only(enforcers.valueLte, 'ValueLteEnforcer')
  if (size(value.terms) !== 32 || hexToBigInt(value.terms) !== 0n)
    throw new SignerPolicyError('payment-native-value', 'ValueLteEnforcer terms must allow no native value (0)')

  const transfer = only(enforcers.erc20TransferAmount, 'ERC20TransferAmountEnforcer')
  if (size(transfer.terms) !== 52)
    throw new SignerPolicyError('payment-asset', 'ERC20TransferAmountEnforcer terms must be a token and an amount (52 bytes)')
  const token = sliceHex(transfer.terms, 0, 20)
  if (!isAddressEqual(token, policy.asset))
    throw new SignerPolicyError('payment-asset', `ERC20TransferAmountEnforcer token ${token} is not the configured asset ${policy.asset}`)
  const amount = hexToBigInt(sliceHex(transfer.terms, 20, 52))

  const redeemer = only(enforcers.redeemer, 'RedeemerEnforcer')
  const n = size(redeemer.terms)
  if (n === 0 || n % 20 !== 0) throw new SignerPolicyError('payment-redeemer', 'RedeemerEnforcer terms must be one or more addresses')
  for (let i = 0; i < n; i += 20) {
    const who = sliceHex(redeemer.terms, i, i + 20)
    if (!rule.redeemers.some((r) => isAddressEqual(r, who)))
      throw new SignerPolicyError('payment-redeemer', `RedeemerEnforcer names ${who}, not a configured settlement account`)
  }

  // transfer(to, amount): `to` is the word right after the 4-byte selector.
  const payee = only(enforcers.allowedCalldata, 'AllowedCalldataEnforcer')
  const pinned = size(payee.terms) === 64 ? payee.terms : null
  if (!pinned || hexToBigInt(sliceHex(pinned, 0, 32)) !== 4n)
    throw new SignerPolicyError('payee-allowed', "AllowedCalldataEnforcer must pin transfer's recipient (one word at byte 4)")
  const to = sliceHex(pinned, 44, 64)
  if (sliceHex(pinned, 32, 44) !== pad('0x', { size: 12 }) || !policy.payees.some((p) => isAddressEqual(p, to)))
    throw new SignerPolicyError('payee-allowed', `the pinned recipient ${to} is not a configured payee`)

  return checkPaymentBounds(policy, 'ERC20TransferAmountEnforcer amount', amount, now, spentInPeriod)
}
