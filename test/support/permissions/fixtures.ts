import type { Address, Hex } from 'viem'
import { localRegistry, publicRegistry, type ProtocolRegistry } from '../../../core/permissions/protocolRegistry.ts'

/** Fixed inputs for the strategy corpus: one clock, one owner, one session key, fixed local addresses. */
export const NOW = 1_700_000_000
export const DAY = 86_400
export const OWNER: Address = '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720'
export const SESSION_KEY: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'

export const L = {
  usdc: '0x1000000000000000000000000000000000000001',
  weth: '0x2000000000000000000000000000000000000002',
  router: '0x3000000000000000000000000000000000000003',
  vault: '0x4000000000000000000000000000000000000004',
  priceFeed: '0x5000000000000000000000000000000000000005',
} as const satisfies Record<string, Address>
export const BASE_VAULT: Address = '0x6000000000000000000000000000000000000006'

/** The bridge destination the corpus's bridging owners name: Arbitrum (CCTP domain 3), anyone relays, no fee. */
export const ARBITRUM_DOMAIN = 3

export const REGISTRIES = {
  local: () => localRegistry(L),
  base: () => publicRegistry(8453),
  baseWithBridge: () => publicRegistry(8453, { bridge: { destinationDomain: ARBITRUM_DOMAIN } }),
  baseWithVault: () => publicRegistry(8453, { vaults: [BASE_VAULT], bridge: { destinationDomain: ARBITRUM_DOMAIN } }),
  baseSepolia: () => publicRegistry(84532, { bridge: { destinationDomain: ARBITRUM_DOMAIN } }),
} satisfies Record<string, () => ProtocolRegistry>

/** Written out (not imported from selectors.ts) so the corpus is an independent statement. */
export const SEL = {
  transfer: '0xa9059cbb',
  approve: '0x095ea7b3',
  exactInputSingle: '0x04e45aaf',
  exactInput: '0xb858183f',
  deposit: '0x6e553f65',
  withdraw: '0xb460af94',
  redeem: '0xba087652',
  mint4626: '0x94bf804d',
  lpMint: '0x88316456',
  increase: '0x219f5d17',
  decrease: '0x0c49ccbe',
  collect: '0xfc6f7865',
  burn: '0x8e0250ee',
} as const satisfies Record<string, Hex>
