// Every receiver offset of CALL_LAYOUTS, proven against viem's ABI encoding of the real signature: the
// word at each offset of encodeFunctionData(...) is the receiver argument, and nothing else is.
import { encodeFunctionData, getAddress, pad, parseAbiItem, slice, toFunctionSelector, type Abi, type Address, type Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { CALL_LAYOUTS, layoutOfSelector, TUPLE_OFFSET_WORD, type ProtocolFunctionName } from './callLayouts.ts'
import { SELECTORS, SELECTOR_SIGNATURES } from './selectors.ts'

const RECEIVER: Address = getAddress('0x00000000000000000000000000000000000A11CE')
const OTHER: Address = getAddress('0x000000000000000000000000000000000000bEEF')
const word = (a: Address): Hex => pad(a.toLowerCase() as Hex)

// Arguments with every receiver = RECEIVER and every other address = OTHER, numbers distinct and small.
const ARGS: Record<ProtocolFunctionName, (r: Address) => readonly unknown[]> = {
  exactInputSingle: (r) => [
    { tokenIn: OTHER, tokenOut: OTHER, fee: 500, recipient: r, amountIn: 7n, amountOutMinimum: 8n, sqrtPriceLimitX96: 9n },
  ],
  exactInput: (r) => [{ path: `0x${'ab'.repeat(43)}`, recipient: r, amountIn: 7n, amountOutMinimum: 8n }],
  vaultDeposit: (r) => [7n, r],
  vaultMint: (r) => [7n, r],
  vaultWithdraw: (r) => [7n, r, r],
  vaultRedeem: (r) => [7n, r, r],
  positionMint: (r) => [
    {
      token0: OTHER,
      token1: OTHER,
      fee: 500,
      tickLower: -10,
      tickUpper: 10,
      amount0Desired: 1n,
      amount1Desired: 2n,
      amount0Min: 3n,
      amount1Min: 4n,
      recipient: r,
      deadline: 5n,
    },
  ],
  collect: (r) => [{ tokenId: 7n, recipient: r, amount0Max: 8n, amount1Max: 9n }],
  decreaseLiquidity: () => [{ tokenId: 7n, liquidity: 8n, amount0Min: 1n, amount1Min: 2n, deadline: 3n }],
  increaseLiquidity: () => [{ tokenId: 7n, amount0Desired: 1n, amount1Desired: 2n, amount0Min: 3n, amount1Min: 4n, deadline: 5n }],
  cctpDepositForBurn: (r) => [7n, 3, word(r), OTHER, pad('0x00'), 8n, 1000],
}

// Named ABI items (the tuple component names matter only to viem's argument objects).
const ABI: Record<ProtocolFunctionName, string> = {
  exactInputSingle:
    'function exactInputSingle((address tokenIn, address tokenOut, uint24 fee, address recipient, uint256 amountIn, uint256 amountOutMinimum, uint160 sqrtPriceLimitX96) params)',
  exactInput: 'function exactInput((bytes path, address recipient, uint256 amountIn, uint256 amountOutMinimum) params)',
  vaultDeposit: 'function deposit(uint256 assets, address receiver)',
  vaultMint: 'function mint(uint256 shares, address receiver)',
  vaultWithdraw: 'function withdraw(uint256 assets, address receiver, address owner)',
  vaultRedeem: 'function redeem(uint256 shares, address receiver, address owner)',
  positionMint:
    'function mint((address token0, address token1, uint24 fee, int24 tickLower, int24 tickUpper, uint256 amount0Desired, uint256 amount1Desired, uint256 amount0Min, uint256 amount1Min, address recipient, uint256 deadline) params)',
  collect: 'function collect((uint256 tokenId, address recipient, uint128 amount0Max, uint128 amount1Max) params)',
  decreaseLiquidity:
    'function decreaseLiquidity((uint256 tokenId, uint128 liquidity, uint256 amount0Min, uint256 amount1Min, uint256 deadline) params)',
  increaseLiquidity:
    'function increaseLiquidity((uint256 tokenId, uint256 amount0Desired, uint256 amount1Desired, uint256 amount0Min, uint256 amount1Min, uint256 deadline) params)',
  cctpDepositForBurn:
    'function depositForBurn(uint256 amount, uint32 destinationDomain, bytes32 mintRecipient, address burnToken, bytes32 destinationCaller, uint256 maxFee, uint32 minFinalityThreshold)',
}

const encode = (name: ProtocolFunctionName, r: Address): Hex => {
  const item = parseAbiItem(ABI[name])
  return encodeFunctionData({ abi: [item] as Abi, args: ARGS[name](r) as unknown[] })
}
const wordsOf = (data: Hex): Hex[] => Array.from({ length: (data.length - 10) / 64 }, (_, i) => slice(data, 4 + i * 32, 36 + i * 32))

describe('CALL_LAYOUTS', () => {
  it.each(Object.keys(CALL_LAYOUTS) as ProtocolFunctionName[])('%s: selector and every pinned word match the ABI encoding', (name) => {
    const layout = CALL_LAYOUTS[name]
    expect(toFunctionSelector(ABI[name])).toBe(SELECTORS[name])
    expect(toFunctionSelector(`function ${SELECTOR_SIGNATURES[name]}`)).toBe(SELECTORS[name])
    expect(layoutOfSelector(SELECTORS[name])).toEqual({ name, layout })
    const data = encode(name, RECEIVER)
    expect(slice(data, 0, 4)).toBe(SELECTORS[name])
    if (layout.kind !== 'receivers') {
      // No word of the calldata is an address the call pays: the encoding has no receiver slot at all.
      expect(wordsOf(data)).not.toContain(word(RECEIVER))
      return
    }
    for (const r of layout.receivers) expect(slice(data, r.startIndex, r.startIndex + 32), r.argument).toBe(word(RECEIVER))
    for (const f of layout.fixed ?? []) expect(slice(data, f.startIndex, f.startIndex + 32), f.argument).toBe(f.value)
    // ...and exactly those words: with another receiver only the pinned words change.
    const other = wordsOf(encode(name, OTHER))
    const changed = wordsOf(data).flatMap((w, i) => (w === other[i] ? [] : [4 + i * 32]))
    expect(changed).toEqual(layout.receivers.map((r) => r.startIndex).sort((a, b) => a - b))
  })

  it('the offset table', () => {
    const table = Object.fromEntries(
      (Object.entries(CALL_LAYOUTS) as [ProtocolFunctionName, (typeof CALL_LAYOUTS)[ProtocolFunctionName]][]).map(([name, l]) => [
        name,
        l.kind === 'receivers'
          ? [
              ...l.receivers.map((r) => `${r.argument}@${r.startIndex}`),
              ...(l.fixed ?? []).map((f) => `${f.argument}@${f.startIndex}=0x20`),
            ]
          : l.kind,
      ]),
    )
    expect(table).toEqual({
      exactInputSingle: ['params.recipient@100'],
      exactInput: ['params.recipient@68', 'params (tuple offset)@4=0x20'],
      vaultDeposit: ['receiver@36'],
      vaultMint: ['receiver@36'],
      vaultWithdraw: ['receiver@36', 'owner@68'],
      vaultRedeem: ['receiver@36', 'owner@68'],
      positionMint: ['params.recipient@292'],
      collect: ['params.recipient@36'],
      decreaseLiquidity: 'none',
      increaseLiquidity: 'unpinnable',
      cctpDepositForBurn: ['mintRecipient@68'],
    })
    expect(TUPLE_OFFSET_WORD).toBe(pad('0x20'))
  })

  it('has no layout for the calls that are never granted as actions', () => {
    for (const s of [SELECTORS.erc20Transfer, SELECTORS.erc20TransferFrom, SELECTORS.erc20Approve, SELECTORS.erc20IncreaseAllowance])
      expect(layoutOfSelector(s)).toBeUndefined()
  })
})
