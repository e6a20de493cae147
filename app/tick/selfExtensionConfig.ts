// Where the tick's self-extension configuration comes from: the local runner names its own API, a
// deployed tick finds the stack's API (functions/tick/apiUrl.ts) and pays in the API's own terms. Without an API URL there is no
// self-extension: the Golem's TTL then moves only when someone else pays /extend or /feed.
import type { Address } from 'viem'
import { BardoError } from '../../core/errors.ts'
import type { PaymentPolicy, RuntimeByDelegation } from '../../core/custody/paymentPolicy.ts'
import type { PaymentTerms } from '../paymentTerms.ts'
import type { SelfExtensionConfig } from './types.ts'

/** One payment buys at most a day of runtime; a day's payments at most two days of it. */
export const MAX_HOURS_PER_PAYMENT = 24n
export const MAX_HOURS_PER_DAY = 48n
/** x402 clients sign a window of the API's maxTimeoutSeconds (300 s by default); this leaves slack. */
export const MAX_VALIDITY_SECONDS = 900n

export type SelfExtensionSettings = {
  apiUrl: string | undefined
  /** The API's x402 asset (USDC) and its payTo: the only payee. */
  asset: Address
  payee: Address
  runtimeCostPerHour: bigint
  /** The asset's EIP-712 domain; USDC's ("USD Coin", "2") by default. */
  assetName?: string
  assetVersion?: string
  /** TTL kept beyond the next beats (default one beat). */
  marginSeconds?: bigint
  /** Pay by delegation from the owner's grant (the key never holds the money); from the key without it. */
  byDelegation?: RuntimeByDelegation
}

export function selfExtensionConfig(s: SelfExtensionSettings): SelfExtensionConfig | undefined {
  if (!s.apiUrl) return undefined
  const payments: PaymentPolicy = {
    asset: s.asset,
    assetName: s.assetName ?? 'USD Coin',
    assetVersion: s.assetVersion ?? '2',
    payees: [s.payee],
    maxPerPayment: MAX_HOURS_PER_PAYMENT * s.runtimeCostPerHour,
    maxPerPeriod: MAX_HOURS_PER_DAY * s.runtimeCostPerHour,
    periodSeconds: 86_400n,
    maxValiditySeconds: MAX_VALIDITY_SECONDS,
  }
  return {
    apiUrl: s.apiUrl,
    runtimeCostPerHour: s.runtimeCostPerHour,
    payments,
    ...(s.marginSeconds === undefined ? {} : { marginSeconds: s.marginSeconds }),
    ...(s.byDelegation === undefined ? {} : { byDelegation: s.byDelegation }),
  }
}

/**
 * A deployed tick's configuration: the stack's API URL and the API's payment terms (its asset and
 * payTo, resolved the same way the API resolves them). No URL: undefined, and the terms are never read.
 */
export async function selfExtensionFor(
  apiUrl: string | undefined,
  runtimeCostPerHour: bigint,
  terms: () => Promise<PaymentTerms>,
): Promise<SelfExtensionConfig | undefined> {
  if (!apiUrl) return undefined
  if (!URL.canParse(apiUrl) || !/^https?:$/.test(new URL(apiUrl).protocol))
    throw new BardoError('INVALID_CONFIG', 'BARDO_API_URL: must be an http(s) URL', { details: { field: 'BARDO_API_URL' } })
  const { asset, payTo, tokenName, tokenVersion } = await terms()
  return selfExtensionConfig({
    apiUrl,
    asset,
    payee: payTo,
    runtimeCostPerHour,
    ...(tokenName === undefined ? {} : { assetName: tokenName }),
    ...(tokenVersion === undefined ? {} : { assetVersion: tokenVersion }),
  })
}
