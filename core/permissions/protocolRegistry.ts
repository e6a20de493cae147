import { getAddress, isAddress, zeroAddress, type Address, type Hex } from 'viem'
import type { Capability } from './capabilities.ts'
import { bridgeLayout, CALL_LAYOUTS, type CallLayout, type ProtocolFunctionName } from './callLayouts.ts'
import { StrategyCompileError } from './errors.ts'
import { SELECTOR_SIGNATURES, SELECTORS } from './selectors.ts'

/**
 * A function the Golem may call and where it names its receiver. The layout is required: the compiler
 * refuses a function whose layout is missing, so no receiver-bearing call is ever granted unpinned.
 */
export type ProtocolFunction = { readonly name: string; readonly selector: Hex; readonly layout: CallLayout }
/** One contract the Golem may call and the functions it may call on it. */
export type ContractCall = { readonly name: string; readonly target: Address; readonly functions: readonly ProtocolFunction[] }
/** An ERC-20 approval a capability needs: `token.approve(spender, ...)`. */
export type TokenApproval = { readonly token: Address; readonly spender: Address }
/**
 * What a capability needs: its protocol calls, and the approvals the protocol pulls with. `approve` is
 * never one of the calls: AllowedMethods cannot say whom it may name, so each spender gets a delegation
 * of its own with the spender pinned (core/delegations buildGolemDelegation `approvals`).
 */
export type CapabilityProtocols = { readonly calls: readonly ContractCall[]; readonly approvals: readonly TokenApproval[] }

export type ProtocolRegistry = {
  readonly chainId: number
  readonly name: string
  /**
   * The runway token: the 7715 erc20-token-periodic permission (or the grant's runway delegation) moves
   * it. Its `transfer` is never a call of a capability: AllowedMethods cannot pin the recipient.
   */
  readonly usdc: Address
  readonly weth: Address
  readonly priceFeed?: Address
  /** A capability missing here cannot be served on this chain: compiling a strategy that asks for it fails. */
  readonly capabilities: Partial<Record<Capability, CapabilityProtocols>>
  /** Why a capability this chain could serve is not served by this registry (what the owner must configure). */
  readonly unserved?: Partial<Record<Capability, string>>
}

/**
 * Where the Golem may bridge the owner's USDC. Every depositForBurn is pinned to it, and the mint
 * recipient to the owner's own account, so the owner must name a destination where that account is theirs.
 */
export type BridgeDestination = {
  /** CCTP domain of the destination chain (0 Ethereum, 2 OP Mainnet, 3 Arbitrum, 6 Base, ...). */
  readonly destinationDomain: number
  /** The only account that may relay the message on the destination; default the zero address: anyone. */
  readonly destinationCaller?: Address
  /**
   * The fee every transfer names as its maximum, USDC base units; default 0 (a standard transfer, no
   * fee). CCTP takes at most this, and refuses a transfer of an amount not above it.
   */
  readonly maxFee?: bigint
}

/** CCTP's own domain for the public chains (a bridge to itself is refused). */
const CCTP_DOMAIN: Record<number, number> = { [8453]: 6, [84532]: 6 }
/** CCTP domains that are not EVM chains: the owner's EVM account, pinned as mint recipient, is not theirs there. */
const NON_EVM_CCTP_DOMAINS: Record<number, string> = { 4: 'Noble', 5: 'Solana' }
const BRIDGE_UNSERVED =
  'the owner must name the bridge destination (CCTP destination domain, and optionally the destination caller and maximum fee): every transfer is pinned to it'

function checkBridgeDestination(field: string, d: BridgeDestination, ownDomain: number | undefined): Required<BridgeDestination> {
  if (!Number.isSafeInteger(d.destinationDomain) || d.destinationDomain < 0 || d.destinationDomain > 0xffff_ffff) {
    throw new StrategyCompileError(`${field}.destinationDomain`, `must be a uint32 CCTP domain, got ${String(d.destinationDomain)}`)
  }
  const nonEvm = NON_EVM_CCTP_DOMAINS[d.destinationDomain]
  if (nonEvm !== undefined) {
    throw new StrategyCompileError(
      `${field}.destinationDomain`,
      `${d.destinationDomain} is ${nonEvm}, not an EVM chain: the mint recipient is pinned to the owner's EVM account, which is not theirs there`,
    )
  }
  if (ownDomain !== undefined && d.destinationDomain === ownDomain) {
    throw new StrategyCompileError(
      `${field}.destinationDomain`,
      `${d.destinationDomain} is this chain's own CCTP domain; a bridge must go elsewhere`,
    )
  }
  const destinationCaller = d.destinationCaller === undefined ? zeroAddress : d.destinationCaller
  if (typeof destinationCaller !== 'string' || !isAddress(destinationCaller)) {
    throw new StrategyCompileError(
      `${field}.destinationCaller`,
      `must be a 20-byte hex address (the zero address lets anyone relay), got ${JSON.stringify(destinationCaller)}`,
    )
  }
  const maxFee = d.maxFee ?? 0n
  if (typeof maxFee !== 'bigint' || maxFee < 0n || maxFee >= 2n ** 256n) {
    throw new StrategyCompileError(`${field}.maxFee`, `must be a non-negative bigint of USDC base units, got ${String(maxFee)}`)
  }
  return { destinationDomain: d.destinationDomain, destinationCaller: getAddress(destinationCaller), maxFee }
}

export const BASE_CHAIN_ID = 8453
export const BASE_SEPOLIA_CHAIN_ID = 84532
export const LOCAL_CHAIN_ID = 31337
export const SUPPORTED_CHAIN_IDS: readonly number[] = [BASE_CHAIN_ID, BASE_SEPOLIA_CHAIN_ID, LOCAL_CHAIN_ID]

/**
 * Public deployments, each checked against a published source (docs/strategy-compiler.md has the table).
 * Bridge is Circle CCTP V2: USDC is the runway token, and CCTP burns and mints native USDC with no pool
 * or third-party liquidity in between.
 */
export const PUBLIC_ADDRESSES = {
  [BASE_CHAIN_ID]: {
    name: 'Base',
    usdc: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    weth: '0x4200000000000000000000000000000000000006',
    swapRouter02: '0x2626664c2603336E57B271c5C0b26F421741e481',
    positionManager: '0x03a520b32C04BF3bEEf7BEb72E919cf822Ed34f1',
    cctpTokenMessengerV2: '0x28b5a0e9C621a5BadaA536219b3a228C8168cf5d',
  },
  [BASE_SEPOLIA_CHAIN_ID]: {
    name: 'Base Sepolia',
    usdc: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
    weth: '0x4200000000000000000000000000000000000006',
    swapRouter02: '0x94cC0AaC535CCDB3C01d6787D6413C739ae12bc4',
    positionManager: '0x27F971cb582BF9E50F397e4d29a5C7A34f11faA2',
    cctpTokenMessengerV2: '0x8FE6B999Dc680CcFDD5Bf7EB0974218be2542DAA',
  },
} as const satisfies Record<number, Record<string, string>>

/** A function of CALL_LAYOUTS, by its ABI name, with its selector and receiver layout. */
const fn = (key: ProtocolFunctionName): ProtocolFunction => ({
  name: SELECTOR_SIGNATURES[key].slice(0, SELECTOR_SIGNATURES[key].indexOf('(')),
  selector: SELECTORS[key],
  layout: CALL_LAYOUTS[key],
})

/** A capability's own protocol calls, and the (token, spender) approvals the protocol pulls with. */
function protocols(calls: ContractCall[], approvals: TokenApproval[]): CapabilityProtocols {
  return { calls, approvals }
}

function swap(usdc: Address, weth: Address, router: Address): CapabilityProtocols {
  return protocols(
    [{ name: 'Uniswap SwapRouter02', target: router, functions: [fn('exactInputSingle'), fn('exactInput')] }],
    [
      { token: usdc, spender: router },
      { token: weth, spender: router },
    ],
  )
}

function liquidity(usdc: Address, weth: Address, manager: Address): CapabilityProtocols {
  return protocols(
    [
      {
        name: 'Uniswap V3 NonfungiblePositionManager',
        target: manager,
        // increaseLiquidity is listed as unpinnable: the compiler leaves it out with a warning.
        // decreaseLiquidity is granted with MaxSlippage (its pool priced against the feeds).
        functions: [fn('positionMint'), fn('increaseLiquidity'), fn('decreaseLiquidity'), fn('collect')],
      },
    ],
    [
      { token: usdc, spender: manager },
      { token: weth, spender: manager },
    ],
  )
}

function vaults(usdc: Address, addresses: readonly Address[]): CapabilityProtocols {
  return protocols(
    addresses.map((vault) => ({
      name: 'ERC-4626 vault',
      target: vault,
      functions: [fn('vaultDeposit'), fn('vaultWithdraw'), fn('vaultRedeem'), fn('vaultMint')],
    })),
    addresses.map((vault) => ({ token: usdc, spender: vault })),
  )
}

function bridge(usdc: Address, messenger: Address, destination: Required<BridgeDestination>): CapabilityProtocols {
  const depositForBurn: ProtocolFunction = { ...fn('cctpDepositForBurn'), layout: bridgeLayout({ usdc, ...destination }) }
  return protocols(
    [{ name: 'Circle CCTP V2 TokenMessengerV2', target: messenger, functions: [depositForBurn] }],
    [{ token: usdc, spender: messenger }],
  )
}

/** Replicants are sub-delegations signed off-chain; they add no call target (their budget is a caveat). */
const REPLICANTS: CapabilityProtocols = { calls: [], approvals: [] }

function checkAddress(field: string, value: unknown): Address {
  if (typeof value !== 'string' || !isAddress(value) || value.toLowerCase() === zeroAddress) {
    throw new StrategyCompileError(
      field,
      `must be a non-zero 20-byte hex address (checksum-valid if mixed case), got ${JSON.stringify(value)}`,
    )
  }
  return getAddress(value)
}

export type PublicRegistryOptions = {
  /**
   * ERC-4626 vaults the owner allows. No vault is canonical on Base, so VaultManagement is served only
   * when the owner names the vaults; without them a vault strategy fails to compile.
   */
  vaults?: readonly Address[]
  /** Where the Golem may bridge USDC; without it Bridge is not served. */
  bridge?: BridgeDestination
}

/** The registry for Base (8453) or Base Sepolia (84532). */
export function publicRegistry(chainId: number, options: PublicRegistryOptions = {}): ProtocolRegistry {
  if (chainId !== BASE_CHAIN_ID && chainId !== BASE_SEPOLIA_CHAIN_ID) {
    throw new StrategyCompileError(
      'chainId',
      `no public registry for chain ${chainId}; supported: ${BASE_CHAIN_ID}, ${BASE_SEPOLIA_CHAIN_ID}`,
    )
  }
  const a = PUBLIC_ADDRESSES[chainId]
  const vaultList = (options.vaults ?? []).map((v, i) => checkAddress(`vaults[${i}]`, v))
  const destination = options.bridge === undefined ? undefined : checkBridgeDestination('bridge', options.bridge, CCTP_DOMAIN[chainId])
  return {
    chainId,
    name: a.name,
    usdc: a.usdc,
    weth: a.weth,
    ...(destination === undefined ? { unserved: { Bridge: BRIDGE_UNSERVED } } : {}),
    capabilities: {
      Swap: swap(a.usdc, a.weth, a.swapRouter02),
      ProvideLiquidity: liquidity(a.usdc, a.weth, a.positionManager),
      ...(vaultList.length > 0 ? { VaultManagement: vaults(a.usdc, vaultList) } : {}),
      ...(destination === undefined ? {} : { Bridge: bridge(a.usdc, a.cctpTokenMessengerV2, destination) }),
      SpawnReplicants: REPLICANTS,
      // LimitOrders is absent on purpose: UniswapX orders are Permit2 signatures by the swapper, and a
      // delegation lets the Golem execute calls from the owner's account, not sign (ERC-1271) for it.
    },
  }
}

/** What the local devnet deployed (contracts/src/test-assets). */
export type LocalAssetAddresses = {
  usdc: Address
  /** WETH-like token paired with USDC in the local router. */
  weth: Address
  /** Uniswap-style router exposing SwapRouter02's exactInputSingle/exactInput selectors. */
  router: Address
  /** ERC-4626 vault over the local USDC. */
  vault: Address
  /** Read-only (never a call target); optional because the devnet deploys one feed per token. */
  priceFeed?: Address
  /** Optional: a NonfungiblePositionManager-shaped contract, if the devnet deploys one. */
  positionManager?: Address
  /** Optional: a CCTP TokenMessengerV2-shaped contract, if the devnet deploys one. */
  bridge?: Address
}

/** The registry for the local chain (31337), built at runtime from the deployed addresses. */
export function localRegistry(addresses: LocalAssetAddresses, options: { bridge?: BridgeDestination } = {}): ProtocolRegistry {
  const usdc = checkAddress('addresses.usdc', addresses.usdc)
  const weth = checkAddress('addresses.weth', addresses.weth)
  const router = checkAddress('addresses.router', addresses.router)
  const vault = checkAddress('addresses.vault', addresses.vault)
  const priceFeed = addresses.priceFeed === undefined ? undefined : checkAddress('addresses.priceFeed', addresses.priceFeed)
  const manager = addresses.positionManager === undefined ? undefined : checkAddress('addresses.positionManager', addresses.positionManager)
  const messenger = addresses.bridge === undefined ? undefined : checkAddress('addresses.bridge', addresses.bridge)
  const destination = options.bridge === undefined ? undefined : checkBridgeDestination('bridge', options.bridge, undefined)
  const served = messenger !== undefined && destination !== undefined
  return {
    chainId: LOCAL_CHAIN_ID,
    name: 'Local devnet',
    usdc,
    weth,
    ...(priceFeed === undefined ? {} : { priceFeed }),
    ...(messenger !== undefined && destination === undefined ? { unserved: { Bridge: BRIDGE_UNSERVED } } : {}),
    capabilities: {
      Swap: swap(usdc, weth, router),
      VaultManagement: vaults(usdc, [vault]),
      ...(manager === undefined ? {} : { ProvideLiquidity: liquidity(usdc, weth, manager) }),
      ...(served ? { Bridge: bridge(usdc, messenger, destination) } : {}),
      SpawnReplicants: REPLICANTS,
    },
  }
}
