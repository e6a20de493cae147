// What an x402 payment to this deployment is made in and paid to, resolved once per cold start by the
// API (which prices and settles) and by the tick (whose Golems pay the API for their own runtime), so
// the two can never disagree. Defaults: the chain's USDC as @x402/evm knows it, and the VitalityOracle's
// owner (the operator) as payTo.
import { getDefaultAsset } from '@x402/evm'
import { getAddress, isAddress, type Address } from 'viem'
import { BardoError } from '../../core/errors.ts'

export type PaymentTerms = {
  asset: Address
  payTo: Address
  /** The asset's EIP-712 domain, where known. */
  tokenName?: string
  tokenVersion?: string
}

/**
 * - BARDO_USDC, BARDO_USDC_NAME, BARDO_USDC_VERSION: default the chain's USDC from @x402/evm, else
 *   `usdcFallback` (the deployment's own test asset)
 * - BARDO_PAY_TO: default `readOperator()` (one read)
 * Errors name the variable, never a value.
 */
export async function resolvePaymentTerms(
  env: Record<string, string | undefined>,
  chainId: number,
  readOperator: () => Promise<Address>,
  options: { usdcFallback?: Address | undefined; errorCode?: string } = {},
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
    known = getDefaultAsset(`eip155:${chainId}`)
  } catch {
    known = undefined
  }
  const asset = optionalAddress('BARDO_USDC') ?? (known ? getAddress(known.asset) : options.usdcFallback)
  if (!asset) throw fail('BARDO_USDC', `must be set: chain ${chainId} has no known USDC`)
  const useKnownDomain = known !== undefined && getAddress(known.asset) === asset
  const payTo = optionalAddress('BARDO_PAY_TO') ?? getAddress(await readOperator())
  const tokenName = env.BARDO_USDC_NAME || (useKnownDomain ? known!.name : undefined)
  const tokenVersion = env.BARDO_USDC_VERSION || (useKnownDomain ? known!.version : undefined)
  return { asset, payTo, ...(tokenName ? { tokenName } : {}), ...(tokenVersion ? { tokenVersion } : {}) }
}
