// Reads a Golem's actions back from a redemption transaction: the redeemDelegations calldata holds, per
// permission context, the delegation chain and the calls the owner's account made, which are decoded
// here into what the Golem did (swap, deposit, withdraw, redeem, approve, bridge, provideLiquidity, removeLiquidity, collect,
// other), on which tokens and
// for how much. Pure: the handler adds the vault's asset, the USD value and the caveat names.
import { decodeAbiParameters, decodeFunctionData, erc20Abi, getAddress, hexToBigInt, size, slice, type Address, type Hex } from 'viem'
import { DelegationManager as DelegationManagerAbi } from '@metamask/delegation-abis'
import { decodeDelegations } from '@metamask/smart-accounts-kit/utils'
import { depositForBurnAbi, erc4626Abi, exactInputAbi, exactInputSingleAbi, positionManagerAbi } from '../../core/actions/actionAbi.ts'
import { swapPathEnds } from '../../core/actions/swapPath.ts'
import { SELECTORS } from '../../core/permissions/selectors.ts'
import type { DelegationStruct } from './delegationHash.ts'

export type ActionKind =
  | 'swap'
  | 'deposit'
  | 'withdraw'
  | 'redeem'
  | 'approve'
  | 'bridge'
  | 'provideLiquidity'
  | 'removeLiquidity'
  | 'collect'
  | 'other'

export type Execution = { target: Address; value: bigint; callData: Hex }

/** One permission context of a redeemDelegations call: its chain (leaf first) and the calls it carried. */
export type RedeemedContext = { index: number; chain: DelegationStruct[]; executions: Execution[] }

/**
 * What one call did. `tokens`/`amounts` pair up (a swap: token in then token out, amount in then the
 * minimum out). `valued` is the leg the USD value is taken from (what leaves the owner's account, or
 * what an approval allows); for vault calls it names the vault, whose asset the handler reads.
 */
export type DecodedAction = {
  kind: ActionKind
  selector: Hex | null
  target: Address
  /** Who receives the output or the allowance (swap recipient, vault receiver, approved spender); null if none. */
  counterparty: Address | null
  tokens: Address[]
  amounts: bigint[]
  valued: { token: Address; amount: bigint } | { vault: Address; assets: bigint } | { vault: Address; shares: bigint } | null
}

const EXECUTION_ARRAY = [
  {
    type: 'tuple[]',
    components: [
      { name: 'target', type: 'address' },
      { name: 'value', type: 'uint256' },
      { name: 'callData', type: 'bytes' },
    ],
  },
] as const

const actionAbi = [...exactInputSingleAbi, ...erc4626Abi, ...exactInputAbi] as const
// ERC-7579 call types (the mode's first byte): 0x00 one call, 0x01 a batch.
const CALLTYPE_SINGLE = 0x00
const CALLTYPE_BATCH = 0x01

/** The calls of one context: a single call is packed (target, value, callData), a batch is abi-encoded. */
export function decodeExecutionCalldata(mode: Hex, data: Hex): Execution[] {
  const callType = Number.parseInt(mode.slice(2, 4), 16)
  if (callType === CALLTYPE_SINGLE) {
    if (size(data) < 52) return []
    return [
      {
        target: getAddress(slice(data, 0, 20)),
        value: hexToBigInt(slice(data, 20, 52)),
        callData: size(data) > 52 ? slice(data, 52) : '0x',
      },
    ]
  }
  if (callType === CALLTYPE_BATCH) {
    const [calls] = decodeAbiParameters(EXECUTION_ARRAY, data)
    return calls.map((c) => ({ target: getAddress(c.target), value: c.value, callData: c.callData }))
  }
  return []
}

/** The contexts of a redeemDelegations transaction; null when the input is not that call (a smart account's, say). */
export function decodeRedemptionCalldata(input: Hex): RedeemedContext[] | null {
  // Input the DelegationManager accepted decodes; anything that does not is not read at all.
  try {
    const call = decodeFunctionData({ abi: DelegationManagerAbi, data: input })
    if (call.functionName !== 'redeemDelegations') return null
    const [contexts, modes, calldatas] = call.args
    return contexts.map((context, index) => ({
      index,
      chain: decodeDelegations(context).map((d) => ({
        delegate: d.delegate,
        delegator: d.delegator,
        authority: d.authority,
        caveats: d.caveats,
        salt: BigInt(d.salt),
      })),
      executions:
        modes[index] === undefined || calldatas[index] === undefined ? [] : decodeExecutionCalldata(modes[index], calldatas[index]),
    }))
  } catch {
    return null
  }
}

/** Decodes one call into an action; anything unrecognised (or malformed) is `other`, with its selector. */
export function decodeAction(e: Execution): DecodedAction {
  const selector = size(e.callData) >= 4 ? slice(e.callData, 0, 4) : null
  const other: DecodedAction = { kind: 'other', selector, target: e.target, counterparty: null, tokens: [], amounts: [], valued: null }
  try {
    switch (selector) {
      case SELECTORS.erc20Approve: {
        const { args } = decodeFunctionData({ abi: erc20Abi, data: e.callData })
        const [spender, amount] = args as readonly [Address, bigint]
        return {
          ...other,
          kind: 'approve',
          counterparty: spender,
          tokens: [e.target],
          amounts: [amount],
          valued: { token: e.target, amount },
        }
      }
      case SELECTORS.exactInputSingle: {
        const { args } = decodeFunctionData({ abi: actionAbi, data: e.callData })
        const p = args[0] as { tokenIn: Address; tokenOut: Address; recipient: Address; amountIn: bigint; amountOutMinimum: bigint }
        return {
          ...other,
          kind: 'swap',
          counterparty: p.recipient,
          tokens: [p.tokenIn, p.tokenOut],
          amounts: [p.amountIn, p.amountOutMinimum],
          valued: { token: p.tokenIn, amount: p.amountIn },
        }
      }
      case SELECTORS.exactInput: {
        const { args } = decodeFunctionData({ abi: actionAbi, data: e.callData })
        const p = args[0] as { path: Hex; recipient: Address; amountIn: bigint; amountOutMinimum: bigint }
        const ends = swapPathEnds(p.path)
        if (ends === undefined) return other
        return {
          ...other,
          kind: 'swap',
          counterparty: p.recipient,
          tokens: [ends.tokenIn, ends.tokenOut],
          amounts: [p.amountIn, p.amountOutMinimum],
          valued: { token: ends.tokenIn, amount: p.amountIn },
        }
      }
      case SELECTORS.cctpDepositForBurn: {
        const [amount, , mintRecipient, burnToken] = decodeFunctionData({ abi: depositForBurnAbi, data: e.callData }).args
        return {
          ...other,
          kind: 'bridge',
          counterparty: getAddress(slice(mintRecipient, 12)),
          tokens: [burnToken],
          amounts: [amount],
          valued: { token: burnToken, amount },
        }
      }
      case SELECTORS.positionMint: {
        const mint = decodeFunctionData({ abi: positionManagerAbi, data: e.callData })
        if (mint.functionName !== 'mint') return other
        const [p] = mint.args
        return {
          ...other,
          kind: 'provideLiquidity',
          counterparty: p.recipient,
          tokens: [p.token0, p.token1],
          amounts: [p.amount0Desired, p.amount1Desired],
          valued: { token: p.token0, amount: p.amount0Desired },
        }
      }
      // What a removal takes out stays owed to the position until a collect pays it: no token leaves here.
      case SELECTORS.decreaseLiquidity: {
        const removal = decodeFunctionData({ abi: positionManagerAbi, data: e.callData })
        if (removal.functionName !== 'decreaseLiquidity') return other
        const [p] = removal.args
        return { ...other, kind: 'removeLiquidity', amounts: [p.tokenId, p.liquidity], valued: null }
      }
      case SELECTORS.collect: {
        const collect = decodeFunctionData({ abi: positionManagerAbi, data: e.callData })
        if (collect.functionName !== 'collect') return other
        const [p] = collect.args
        return { ...other, kind: 'collect', counterparty: p.recipient, amounts: [p.tokenId], valued: null }
      }
      case SELECTORS.vaultDeposit:
      case SELECTORS.vaultWithdraw: {
        const { functionName, args } = decodeFunctionData({ abi: actionAbi, data: e.callData })
        const [assets, receiver] = args as readonly [bigint, Address]
        const kind = functionName === 'deposit' ? 'deposit' : 'withdraw'
        return { ...other, kind, counterparty: receiver, amounts: [assets], valued: { vault: e.target, assets } }
      }
      case SELECTORS.vaultRedeem: {
        const { args } = decodeFunctionData({ abi: actionAbi, data: e.callData })
        const [shares, receiver] = args as readonly [bigint, Address]
        return {
          ...other,
          kind: 'redeem',
          counterparty: receiver,
          tokens: [e.target],
          amounts: [shares],
          valued: { vault: e.target, shares },
        }
      }
      default:
        return other
    }
  } catch {
    return other
  }
}

/** The enforcers of a chain's caveats, leaf first, each once. */
export function chainEnforcers(chain: readonly DelegationStruct[]): Address[] {
  const seen = new Set<string>()
  const out: Address[] = []
  for (const d of chain)
    for (const c of d.caveats) {
      const key = c.enforcer.toLowerCase()
      if (!seen.has(key)) {
        seen.add(key)
        out.push(getAddress(c.enforcer))
      }
    }
  return out
}

/**
 * The runway and the gas allowance are the framework's period transfers, not the Golem's strategy: a
 * chain carrying a period-transfer caveat anywhere is not an action.
 */
export function isActionChain(chain: readonly DelegationStruct[], periodEnforcers: readonly string[]): boolean {
  const period = new Set(periodEnforcers.map((a) => a.toLowerCase()))
  return !chain.some((d) => d.caveats.some((c) => period.has(c.enforcer.toLowerCase())))
}

/** A framework or Bardo contract name as a caveat name: `AllowedTargetsEnforcer` -> `allowedTargets`, `ERC20PeriodTransferEnforcer` -> `erc20PeriodTransfer`. */
export function caveatName(contractName: string): string {
  const bare = contractName.endsWith('Enforcer') ? contractName.slice(0, -'Enforcer'.length) : contractName
  return bare.replace(/^[A-Z0-9]+(?=[A-Z][a-z])|^[A-Z]/, (head) => head.toLowerCase())
}
