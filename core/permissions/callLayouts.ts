import { numberToHex, pad, type Address, type Hex } from 'viem'
import { SELECTORS } from './selectors.ts'
import { InvariantError } from '../errors.ts'

/**
 * Where a call names who receives what it produces. AllowedTargets and AllowedMethods say which function
 * may be called, not with which arguments, so a leaked key could name itself as a swap's recipient or a
 * vault's receiver. Each receiver is a static ABI word at a fixed byte offset of the calldata (selector
 * included), which the framework's AllowedCalldataEnforcer pins to the owner's smart account.
 *
 * - `receivers`: the byte offsets of the words that must hold the owner's account; `fixed`: words that
 *   must hold a constant so the receiver is read where it is pinned (a dynamic tuple's offset word: with
 *   it free, calldata could put the owner at the pinned bytes and the real tuple, with another recipient,
 *   further on).
 * - `none`: the call names no receiver (what it produces stays with the owner's account or its position).
 * - `unpinnable`: the call can benefit someone else, or lose value, in a way no calldata pin can stop;
 *   never granted.
 *
 * callLayouts.test.ts checks every offset against viem's encodeFunctionData of the real signature.
 */
export type CallLayout =
  | { readonly kind: 'receivers'; readonly receivers: readonly ReceiverWord[]; readonly fixed?: readonly FixedWord[] }
  | { readonly kind: 'none'; readonly why: string }
  | { readonly kind: 'unpinnable'; readonly why: string }
/** An ABI word that must hold the owner's smart account: `argument` names it for people. */
export type ReceiverWord = { readonly argument: string; readonly startIndex: number }
/** An ABI word that must hold exactly `value` (32 bytes). */
export type FixedWord = { readonly argument: string; readonly startIndex: number; readonly value: Hex }

/** The head word of a single dynamic tuple argument: its offset, 0x20, as every standard encoder writes it. */
export const TUPLE_OFFSET_WORD: Hex = `0x${'20'.padStart(64, '0')}`

export type ProtocolFunctionName = Exclude<
  keyof typeof SELECTORS,
  'erc20Transfer' | 'erc20TransferFrom' | 'erc20Approve' | 'erc20IncreaseAllowance'
>

/** The layout of every protocol function a capability may call. A function missing here cannot be granted. */
export const CALL_LAYOUTS: Record<ProtocolFunctionName, CallLayout> = {
  // SwapRouter02 exactInputSingle((tokenIn, tokenOut, fee, recipient, ...)): a static tuple, encoded in
  // place; recipient is its 4th word.
  exactInputSingle: { kind: 'receivers', receivers: [{ argument: 'params.recipient', startIndex: 100 }] },
  // exactInput((bytes path, address recipient, ...)): a dynamic tuple. Byte 4 holds its offset (0x20), the
  // tuple starts at 36, its head is (path offset, recipient, amountIn, amountOutMinimum).
  exactInput: {
    kind: 'receivers',
    receivers: [{ argument: 'params.recipient', startIndex: 68 }],
    fixed: [{ argument: 'params (tuple offset)', startIndex: 4, value: TUPLE_OFFSET_WORD }],
  },
  vaultDeposit: { kind: 'receivers', receivers: [{ argument: 'receiver', startIndex: 36 }] },
  vaultMint: { kind: 'receivers', receivers: [{ argument: 'receiver', startIndex: 36 }] },
  // withdraw/redeem(amount, receiver, owner): the assets go to receiver, the shares burnt are owner's.
  vaultWithdraw: {
    kind: 'receivers',
    receivers: [
      { argument: 'receiver', startIndex: 36 },
      { argument: 'owner', startIndex: 68 },
    ],
  },
  vaultRedeem: {
    kind: 'receivers',
    receivers: [
      { argument: 'receiver', startIndex: 36 },
      { argument: 'owner', startIndex: 68 },
    ],
  },
  // NonfungiblePositionManager mint(MintParams): a static tuple of 11 words; recipient is the 10th.
  positionMint: { kind: 'receivers', receivers: [{ argument: 'params.recipient', startIndex: 292 }] },
  // collect((tokenId, recipient, amount0Max, amount1Max)).
  collect: { kind: 'receivers', receivers: [{ argument: 'params.recipient', startIndex: 36 }] },
  // decreaseLiquidity((tokenId, liquidity, amount0Min, amount1Min, deadline)): what it removes stays in the
  // position as tokensOwed, which only collect (its recipient pinned to the owner) pays out. Its price bound
  // is MaxSlippage's: the delegation granting it must carry that caveat (buildGolemDelegation refuses it
  // without), which refuses a removal while the pool's price is off the feeds.
  decreaseLiquidity: {
    kind: 'none',
    why: "what it removes stays in the owner's position until collect pays it to the owner's account",
  },
  increaseLiquidity: {
    kind: 'unpinnable',
    why: "it adds the owner's tokens to any tokenId, including a position someone else owns, and which positions are the owner's is not a calldata word",
  },
  // depositForBurn(amount, destinationDomain, mintRecipient, burnToken, destinationCaller, maxFee,
  // minFinalityThreshold): mintRecipient is a bytes32 holding the address left-padded, like an address word.
  // The destination words are the owner's configuration, not constants: bridgeLayout adds their pins.
  cctpDepositForBurn: { kind: 'receivers', receivers: [{ argument: 'mintRecipient', startIndex: 68 }] },
}

/** Why a bridge call must pin more than its mint recipient. */
export const BRIDGE_PIN_RULE =
  "a bridge transfer must pin its destination domain, burnt token, destination caller and maximum fee, or a leaked key could send the owner's USDC to a chain where the owner's address is not theirs, hand the mint to a relayer of its own, or pay any fee"

/** depositForBurn's words besides mintRecipient that decide where the USDC goes and what it pays. */
export const CCTP_PINNED_WORDS = { destinationDomain: 36, burnToken: 100, destinationCaller: 132, maxFee: 164 } as const

/**
 * depositForBurn's layout for one configured destination: mintRecipient pinned to the owner, and the
 * destination domain, the burnt token, the destination caller and the maximum fee pinned to the
 * configuration, so a leaked key cannot send the owner's USDC to another chain (or a non-EVM one, where
 * the owner's address means nothing), hand the mint to a relayer of its own, or pay a larger fee.
 */
export function bridgeLayout(p: { usdc: Address; destinationDomain: number; destinationCaller: Address; maxFee: bigint }): CallLayout {
  const base = CALL_LAYOUTS.cctpDepositForBurn
  if (base.kind !== 'receivers') throw new InvariantError('CALL_LAYOUT', 'cctpDepositForBurn has a receivers layout')
  return {
    ...base,
    fixed: [
      {
        argument: 'destinationDomain',
        startIndex: CCTP_PINNED_WORDS.destinationDomain,
        value: numberToHex(p.destinationDomain, { size: 32 }),
      },
      { argument: 'burnToken', startIndex: CCTP_PINNED_WORDS.burnToken, value: pad(p.usdc.toLowerCase() as Hex) },
      {
        argument: 'destinationCaller',
        startIndex: CCTP_PINNED_WORDS.destinationCaller,
        value: pad(p.destinationCaller.toLowerCase() as Hex),
      },
      { argument: 'maxFee', startIndex: CCTP_PINNED_WORDS.maxFee, value: numberToHex(p.maxFee, { size: 32 }) },
    ],
  }
}

/** The layout of a selector, if it is one of CALL_LAYOUTS's functions. */
export function layoutOfSelector(selector: Hex): { name: ProtocolFunctionName; layout: CallLayout } | undefined {
  for (const [name, layout] of Object.entries(CALL_LAYOUTS) as [ProtocolFunctionName, CallLayout][]) {
    if (SELECTORS[name] === selector.toLowerCase()) return { name, layout }
  }
  return undefined
}

/** The receiver offsets a layout pins (none for `none`), sorted. */
export const receiverOffsets = (layout: CallLayout): number[] =>
  layout.kind === 'receivers' ? layout.receivers.map((r) => r.startIndex).sort((a, b) => a - b) : []
