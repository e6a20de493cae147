// What a Golem's action grant lets it leave open in the owner's account, read from the signed caveats
// themselves: every vault it may redeem from (a delegation whose targets are vaults and whose methods
// include ERC-4626 redeem) and every (token, spender) approval it may give (a delegation whose methods
// include ERC-20 approve, its spender pinned as approve's first argument). Only the three enforcers that
// say this are read (by their framework addresses), so the tick needs no full caveat decoder.
import { getAddress, isAddressEqual, size, slice, type Address, type Hex } from 'viem'
import type { ActionGrantRecord } from '../actions/actionGrant.ts'
import { decodeBardoTerms } from '../caveats/decodeBardoTerms.ts'

/** ERC-4626 redeem(uint256,address,address). */
export const REDEEM_SELECTOR: Hex = '0xba087652'
/** ERC-20 approve(address,uint256). */
export const APPROVE_SELECTOR: Hex = '0x095ea7b3'

/**
 * The addresses of the enforcers read here: the framework's that name targets, methods and pinned
 * calldata, and Bardo's GolemPhase, whose window says when the delegation stops acting.
 */
export type PositionEnforcers = { allowedTargets: Address; allowedMethods: Address; allowedCalldata: Address; golemPhase: Address }

/** `endsAt`: the last second (inclusive) the delegation can act, the earliest window end of its chain; null when unbounded. */
export type GrantedVault = { vault: Address; delegation: Hex; endsAt: bigint | null }
export type GrantedApproval = { token: Address; spender: Address; delegation: Hex; endsAt: bigint | null }
export type GrantedPositions = { vaults: GrantedVault[]; approvals: GrantedApproval[] }

type Link = ActionGrantRecord['delegations'][number]['chain'][number]

/**
 * The vaults and approvals of a grant, each once, with the first delegation (in the grant's order) that
 * covers it. A delegation whose every link lists no targets or no methods covers nothing here: wind-down
 * never guesses a target.
 */
export function grantedPositions(record: ActionGrantRecord, enforcers: PositionEnforcers): GrantedPositions {
  const vaults: GrantedVault[] = []
  const approvals: GrantedApproval[] = []
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
    if (methods.includes(APPROVE_SELECTOR)) {
      const spender = pinnedSpender(entry.chain, enforcers.allowedCalldata)
      if (!spender) continue
      for (const t of targets) {
        const token = getAddress(t)
        if (!approvals.some((a) => isAddressEqual(a.token, token) && isAddressEqual(a.spender, spender)))
          approvals.push({ token, spender, delegation: entry.hash, endsAt })
      }
    }
  }
  return { vaults, approvals }
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

/** The address AllowedCalldata pins as approve's first argument (bytes 4 to 36), in any link. */
function pinnedSpender(chain: readonly Link[], enforcer: Address): Address | null {
  for (const link of chain)
    for (const c of link.caveats) {
      if (!isAddressEqual(c.enforcer as Address, enforcer) || size(c.terms as Hex) !== 64) continue
      if (BigInt(slice(c.terms as Hex, 0, 32)) !== 4n) continue
      const word = slice(c.terms as Hex, 32, 64)
      if (BigInt(slice(word, 0, 12)) !== 0n) continue
      return getAddress(slice(word, 12, 32))
    }
  return null
}
