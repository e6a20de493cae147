// An x402 `exact` payment by ERC-7710 delegation (MetaMask's `assetTransferMethod: "erc7710"`): the payer
// hands over a signed delegation chain, and Bardo's settlement account redeems it for one transfer of the
// asset to the operator. Here are the pure parts: what the payload must be before the chain is asked
// (this deployment's DelegationManager, a chain rooted at the payer, redeemable only by Bardo's
// settlement account), the key the ledger claims it under, and the redemption Bardo simulates and sends.
import { ANY_BENEFICIARY, type Delegation, ExecutionMode } from '@metamask/smart-accounts-kit'
import { decodeDelegations, encodeExecutionCalldatas, hashDelegation } from '@metamask/smart-accounts-kit/utils'
import { encodeFunctionData, erc20Abi, isAddressEqual, size, sliceHex, type Address, type Hex } from 'viem'
import { DelegationManagerAbi } from '../delegations/frameworkAbi.ts'

/** The marker MetaMask's x402 server scheme puts in `extra.assetTransferMethod`. */
export const ERC7710_ASSET_TRANSFER_METHOD = 'erc7710'

/** What a deployment needs to accept ERC-7710 payments: the framework contracts a delegation names. */
export type Erc7710Terms = {
  /** The deployment's DelegationManager: the only one a payment may be redeemed through. */
  delegationManager: Address
  /** The framework's RedeemerEnforcer, which an open delegation must use to name its redeemer. */
  redeemerEnforcer: Address
}

/** The `payload` of an ERC-7710 payment, as @metamask/x402's client sends it. */
export type Erc7710Payload = { delegationManager: Address; permissionContext: Hex; delegator: Address }

export type Erc7710Refusal = { ok: false; field: string; rule: string }
export type Erc7710Checked = {
  ok: true
  /** Leaf first, root last: the chain redeemDelegations takes. */
  chain: Delegation[]
  /** The leaf delegation's hash: one delegation, one payment (the ledger's key with the payer). */
  key: Hex
}

/** True when an x402 `accepted` requirement asks for payment by delegation. */
export function asksForErc7710(extra: Record<string, unknown> | undefined): boolean {
  return extra?.assetTransferMethod === ERC7710_ASSET_TRANSFER_METHOD
}

/**
 * The checks made on an ERC-7710 payload without the chain: it is redeemed through this deployment's
 * DelegationManager, its permission context decodes to a chain whose root delegator is the payer, and
 * its leaf names `redeemer` (Bardo's settlement account) as the only account that may redeem it: as its
 * delegate, or, open to any beneficiary, through a RedeemerEnforcer caveat listing only that account.
 * A delegation anyone could redeem would let whoever sees the header spend it first.
 */
export function checkErc7710Payload(payload: Erc7710Payload, terms: Erc7710Terms, redeemer: Address): Erc7710Checked | Erc7710Refusal {
  if (!isAddressEqual(payload.delegationManager, terms.delegationManager)) {
    return { ok: false, field: 'payload.delegationManager', rule: `must be this deployment's DelegationManager ${terms.delegationManager}` }
  }
  let chain: Delegation[]
  try {
    chain = decodeDelegations(payload.permissionContext)
  } catch {
    return { ok: false, field: 'payload.permissionContext', rule: 'must be an ABI-encoded delegation chain (leaf first)' }
  }
  const leaf = chain[0]
  const root = chain[chain.length - 1]
  if (leaf === undefined || root === undefined) {
    return { ok: false, field: 'payload.permissionContext', rule: 'must hold at least one delegation' }
  }
  if (!isAddressEqual(root.delegator, payload.delegator)) {
    return { ok: false, field: 'payload.delegator', rule: `must be the root delegator of the permission context (${root.delegator})` }
  }
  if (!namesOnlyRedeemer(leaf, terms.redeemerEnforcer, redeemer)) {
    return {
      ok: false,
      field: 'payload.permissionContext',
      rule: `its leaf delegation must name Bardo's settlement account ${redeemer} as its delegate, or as the only redeemer of a RedeemerEnforcer caveat`,
    }
  }
  return { ok: true, chain, key: hashDelegation(leaf) }
}

function namesOnlyRedeemer(leaf: Delegation, redeemerEnforcer: Address, redeemer: Address): boolean {
  if (isAddressEqual(leaf.delegate, redeemer)) return true
  if (!isAddressEqual(leaf.delegate, ANY_BENEFICIARY)) return false
  return leaf.caveats.some(
    (c) => isAddressEqual(c.enforcer, redeemerEnforcer) && redeemersOf(c.terms).every((r) => isAddressEqual(r, redeemer)),
  )
}

/** RedeemerEnforcer's terms: packed 20-byte addresses, at least one. */
function redeemersOf(terms: Hex): Address[] {
  const n = size(terms)
  if (n === 0 || n % 20 !== 0) return [ANY_BENEFICIARY]
  return Array.from({ length: n / 20 }, (_, i) => sliceHex(terms, i * 20, (i + 1) * 20) as Address)
}

/**
 * The redemption Bardo's settlement account simulates and sends: the payer's chain, one single-call
 * execution, the asset's `transfer(payTo, amount)`.
 */
export function erc7710RedemptionCalldata(p: { permissionContext: Hex; asset: Address; payTo: Address; amount: bigint }): Hex {
  const callData = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [p.payTo, p.amount] })
  return encodeFunctionData({
    abi: DelegationManagerAbi,
    functionName: 'redeemDelegations',
    args: [[p.permissionContext], [ExecutionMode.SingleDefault], encodeExecutionCalldatas([[{ target: p.asset, value: 0n, callData }]])],
  })
}
