import type { Hex } from 'viem'

/**
 * Real 4-byte selectors of the functions a Golem may call (no placeholders).
 * protocolRegistry.test.ts recomputes every one with viem's toFunctionSelector from its signature.
 */
export const SELECTORS = {
  /** ERC-20 transfer(address,uint256): the runway pull, only through the runway's period-capped delegation. */
  erc20Transfer: '0xa9059cbb',
  /** ERC-20 transferFrom(address,address,uint256): never granted (it names a recipient). */
  erc20TransferFrom: '0x23b872dd',
  /** ERC-20 approve(address,uint256): only in an approvals delegation, its spender pinned. */
  erc20Approve: '0x095ea7b3',
  /** ERC-20 increaseAllowance(address,uint256): never granted (it names a spender like approve). */
  erc20IncreaseAllowance: '0x39509351',
  /** SwapRouter02 exactInputSingle((address,address,uint24,address,uint256,uint256,uint160)). */
  exactInputSingle: '0x04e45aaf',
  /** SwapRouter02 exactInput((bytes,address,uint256,uint256)). */
  exactInput: '0xb858183f',
  /** ERC-4626 deposit(uint256,address). */
  vaultDeposit: '0x6e553f65',
  /** ERC-4626 withdraw(uint256,address,address). */
  vaultWithdraw: '0xb460af94',
  /** ERC-4626 redeem(uint256,address,address). */
  vaultRedeem: '0xba087652',
  /** ERC-4626 mint(uint256,address). */
  vaultMint: '0x94bf804d',
  /** NonfungiblePositionManager mint(MintParams). */
  positionMint: '0x88316456',
  /** NonfungiblePositionManager increaseLiquidity(IncreaseLiquidityParams). */
  increaseLiquidity: '0x219f5d17',
  /** NonfungiblePositionManager decreaseLiquidity(DecreaseLiquidityParams). */
  decreaseLiquidity: '0x0c49ccbe',
  /** NonfungiblePositionManager collect(CollectParams). */
  collect: '0xfc6f7865',
  /** Circle CCTP V2 TokenMessengerV2 depositForBurn(uint256,uint32,bytes32,address,bytes32,uint256,uint32). */
  cctpDepositForBurn: '0x8e0250ee',
} as const satisfies Record<string, Hex>

/** The signature each selector is computed from (kept beside the constant so the test can prove it). */
export const SELECTOR_SIGNATURES: Record<keyof typeof SELECTORS, string> = {
  erc20Transfer: 'transfer(address,uint256)',
  erc20TransferFrom: 'transferFrom(address,address,uint256)',
  erc20Approve: 'approve(address,uint256)',
  erc20IncreaseAllowance: 'increaseAllowance(address,uint256)',
  exactInputSingle: 'exactInputSingle((address,address,uint24,address,uint256,uint256,uint160))',
  exactInput: 'exactInput((bytes,address,uint256,uint256))',
  vaultDeposit: 'deposit(uint256,address)',
  vaultWithdraw: 'withdraw(uint256,address,address)',
  vaultRedeem: 'redeem(uint256,address,address)',
  vaultMint: 'mint(uint256,address)',
  positionMint: 'mint((address,address,uint24,int24,int24,uint256,uint256,uint256,uint256,address,uint256))',
  increaseLiquidity: 'increaseLiquidity((uint256,uint256,uint256,uint256,uint256,uint256))',
  decreaseLiquidity: 'decreaseLiquidity((uint256,uint128,uint256,uint256,uint256))',
  collect: 'collect((uint256,address,uint128,uint128))',
  cctpDepositForBurn: 'depositForBurn(uint256,uint32,bytes32,address,bytes32,uint256,uint32)',
}
