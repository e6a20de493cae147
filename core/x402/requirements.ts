// What the operator asks for: x402 v2 PaymentRequirements for /extend and /feed (scheme `exact`,
// CAIP-2 network, the chain's USDC, the operator as payTo). The API wraps them in PAYMENT-REQUIRED.
import type { PaymentRequirements } from '@x402/core/types'
import { getAddress, isAddress, type Address } from 'viem'
import type { Erc7710Terms } from './erc7710.ts'
import { X402ConfigError } from './errors.ts'
import { assertPricing, priceFor, type GolemPricing, type PaymentKind } from './pricing.ts'

export type X402Config = {
  chainId: number
  /** The chain's USDC (locally the EIP-3009 TestUSDC). */
  asset: Address
  /** Who is paid: the operator. */
  payTo: Address
  pricing: GolemPricing
  /** EIP-712 domain of the asset; USDC's is ("USD Coin", "2") on most chains ("USDC" on some: check). */
  tokenName?: string
  tokenVersion?: string
  /** How long a signed authorization may stay valid (clients set validBefore = now + this). */
  maxTimeoutSeconds?: number
  /**
   * Names this deployment's payment ledger inside every settlement tag, so that two deployments on one
   * chain, token and operator never credit each other's settlements (deployed: the stage's table).
   * Default `bardo`; deployments that share a settlement account must set distinct ids.
   */
  ledgerId?: string
  /** Accept payments by ERC-7710 delegation redeemed through these framework contracts (absent: EIP-3009 only). */
  erc7710?: Erc7710Terms | null
}

export type ResolvedX402Config = Required<Omit<X402Config, 'erc7710'>> & { network: `eip155:${number}`; erc7710: Erc7710Terms | null }

export const X402_VERSION = 2
export const DEFAULT_MAX_TIMEOUT_SECONDS = 300
export const DEFAULT_LEDGER_ID = 'bardo'

/** x402 v2 names EVM chains by CAIP-2: `eip155:<chainId>`. */
export function networkOf(chainId: number): `eip155:${number}` {
  return `eip155:${chainId}`
}

export function resolveX402Config(config: X402Config): ResolvedX402Config {
  if (!Number.isSafeInteger(config.chainId) || config.chainId <= 0) throw new X402ConfigError('chainId', 'must be a positive integer')
  if (!isAddress(config.asset, { strict: false })) throw new X402ConfigError('asset', 'must be an address')
  if (!isAddress(config.payTo, { strict: false })) throw new X402ConfigError('payTo', 'must be an address')
  const maxTimeoutSeconds = config.maxTimeoutSeconds ?? DEFAULT_MAX_TIMEOUT_SECONDS
  if (!Number.isSafeInteger(maxTimeoutSeconds) || maxTimeoutSeconds < 10)
    throw new X402ConfigError('maxTimeoutSeconds', 'must be an integer of at least 10')
  const ledgerId = config.ledgerId ?? DEFAULT_LEDGER_ID
  if (typeof ledgerId !== 'string' || !/^[\x21-\x7e]{1,128}$/.test(ledgerId))
    throw new X402ConfigError('ledgerId', 'must be 1 to 128 printable ASCII characters without spaces')
  return {
    chainId: config.chainId,
    network: networkOf(config.chainId),
    asset: getAddress(config.asset),
    payTo: getAddress(config.payTo),
    pricing: assertPricing(config.pricing),
    tokenName: config.tokenName ?? 'USD Coin',
    tokenVersion: config.tokenVersion ?? '2',
    maxTimeoutSeconds,
    ledgerId,
    erc7710: config.erc7710 === undefined || config.erc7710 === null ? null : resolveErc7710Terms(config.erc7710),
  }
}

function resolveErc7710Terms(terms: Erc7710Terms): Erc7710Terms {
  for (const field of ['delegationManager', 'redeemerEnforcer'] as const) {
    if (!isAddress(terms[field], { strict: false })) throw new X402ConfigError(`erc7710.${field}`, 'must be an address')
  }
  return { delegationManager: getAddress(terms.delegationManager), redeemerEnforcer: getAddress(terms.redeemerEnforcer) }
}

/** The requirements for one payment of at least `amount`. */
export function buildPaymentRequirements(config: ResolvedX402Config, amount: bigint): PaymentRequirements {
  return {
    scheme: 'exact',
    network: config.network,
    asset: config.asset,
    amount: amount.toString(),
    payTo: config.payTo,
    maxTimeoutSeconds: config.maxTimeoutSeconds,
    // The asset's EIP-712 domain: the payer signs TransferWithAuthorization under it.
    extra: { name: config.tokenName, version: config.tokenVersion },
  }
}

export function requirementsFor(config: ResolvedX402Config, kind: PaymentKind, hours = 1): PaymentRequirements {
  return buildPaymentRequirements(config, priceFor(kind, config.pricing, hours))
}
