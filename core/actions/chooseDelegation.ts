// Picks the delegation in the Golem's grant whose caveats cover a call: its target, its method, the ETH
// it sends and every calldata word the delegation pins. When none covers it, the refusal names the
// caveat that stopped the closest one (the one that matched the most, in the order the chain checks).
import type { Delegation } from '@metamask/smart-accounts-kit'
import { getAddress, size, slice, type Hex } from 'viem'
import type { DecodedCaveat } from '../caveats/caveat.ts'
import { labelSelector } from '../caveats/format.ts'
import { pinnedAddress } from '../caveats/semantics.ts'
import type { ActionCall } from './actionCall.ts'
import { describePin, refusalOf, type ActionRefusal } from './refusal.ts'

/** One redeemable delegation of the grant: its chain (leaf first), and the caveats of every link. */
export type GrantedAction = {
  readonly hash: Hex
  /** What it is for: "Swap: exactInputSingle", "approvals: 0x... (router)". */
  readonly label: string
  readonly chain: readonly Delegation[]
  /** Every caveat of the chain, leaf first, in the order each delegation lists them. */
  readonly caveats: readonly DecodedCaveat[]
}

export type ChooseDelegationResult =
  | { ok: true; delegation: GrantedAction }
  /** `closest`: the delegation that matched the most, for a caller that asks the chain to judge anyway. */
  | { ok: false; refusal: ActionRefusal; closest?: GrantedAction }

type Miss = { depth: number; refusal: ActionRefusal; grant?: GrantedAction }

const selectorOf = (callData: Hex): Hex => (size(callData) >= 4 ? slice(callData, 0, 4) : '0x00000000')

/** The first grant whose static caveats all pass, or the refusal of the one that got furthest. */
export function chooseDelegation(grants: readonly GrantedAction[], call: ActionCall, index = 0): ChooseDelegationResult {
  let best: Miss | undefined
  for (const g of grants) {
    const miss = staticMiss(g, call, index)
    if (!miss) return { ok: true, delegation: g }
    if (!best || miss.depth > best.depth) best = { ...miss, grant: g }
  }
  if (best) return { ok: false, refusal: best.refusal, ...(best.depth >= 0 && best.grant ? { closest: best.grant } : {}) }
  return {
    ok: false,
    refusal: {
      caveat: 'grant',
      error: 'NoDelegation',
      args: [],
      reason: `grant: the Golem holds no actions or approvals delegation, so nothing covers ${call.kind} on ${getAddress(call.target)}`,
      call: index,
    },
  }
}

/**
 * The first static caveat (target, method, value, pinned calldata) that refuses the call, with how
 * many passed before it, or undefined when all pass. The stateful caveats are the pre-check's.
 */
function staticMiss(g: GrantedAction, call: ActionCall, index: number): Miss | undefined {
  const selector = selectorOf(call.callData)
  const owner = g.chain[g.chain.length - 1]!.delegator
  let depth = 0
  for (const c of g.caveats) {
    switch (c.type) {
      case 'allowedTargets':
        if (!c.targets.some((t) => t.toLowerCase() === call.target.toLowerCase()))
          return miss(
            depth,
            'AllowedTargetsEnforcer:target-address-not-allowed',
            index,
            `${g.label} allows ${c.targets.join(', ')}; the call targets ${getAddress(call.target)}`,
          )
        break
      case 'allowedMethods':
        if (!c.selectors.some((s) => s.toLowerCase() === selector.toLowerCase()))
          return miss(
            depth,
            'AllowedMethodsEnforcer:method-not-allowed',
            index,
            `${g.label} allows ${c.selectors.map((s) => labelSelector(s)).join(', ')}; the call is ${labelSelector(selector)}`,
          )
        break
      case 'valueLte':
        if (call.value > c.maxValue)
          return miss(depth, 'ValueLteEnforcer:value-too-high', index, `at most ${c.maxValue} wei; the call sends ${call.value}`)
        break
      case 'allowedCalldata': {
        const start = Number(c.startIndex)
        const width = size(c.value)
        const actual = size(call.callData) >= start + width ? slice(call.callData, start, start + width) : '0x'
        if (actual.toLowerCase() !== c.value.toLowerCase()) {
          const named = width === 32 && actual.length === 66 ? getAddress(`0x${actual.slice(26)}`) : actual
          return miss(
            depth,
            'AllowedCalldataEnforcer:invalid-calldata',
            index,
            `${g.label}: byte ${start} must be ${describePin(pinnedAddress(c), owner, c.value)}; the call names ${named}`,
          )
        }
        break
      }
      case 'exactCalldata':
        if (call.callData.toLowerCase() !== c.calldata.toLowerCase())
          return miss(depth, 'ExactCalldataEnforcer:invalid-calldata', index, 'the calldata is fixed')
        break
      case 'erc20PeriodTransfer':
      case 'nativeTokenPeriodTransfer':
      case 'erc20TransferAmount':
      case 'nativeTokenTransferAmount':
        // A runway or gas grant moves tokens to the Golem; it never covers a DeFi action.
        return miss(-1, 'AllowedMethodsEnforcer:method-not-allowed', index, `${g.label} is a transfer grant`)
      default:
        continue
    }
    depth++
  }
  return undefined
}

function miss(depth: number, error: string, call: number, detail: string): Miss {
  return { depth, refusal: refusalOf({ name: 'Error', args: [error] }, { call, detail }) }
}
