// What an x402 payment to this deployment is made in and paid to, resolved once per cold start by the
// API (which prices and settles) and by the tick (whose Golems pay the API for their own runtime), so
// the two can never disagree. Defaults: the chain's USDC as `knownAsset` names it (the API passes
// @x402/evm's table), and the VitalityOracle's owner (the operator) as payTo. The deployed stack sets
// BARDO_USDC and its domain for every function from the same table at deploy (stacks/config.ts), so the
// tick, which leaves @x402/evm out of its bundle, pays in what the API prices in.
import { getAddress, isAddress, type Address } from 'viem'
import { BardoError } from '../core/errors.ts'

export type PaymentTerms = {
  asset: Address
  payTo: Address
  /** The asset's EIP-712 domain, where known. */
  tokenName?: string
  tokenVersion?: string
}

/** A chain's USDC and its EIP-712 domain, as x402 knows it (`getDefaultAsset` of `@x402/evm`). */
export type KnownAsset = (network: `eip155:${number}`) => { asset: string; name: string; version: string }

/**
 * - BARDO_USDC, BARDO_USDC_NAME, BARDO_USDC_VERSION: default the chain's USDC from `knownAsset`, else
 *   `usdcFallback` (the deployment's own test asset)
 * - BARDO_PAY_TO: default `readOperator()` (one read)
 * Errors name the variable, never a value.
 */
export async function resolvePaymentTerms(
  env: Record<string, string | undefined>,
  chainId: number,
  readOperator: () => Promise<Address>,
  options: { usdcFallback?: Address | undefined; errorCode?: string; knownAsset?: KnownAsset } = {},
): Promise<PaymentTerms> {
  const fail = (field: string, rule: string) =>
    new BardoError(options.errorCode ?? 'INVALID_CONFIG', `${field}: ${rule}`, { details: { field } })
  const optionalAddress = (name: string): Address | undefined => {
    const raw = env[name]
    if (raw === undefined || raw === '') return undefined
    if (!isAddress(raw, { strict: false })) throw fail(name, 'must be a 20-byte hex address')
    return getAddress(raw)
  }
  let known: { asset: string; name: string; version: string } | undefined
  try {
    known = options.knownAsset?.(`eip155:${chainId}`)
  } catch {
    known = undefined
  }
  const asset = optionalAddress('BARDO_USDC') ?? (known ? getAddress(known.asset) : options.usdcFallback)
  if (!asset)
    throw fail(
      'BARDO_USDC',
      options.knownAsset
        ? `must be set: chain ${chainId} has no known USDC`
        : 'must be set: this function carries no table of known assets',
    )
  const useKnownDomain = known !== undefined && getAddress(known.asset) === asset
  const payTo = optionalAddress('BARDO_PAY_TO') ?? getAddress(await readOperator())
  const tokenName = env.BARDO_USDC_NAME || (useKnownDomain ? known!.name : undefined)
  const tokenVersion = env.BARDO_USDC_VERSION || (useKnownDomain ? known!.version : undefined)
  return { asset, payTo, ...(tokenName ? { tokenName } : {}), ...(tokenVersion ? { tokenVersion } : {}) }
}
