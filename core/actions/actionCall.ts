// What a Golem's runtime may ask custody to do, as the one contract call each request becomes. The
// receiver of a swap's output or a vault's shares defaults to the owner's account, because every
// actions delegation pins it there; naming another receiver is allowed here so the refusal can say why.
import { encodeFunctionData, erc20Abi, getAddress, isAddress, pad, zeroAddress, type Address, type Hex } from 'viem'
import { depositForBurnAbi, erc4626Abi, exactInputAbi, exactInputSingleAbi, positionManagerAbi } from './actionAbi.ts'
import { ActionRequestError } from './errors.ts'
import { encodeSwapPath, type SwapHop } from './swapPath.ts'

/** The most tokens a multi-hop swap may pass through between its input and its output. */
export const MAX_SWAP_VIA = 3

/**
 * `amountIn` of `tokenIn` for at least `amountOutMinimum` of `tokenOut`: SwapRouter02 exactInputSingle,
 * or exactInput along a route when `via` names the tokens it passes through.
 */
export type SwapRequest = {
  kind: 'swap'
  router: Address
  tokenIn: Address
  tokenOut: Address
  /** Fee tier of the pool into `tokenOut`, in hundredths of a bip; default 500 (0.05%). */
  fee?: number
  /** A multi-hop route: each token passed through, in order, with the fee tier of the pool into it (default 500). */
  via?: readonly { token: Address; fee?: number }[]
  amountIn: bigint
  amountOutMinimum: bigint
  /** Default: the owner's account. */
  recipient?: Address
}
/** ERC-4626 deposit(assets, receiver). */
export type DepositRequest = { kind: 'deposit'; vault: Address; assets: bigint; receiver?: Address }
/** ERC-4626 withdraw(assets, receiver, owner). */
export type WithdrawRequest = { kind: 'withdraw'; vault: Address; assets: bigint; receiver?: Address; shareOwner?: Address }
/** ERC-4626 redeem(shares, receiver, owner). */
export type RedeemRequest = { kind: 'redeem'; vault: Address; shares: bigint; receiver?: Address; shareOwner?: Address }
/** ERC-20 approve(spender, amount) on the owner's token. */
export type ApproveRequest = { kind: 'approve'; token: Address; spender: Address; amount: bigint }
/**
 * CCTP V2 depositForBurn: `amount` of `token` (USDC) burnt here and minted to the owner's account on
 * `destinationDomain`. The grant pins the domain, the token, the destination caller and the maximum fee to
 * the owner's configuration, so a request naming others is refused with the pinned byte.
 */
export type BridgeRequest = {
  kind: 'bridge'
  messenger: Address
  token: Address
  amount: bigint
  /** CCTP domain of the destination chain. */
  destinationDomain: number
  /** Who may relay the message there; default the zero address (anyone). */
  destinationCaller?: Address
  /** The most CCTP may take, in the token's base units; default 0. Must be below `amount`. */
  maxFee?: bigint
  /** CCTP V2 finality the transfer waits for: 2000 (finalized, the default) or 1000 (fast). */
  minFinalityThreshold?: number
  /** Default: the owner's account. */
  mintRecipient?: Address
}

/**
 * Uniswap V3 NonfungiblePositionManager mint: a new position of `token0`/`token1` (sorted, as the manager
 * requires) between two ticks. `amount0Min`/`amount1Min` are its price bound: the mint reverts if the pool's
 * price would take less of either. The position goes to the owner's account.
 */
export type ProvideLiquidityRequest = {
  kind: 'provideLiquidity'
  positionManager: Address
  token0: Address
  token1: Address
  /** Pool fee tier in hundredths of a bip; default 500. */
  fee?: number
  tickLower: number
  tickUpper: number
  amount0Desired: bigint
  amount1Desired: bigint
  amount0Min: bigint
  amount1Min: bigint
  /** Unix seconds after which the manager refuses the mint; default none (custody sends at once). */
  deadline?: bigint
  /** Default: the owner's account. */
  recipient?: Address
}
/** NonfungiblePositionManager collect: what a position owes (fees, removed liquidity) paid to the owner. */
export type CollectRequest = {
  kind: 'collect'
  positionManager: Address
  tokenId: bigint
  /** Default: everything owed. */
  amount0Max?: bigint
  amount1Max?: bigint
  /** Default: the owner's account. */
  recipient?: Address
}

/**
 * NonfungiblePositionManager decreaseLiquidity: `liquidity` taken out of position `tokenId`, owed to the
 * position until a collect pays it to the owner. Its price bound is the grant's MaxSlippage: the removal is
 * refused while the position's pool is priced further from the feeds than the cap; `amount0Min`/`amount1Min`
 * are a second bound the manager checks.
 */
export type RemoveLiquidityRequest = {
  kind: 'removeLiquidity'
  positionManager: Address
  tokenId: bigint
  liquidity: bigint
  /** Default 0. */
  amount0Min?: bigint
  /** Default 0. */
  amount1Min?: bigint
  /** Unix seconds after which the manager refuses the removal; default none (custody sends at once). */
  deadline?: bigint
}

export type ActionRequest =
  | SwapRequest
  | DepositRequest
  | WithdrawRequest
  | RedeemRequest
  | ApproveRequest
  | BridgeRequest
  | ProvideLiquidityRequest
  | CollectRequest
  | RemoveLiquidityRequest
export type ActionKind = ActionRequest['kind']
export const ACTION_KINDS = [
  'swap',
  'deposit',
  'withdraw',
  'redeem',
  'approve',
  'bridge',
  'provideLiquidity',
  'collect',
  'removeLiquidity',
] as const satisfies readonly ActionKind[]

/** CCTP V2's standard finality: the transfer is attested once the source chain finalised the burn. */
export const CCTP_FINALIZED = 2_000

/** One call the owner's account makes, as the DelegationManager executes it. */
export type ActionCall = { kind: ActionKind; target: Address; value: bigint; callData: Hex }

const MAX_UINT256 = 2n ** 256n - 1n
const MAX_UINT128 = 2n ** 128n - 1n
/** Uniswap V3's tick range: |tick| <= 887272. */
const MAX_TICK = 887_272

/** Encodes a request as the call the owner's account makes; throws ActionRequestError naming the field for bad input. */
export function encodeActionCall(request: ActionRequest, owner: Address, field = 'request'): ActionCall {
  if (!request || typeof request !== 'object' || !(ACTION_KINDS as readonly string[]).includes((request as { kind?: string }).kind ?? ''))
    throw new ActionRequestError(`${field}.kind`, `must be one of ${ACTION_KINDS.join(', ')}`)
  switch (request.kind) {
    case 'swap': {
      const fee = feeTier(request.fee, `${field}.fee`)
      if (request.via !== undefined) return swapAlongRoute(request, fee, owner, field)
      return {
        kind: 'swap',
        target: addr(request.router, `${field}.router`),
        value: 0n,
        callData: encodeFunctionData({
          abi: exactInputSingleAbi,
          functionName: 'exactInputSingle',
          args: [
            {
              tokenIn: addr(request.tokenIn, `${field}.tokenIn`),
              tokenOut: addr(request.tokenOut, `${field}.tokenOut`),
              fee,
              recipient: addr(request.recipient ?? owner, `${field}.recipient`),
              amountIn: positive(request.amountIn, `${field}.amountIn`),
              amountOutMinimum: amount(request.amountOutMinimum, `${field}.amountOutMinimum`),
              sqrtPriceLimitX96: 0n,
            },
          ],
        }),
      }
    }
    case 'deposit':
      return vaultCall(request.kind, request.vault, field, [
        positive(request.assets, `${field}.assets`),
        addr(request.receiver ?? owner, `${field}.receiver`),
      ])
    case 'withdraw':
      return vaultCall(request.kind, request.vault, field, [
        positive(request.assets, `${field}.assets`),
        addr(request.receiver ?? owner, `${field}.receiver`),
        addr(request.shareOwner ?? owner, `${field}.shareOwner`),
      ])
    case 'redeem':
      return vaultCall(request.kind, request.vault, field, [
        positive(request.shares, `${field}.shares`),
        addr(request.receiver ?? owner, `${field}.receiver`),
        addr(request.shareOwner ?? owner, `${field}.shareOwner`),
      ])
    case 'bridge':
      return bridgeCall(request, owner, field)
    case 'provideLiquidity':
      return mintCall(request, owner, field)
    case 'removeLiquidity':
      return {
        kind: 'removeLiquidity',
        target: addr(request.positionManager, `${field}.positionManager`),
        value: 0n,
        callData: encodeFunctionData({
          abi: positionManagerAbi,
          functionName: 'decreaseLiquidity',
          args: [
            {
              tokenId: amount(request.tokenId, `${field}.tokenId`),
              liquidity: positiveUint128(request.liquidity, `${field}.liquidity`),
              amount0Min: amount(request.amount0Min ?? 0n, `${field}.amount0Min`),
              amount1Min: amount(request.amount1Min ?? 0n, `${field}.amount1Min`),
              deadline: amount(request.deadline ?? MAX_UINT256, `${field}.deadline`),
            },
          ],
        }),
      }
    case 'collect':
      return {
        kind: 'collect',
        target: addr(request.positionManager, `${field}.positionManager`),
        value: 0n,
        callData: encodeFunctionData({
          abi: positionManagerAbi,
          functionName: 'collect',
          args: [
            {
              tokenId: amount(request.tokenId, `${field}.tokenId`),
              recipient: addr(request.recipient ?? owner, `${field}.recipient`),
              amount0Max: uint128(request.amount0Max ?? MAX_UINT128, `${field}.amount0Max`),
              amount1Max: uint128(request.amount1Max ?? MAX_UINT128, `${field}.amount1Max`),
            },
          ],
        }),
      }
    case 'approve':
      return {
        kind: 'approve',
        target: addr(request.token, `${field}.token`),
        value: 0n,
        callData: encodeFunctionData({
          abi: erc20Abi,
          functionName: 'approve',
          args: [addr(request.spender, `${field}.spender`), amount(request.amount, `${field}.amount`)],
        }),
      }
  }
}

/** exactInput along tokenIn -> via... -> tokenOut; every hop must lead to a token other than the one before it. */
function mintCall(request: ProvideLiquidityRequest, owner: Address, field: string): ActionCall {
  const token0 = addr(request.token0, `${field}.token0`)
  const token1 = addr(request.token1, `${field}.token1`)
  if (BigInt(token0) >= BigInt(token1))
    throw new ActionRequestError(`${field}.token1`, 'must sort after token0 (the pool orders its tokens by address)')
  const tickLower = tick(request.tickLower, `${field}.tickLower`)
  const tickUpper = tick(request.tickUpper, `${field}.tickUpper`)
  if (tickUpper <= tickLower) throw new ActionRequestError(`${field}.tickUpper`, 'must be above tickLower')
  const amount0Desired = amount(request.amount0Desired, `${field}.amount0Desired`)
  const amount1Desired = amount(request.amount1Desired, `${field}.amount1Desired`)
  if (amount0Desired === 0n && amount1Desired === 0n)
    throw new ActionRequestError(`${field}.amount0Desired`, 'and amount1Desired must not both be 0')
  const bound = (min: unknown, desired: bigint, name: string) => {
    const v = amount(min, `${field}.${name}`)
    if (v > desired) throw new ActionRequestError(`${field}.${name}`, `must not exceed ${name.replace('Min', 'Desired')}`)
    return v
  }
  return {
    kind: 'provideLiquidity',
    target: addr(request.positionManager, `${field}.positionManager`),
    value: 0n,
    callData: encodeFunctionData({
      abi: positionManagerAbi,
      functionName: 'mint',
      args: [
        {
          token0,
          token1,
          fee: feeTier(request.fee, `${field}.fee`),
          tickLower,
          tickUpper,
          amount0Desired,
          amount1Desired,
          amount0Min: bound(request.amount0Min, amount0Desired, 'amount0Min'),
          amount1Min: bound(request.amount1Min, amount1Desired, 'amount1Min'),
          recipient: addr(request.recipient ?? owner, `${field}.recipient`),
          deadline: amount(request.deadline ?? MAX_UINT256, `${field}.deadline`),
        },
      ],
    }),
  }
}

function tick(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || Math.abs(value) > MAX_TICK)
    throw new ActionRequestError(field, `must be a whole tick within ±${MAX_TICK}`)
  return value
}

function positiveUint128(value: unknown, field: string): bigint {
  const v = uint128(value, field)
  if (v === 0n) throw new ActionRequestError(field, 'must be positive')
  return v
}

function uint128(value: unknown, field: string): bigint {
  const v = amount(value, field)
  if (v > MAX_UINT128) throw new ActionRequestError(field, 'must be a uint128')
  return v
}

function bridgeCall(request: BridgeRequest, owner: Address, field: string): ActionCall {
  const burnt = positive(request.amount, `${field}.amount`)
  const maxFee = amount(request.maxFee ?? 0n, `${field}.maxFee`)
  if (maxFee >= burnt) throw new ActionRequestError(`${field}.maxFee`, 'must be below amount (CCTP refuses a transfer that is all fee)')
  return {
    kind: 'bridge',
    target: addr(request.messenger, `${field}.messenger`),
    value: 0n,
    callData: encodeFunctionData({
      abi: depositForBurnAbi,
      functionName: 'depositForBurn',
      args: [
        burnt,
        uint32(request.destinationDomain, `${field}.destinationDomain`),
        pad(addr(request.mintRecipient ?? owner, `${field}.mintRecipient`)),
        addr(request.token, `${field}.token`),
        pad(addr(request.destinationCaller ?? zeroAddress, `${field}.destinationCaller`)),
        maxFee,
        uint32(request.minFinalityThreshold ?? CCTP_FINALIZED, `${field}.minFinalityThreshold`),
      ],
    }),
  }
}

function uint32(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 0xffff_ffff)
    throw new ActionRequestError(field, 'must be a uint32')
  return value
}

function swapAlongRoute(request: SwapRequest, fee: number, owner: Address, field: string): ActionCall {
  const via = request.via
  if (!Array.isArray(via) || via.length === 0 || via.length > MAX_SWAP_VIA)
    throw new ActionRequestError(`${field}.via`, `must name 1-${MAX_SWAP_VIA} tokens the route passes through`)
  const tokenIn = addr(request.tokenIn, `${field}.tokenIn`)
  const hops: SwapHop[] = via.map((hop, i) => {
    if (!hop || typeof hop !== 'object') throw new ActionRequestError(`${field}.via[${i}]`, 'must be { token, fee? }')
    return { token: addr(hop.token, `${field}.via[${i}].token`), fee: feeTier(hop.fee, `${field}.via[${i}].fee`) }
  })
  hops.push({ token: addr(request.tokenOut, `${field}.tokenOut`), fee })
  hops.forEach((hop, i) => {
    const before = i === 0 ? tokenIn : hops[i - 1]!.token
    if (hop.token === before)
      throw new ActionRequestError(
        i === hops.length - 1 ? `${field}.tokenOut` : `${field}.via[${i}].token`,
        'must differ from the token before it on the route',
      )
  })
  return {
    kind: 'swap',
    target: addr(request.router, `${field}.router`),
    value: 0n,
    callData: encodeFunctionData({
      abi: exactInputAbi,
      functionName: 'exactInput',
      args: [
        {
          path: encodeSwapPath(tokenIn, hops),
          recipient: addr(request.recipient ?? owner, `${field}.recipient`),
          amountIn: positive(request.amountIn, `${field}.amountIn`),
          amountOutMinimum: amount(request.amountOutMinimum, `${field}.amountOutMinimum`),
        },
      ],
    }),
  }
}

function feeTier(value: unknown, field: string): number {
  const fee = value ?? 500
  if (typeof fee !== 'number' || !Number.isInteger(fee) || fee < 0 || fee >= 2 ** 24)
    throw new ActionRequestError(field, 'must be a uint24 fee tier')
  return fee
}

function vaultCall(kind: 'deposit' | 'withdraw' | 'redeem', vault: Address, field: string, args: readonly unknown[]): ActionCall {
  return {
    kind,
    target: addr(vault, `${field}.vault`),
    value: 0n,
    callData: encodeFunctionData({ abi: erc4626Abi, functionName: kind, args } as never),
  }
}

function addr(value: unknown, field: string): Address {
  if (typeof value !== 'string' || !isAddress(value))
    throw new ActionRequestError(field, 'must be a 20-byte 0x address (checksum-valid if mixed case)')
  return getAddress(value)
}

function amount(value: unknown, field: string): bigint {
  if (typeof value !== 'bigint' || value < 0n || value > MAX_UINT256) throw new ActionRequestError(field, 'must be a uint256 bigint')
  return value
}

function positive(value: unknown, field: string): bigint {
  const v = amount(value, field)
  if (v === 0n) throw new ActionRequestError(field, 'must be greater than 0')
  return v
}
