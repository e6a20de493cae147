// The payments a Golem may sign: an EIP-3009 TransferWithAuthorization of the configured asset (the
// x402 exact scheme's typed data), from its own key, to a configured payee, within a per-payment and a
// per-period bound; or, where the policy allows it, the same payment by delegation from the owner's
// grant (core/custody/paymentDelegation.ts), under the same bounds. It pays the Golem's own costs
// (runtime bought from the platform); anything else a typed-data signature could move is refused.
import { isAddress, isAddressEqual, isHex, size, type Address, type Hex } from 'viem'
import { CustodyConfigError, SignerPolicyError } from './errors.ts'

export type PaymentPolicy = {
  /** The ERC-20 that implements EIP-3009 (USDC), and its EIP-712 domain name and version. */
  asset: Address
  assetName: string
  assetVersion: string
  /** Who may be paid (the platform's x402 payTo). */
  payees: readonly Address[]
  maxPerPayment: bigint
  maxPerPeriod: bigint
  /** The period of `maxPerPeriod`, in seconds (periods start at multiples of it). */
  periodSeconds: bigint
  /** The longest validity window (validBefore - now) an authorization may carry. */
  maxValiditySeconds: bigint
  /** Paying from the owner's grant by delegation (ERC-7710) instead of from the key; none without it. */
  delegation?: PaymentDelegationPolicy | undefined
}

/**
 * A payment by delegation: the key signs an open delegation under one of the owner's grants that only
 * the seller's settlement account may redeem, for one transfer of the asset to a payee. The money goes
 * from the owner's account to the payee and never through the key.
 */
export type PaymentDelegationPolicy = {
  /** The settlement accounts that may redeem a payment (the seller's facilitator addresses). */
  redeemers: readonly Address[]
  /** Hashes of the grants a payment may be made under (the Golem's runway delegation). */
  grants: readonly Hex[]
  /** The framework's enforcers a payment delegation is built from, and nothing else. */
  enforcers: { valueLte: Address; erc20TransferAmount: Address; redeemer: Address; allowedCalldata: Address }
}

/** A deployment's rule for paying by delegation, before it names the grant of one Golem. */
export type RuntimeByDelegation = Omit<PaymentDelegationPolicy, 'grants'>

export type PaymentAuthorization = { to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex }

/** What the signer already authorized in a period: it counts each signature it makes. */
export interface PaymentLedger {
  spent(period: bigint): bigint
  record(period: bigint, amount: bigint): void
}

/** A ledger in this process's memory: one per key, held by whoever holds the key. */
export class MemoryPaymentLedger implements PaymentLedger {
  readonly #spent = new Map<bigint, bigint>()
  spent(period: bigint): bigint {
    return this.#spent.get(period) ?? 0n
  }
  record(period: bigint, amount: bigint): void {
    this.#spent.set(period, this.spent(period) + amount)
  }
}

export function assertPaymentPolicy(p: PaymentPolicy): void {
  if (!isAddress(p.asset, { strict: false })) throw new CustodyConfigError('policy.payments.asset', 'must be an address')
  if (!p.assetName || !p.assetVersion)
    throw new CustodyConfigError('policy.payments.assetName', 'the EIP-712 domain name and version are required')
  if (p.payees.length === 0 || !p.payees.every((a) => isAddress(a, { strict: false })))
    throw new CustodyConfigError('policy.payments.payees', 'must list at least one address')
  if (p.maxPerPayment <= 0n) throw new CustodyConfigError('policy.payments.maxPerPayment', 'must be positive')
  if (p.maxPerPeriod < p.maxPerPayment) throw new CustodyConfigError('policy.payments.maxPerPeriod', 'must be at least maxPerPayment')
  if (p.periodSeconds <= 0n) throw new CustodyConfigError('policy.payments.periodSeconds', 'must be positive')
  if (p.maxValiditySeconds <= 0n) throw new CustodyConfigError('policy.payments.maxValiditySeconds', 'must be positive')
  if (p.delegation === undefined) return
  const d = p.delegation
  if (d.redeemers.length === 0 || !d.redeemers.every((a) => isAddress(a, { strict: false })))
    throw new CustodyConfigError('policy.payments.delegation.redeemers', 'must list at least one address')
  if (d.grants.length === 0 || !d.grants.every((h) => isHex(h) && size(h) === 32))
    throw new CustodyConfigError('policy.payments.delegation.grants', 'must list at least one 32-byte delegation hash')
  for (const [name, address] of Object.entries(d.enforcers))
    if (!isAddress(address, { strict: false }))
      throw new CustodyConfigError(`policy.payments.delegation.enforcers.${name}`, 'must be an address')
}

/**
 * EIP-3009's TransferWithAuthorization, the typed data the x402 exact scheme signs (the same as
 * `@x402/evm`'s `authorizationTypes`, which paymentPolicy.test.ts checks; importing it would bring that
 * package's schemas into a tick).
 */
export const authorizationTypes = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const

export const paymentPeriod = (p: Pick<PaymentPolicy, 'periodSeconds'>, now: bigint) => now / p.periodSeconds

/** The typed data of one authorization, as the x402 exact scheme signs it. */
export function paymentTypedData(p: PaymentPolicy, chainId: number, from: Address, a: PaymentAuthorization) {
  return {
    domain: { name: p.assetName, version: p.assetVersion, chainId, verifyingContract: p.asset },
    types: authorizationTypes,
    primaryType: 'TransferWithAuthorization' as const,
    message: { from, to: a.to, value: a.value, validAfter: a.validAfter, validBefore: a.validBefore, nonce: a.nonce },
  }
}

type TypedDataLike = {
  domain?: Record<string, unknown> | undefined
  types?: Record<string, unknown> | undefined
  primaryType?: string | undefined
  message?: Record<string, unknown> | undefined
}

/**
 * Checks a TransferWithAuthorization against the policy and the period's spending, and returns the
 * period and amount to record once it is signed. Bad input changes nothing: the ledger is written by
 * the caller only after the signature exists.
 */
export function checkPaymentTypedData(
  td: TypedDataLike,
  policy: PaymentPolicy | undefined,
  chainId: number,
  signer: Address,
  now: bigint,
  spentInPeriod: (period: bigint) => bigint,
): { period: bigint; amount: bigint } {
  if (!policy) throw new SignerPolicyError('payments-configured', 'this Golem has no payment policy: it signs no payment')
  const types = { ...(td.types ?? {}) }
  delete types.EIP712Domain
  if (td.primaryType !== 'TransferWithAuthorization' || JSON.stringify(types) !== JSON.stringify(authorizationTypes))
    throw new SignerPolicyError('payment-is-eip3009', 'typedData must be exactly an EIP-3009 TransferWithAuthorization')
  const d = td.domain ?? {}
  if (
    d.name !== policy.assetName ||
    d.version !== policy.assetVersion ||
    Number(d.chainId) !== chainId ||
    typeof d.verifyingContract !== 'string' ||
    !isAddress(d.verifyingContract, { strict: false }) ||
    !isAddressEqual(d.verifyingContract, policy.asset)
  )
    throw new SignerPolicyError(
      'payment-asset',
      `typedData.domain must be the configured asset ${policy.asset} (${policy.assetName} v${policy.assetVersion}) on chain ${chainId}`,
    )
  const m = td.message ?? {}
  const from = m.from
  if (typeof from !== 'string' || !isAddress(from, { strict: false }) || !isAddressEqual(from, signer))
    throw new SignerPolicyError('payment-from-self', `authorization.from ${String(from)} is not this signer ${signer}`)
  const to = m.to
  if (typeof to !== 'string' || !isAddress(to, { strict: false }) || !policy.payees.some((p) => isAddressEqual(p, to)))
    throw new SignerPolicyError('payee-allowed', `authorization.to ${String(to)} is not a configured payee`)
  const value = toBigInt(m.value)
  const validAfter = toBigInt(m.validAfter)
  const validBefore = toBigInt(m.validBefore)
  if (value === null) throw new SignerPolicyError('payment-amount', 'authorization.value must be a positive integer')
  if (validAfter === null || validBefore === null || validBefore <= now || validBefore <= validAfter)
    throw new SignerPolicyError('payment-window', 'authorization validBefore must be after now and after validAfter')
  if (validBefore - now > policy.maxValiditySeconds)
    throw new SignerPolicyError('payment-window', `authorization validBefore is more than ${policy.maxValiditySeconds}s away`)
  if (typeof m.nonce !== 'string' || !isHex(m.nonce) || size(m.nonce) !== 32)
    throw new SignerPolicyError('payment-nonce', 'authorization.nonce must be 32 bytes')
  return checkPaymentBounds(policy, 'authorization.value', value, now, spentInPeriod)
}

/**
 * The bounds every payment a Golem signs keeps, whatever carries it: a positive amount, at most the
 * per-payment bound, and within the per-period bound with what the period already authorized. Returns
 * the period and amount to record once it is signed.
 */
export function checkPaymentBounds(
  policy: PaymentPolicy,
  field: string,
  amount: bigint,
  now: bigint,
  spentInPeriod: (period: bigint) => bigint,
): { period: bigint; amount: bigint } {
  if (amount <= 0n) throw new SignerPolicyError('payment-amount', `${field} must be a positive integer`)
  if (amount > policy.maxPerPayment)
    throw new SignerPolicyError('payment-bound', `${field} ${amount} exceeds the per-payment bound ${policy.maxPerPayment}`)
  const period = paymentPeriod(policy, now)
  const spent = spentInPeriod(period)
  if (spent + amount > policy.maxPerPeriod)
    throw new SignerPolicyError(
      'payment-period-bound',
      `${field} ${amount} with ${spent} already authorized this period exceeds the per-period bound ${policy.maxPerPeriod}`,
    )
  return { period, amount }
}

function toBigInt(v: unknown): bigint | null {
  if (typeof v === 'bigint') return v
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v)
  if (typeof v === 'string' && /^\d+$/.test(v)) return BigInt(v)
  return null
}
