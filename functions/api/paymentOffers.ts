// What a 402 offers to be paid with: the EIP-3009 requirement first (what a stock EIP-3009 client
// picks), then, when ERC-7710 is accepted, the same price marked by @metamask/x402's server scheme with
// `assetTransferMethod: "erc7710"` and Bardo's settlement account as the facilitator address: the only
// redeemer a payer's delegation may name.
import { x402ExactEvmErc7710ServerScheme } from '@metamask/x402'
import type { PaymentRequirements } from '@x402/core/types'
import type { Address } from 'viem'
import { ERC7710_ASSET_TRANSFER_METHOD, X402_VERSION } from '../../core/x402/index.ts'

export type PaymentOffers = (requirements: PaymentRequirements) => Promise<PaymentRequirements[]>

/** Without `erc7710`, the EIP-3009 requirement alone. */
export function createPaymentOffers(o: { erc7710?: { facilitator: Address } }): PaymentOffers {
  const erc7710 = o.erc7710
  if (erc7710 === undefined) return async (requirements) => [requirements]
  const scheme = new x402ExactEvmErc7710ServerScheme()
  return async (requirements) => {
    const marked = await scheme.enhancePaymentRequirements(
      // A delegation is no EIP-712 transfer authorization: the token's domain means nothing to it.
      { ...requirements, extra: { assetTransferMethod: ERC7710_ASSET_TRANSFER_METHOD } },
      {
        x402Version: X402_VERSION,
        scheme: requirements.scheme,
        network: requirements.network,
        extra: { facilitatorAddresses: [erc7710.facilitator] },
      },
      [],
    )
    return [requirements, marked]
  }
}
