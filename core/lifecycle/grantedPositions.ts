// What a Golem's action grant lets it leave open in the owner's account, read from the signed caveats
// themselves: every vault it may redeem from (a delegation whose targets are vaults and whose methods
// include ERC-4626 redeem), every (token, spender) approval it may give (a delegation whose methods
// include ERC-20 approve, its spender pinned as approve's first argument), and every Uniswap V3 position
// manager it may both remove liquidity from (a delegation whose methods include decreaseLiquidity) and
// collect from (one whose methods include collect, its recipient pinned). Only the three enforcers that
// say this are read (by their framework addresses), so the tick needs no full caveat decoder.
import { getAddress, isAddressEqual, size, slice, type Address, type Hex } from 'viem'
import type { ActionGrantRecord } from '../actions/actionGrant.ts'
import { decodeBardoTerms } from '../caveats/decodeBardoTerms.ts'

/** ERC-4626 redeem(uint256,address,address). */
export const REDEEM_SELECTOR: Hex = '0xba087652'
/** ERC-20 approve(address,uint256). */
export const APPROVE_SELECTOR: Hex = '0x095ea7b3'
/** NonfungiblePositionManager decreaseLiquidity((uint256,uint128,uint256,uint256,uint256)). */
export const DECREASE_LIQUIDITY_SELECTOR: Hex = '0x0c49ccbe'
/** NonfungiblePositionManager collect((uint256,address,uint128,uint128)). */
export const COLLECT_SELECTOR: Hex = '0xfc6f7865'
/** Where collect's params.recipient sits in its calldata (selector included): AllowedCalldata pins it there. */
const COLLECT_RECIPIENT_AT = 36n

/**
 * The addresses of the enforcers read here: the framework's that name targets, methods and pinned
 * calldata, and Bardo's GolemPhase, whose window says when the delegation stops acting.
 */
export type PositionEnforcers = { allowedTargets: Address; allowedMethods: Address; allowedCalldata: Address; golemPhase: Address }

/** `endsAt`: the last second (inclusive) the delegation can act, the earliest window end of its chain; null when unbounded. */
export type GrantedVault = { vault: Address; delegation: Hex; endsAt: bigint | null }
export type GrantedApproval = { token: Address; spender: Address; delegation: Hex; endsAt: bigint | null }
/**
 * A position manager wind-down can close positions on: `removal` the delegation that allows decreaseLiquidity
 * on it (its MaxSlippage bounds the pool's price), `collect` the one that allows collect with its recipient
 * pinned to `recipient`; `endsAt` the earlier of the two windows' ends.
 */
export type GrantedLiquidity = { manager: Address; removal: Hex; collect: Hex; recipient: Address; endsAt: bigint | null }
export type GrantedPositions = { vaults: GrantedVault[]; approvals: GrantedApproval[]; liquidity: GrantedLiquidity[] }

type Link = ActionGrantRecord['delegations'][number]['chain'][number]

/**
 * The vaults, approvals and position managers of a grant, each once, with the first delegation (in the
 * grant's order) that covers it. A delegation whose every link lists no targets or no methods covers
 * nothing here: wind-down never guesses a target. A manager is listed only when the grant both removes
 * and collects on it (a removal that could not be collected would leave the tokens owed in the position),
 * and only a collect whose recipient is pinned counts.
 */
export function grantedPositions(record: ActionGrantRecord, enforcers: PositionEnforcers): GrantedPositions {
  const vaults: GrantedVault[] = []
  const approvals: GrantedApproval[] = []
  const removals: { manager: Address; delegation: Hex; endsAt: bigint | null }[] = []
  const collects: { manager: Address; delegation: Hex; recipient: Address; endsAt: bigint | null }[] = []
  for (const entry of record.delegations) {
    const targets = intersect(entry.chain.map((d) => termsOf(d, enforcers.allowedTargets, 20)))
    const methods = intersect(entry.chain.map((d) => termsOf(d, enforcers.allowedMethods, 4)))
    if (!targets || !methods) continue
    const endsAt = windowEnd(entry.chain, enforcers.golemPhase)
    if (methods.includes(REDEEM_SELECTOR))
      for (const t of targets) {
        const vault = getAddress(t)
        if (!vaults.some((v) => isAddressEqual(v.vault, vault))) vaults.push({ vault, delegation: entry.hash, endsAt })
      }
    if (methods.includes(DECREASE_LIQUIDITY_SELECTOR))
      for (const t of targets) {
        const manager = getAddress(t)
        if (!removals.some((r) => isAddressEqual(r.manager, manager))) removals.push({ manager, delegation: entry.hash, endsAt })
      }
    if (methods.includes(COLLECT_SELECTOR)) {
      const recipient = pinnedAddress(entry.chain, enforcers.allowedCalldata, COLLECT_RECIPIENT_AT)
      if (recipient)
        for (const t of targets) {
          const manager = getAddress(t)
          if (!collects.some((c) => isAddressEqual(c.manager, manager)))
            collects.push({ manager, delegation: entry.hash, recipient, endsAt })
        }
    }
    if (methods.includes(APPROVE_SELECTOR)) {
      const spender = pinnedAddress(entry.chain, enforcers.allowedCalldata, 4n)
      if (!spender) continue
      for (const t of targets) {
        const token = getAddress(t)
        if (!approvals.some((a) => isAddressEqual(a.token, token) && isAddressEqual(a.spender, spender)))
          approvals.push({ token, spender, delegation: entry.hash, endsAt })
      }
    }
  }
  const liquidity = removals.flatMap((r): GrantedLiquidity[] => {
    const c = collects.find((c) => isAddressEqual(c.manager, r.manager))
    if (!c) return []
    const ends = [r.endsAt, c.endsAt].filter((e): e is bigint => e !== null)
    const endsAt = ends.length === 0 ? null : ends.reduce((a, b) => (a < b ? a : b))
    return [{ manager: r.manager, removal: r.delegation, collect: c.delegation, recipient: c.recipient, endsAt }]
  })
  return { vaults, approvals, liquidity }
}

/** The terms of one enforcer in one link, cut into `width`-byte items (lowercase); null when the link has none. */
function termsOf(link: Link, enforcer: Address, width: number): string[] | null {
  const items: string[] = []
  let found = false
  for (const c of link.caveats) {
    if (!isAddressEqual(c.enforcer as Address, enforcer)) continue
    found = true
    const hex = c.terms.slice(2).toLowerCase()
    for (let at = 0; at + width * 2 <= hex.length; at += width * 2) items.push(`0x${hex.slice(at, at + width * 2)}`)
  }
  return found ? items : null
}

/** What every link that restricts allows: the links bind together. Null when no link restricts. */
function intersect(lists: (string[] | null)[]): string[] | null {
  const present = lists.filter((l): l is string[] => l !== null)
  if (present.length === 0) return null
  return present.reduce((a, b) => a.filter((x) => b.includes(x)))
}

/** The earliest end of the GolemPhase windows of a chain; null when no link carries one (or it does not decode). */
function windowEnd(chain: readonly Link[], enforcer: Address): bigint | null {
  let end: bigint | null = null
  for (const link of chain)
    for (const c of link.caveats) {
      if (!isAddressEqual(c.enforcer as Address, enforcer)) continue
      let decoded: ReturnType<typeof decodeBardoTerms<'golemPhase'>>
      try {
        decoded = decodeBardoTerms('golemPhase', c.terms as Hex)
      } catch {
        continue
      }
      if ('endTime' in decoded && decoded.endTime !== undefined && (end === null || decoded.endTime < end)) end = decoded.endTime
    }
  return end
}

/**
 * The address AllowedCalldata pins as the word at byte `at` of the calldata (approve's spender at 4,
 * collect's recipient at 36), in any link.
 */
function pinnedAddress(chain: readonly Link[], enforcer: Address, at: bigint): Address | null {
  for (const link of chain)
    for (const c of link.caveats) {
      if (!isAddressEqual(c.enforcer as Address, enforcer) || size(c.terms as Hex) !== 64) continue
      if (BigInt(slice(c.terms as Hex, 0, 32)) !== at) continue
      const word = slice(c.terms as Hex, 32, 64)
      if (BigInt(slice(word, 0, 12)) !== 0n) continue
      return getAddress(slice(word, 12, 32))
    }
  return null
}
