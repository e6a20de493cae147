// Which Golems a block's custody signals concern, so their ticks run now instead of at the next beat.
// A signal wakes a Golem only when it touches that Golem's own authority: a delegation in its runway or
// gas chain or one of its Replicants', a Replicant's redemption through its grant, or the operator's
// change to its registration. Everything else (another owner's delegation, the Golem's own redemptions,
// which its tick or action already accounted for) wakes nothing.
import { isAddressEqual, type Address } from 'viem'
import { parseGolemProfile, type GolemProfile } from '../lifecycle/profile.ts'
import type { GolemRecord } from '../store/records.ts'
import type { CustodySignal } from './custodySignals.ts'

/** The store lookups that find every Golem a signal could concern (by owner, by current session key). */
export type GolemLookups = { owners: Address[]; sessionKeys: Address[] }

export type WakeDecision = { golemId: string; reasons: CustodySignal['kind'][] }

function addUnique(list: Address[], a: Address): void {
  if (!list.some((x) => isAddressEqual(x, a))) list.push(a)
}

export function golemLookups(signals: readonly CustodySignal[]): GolemLookups {
  const owners: Address[] = []
  const sessionKeys: Address[] = []
  for (const s of signals) {
    if ('delegationHash' in s) {
      // The owner's grant (delegator = owner) or a Golem's own sub-delegation (delegator = its key).
      addUnique(owners, s.delegator)
      addUnique(sessionKeys, s.delegator)
      addUnique(sessionKeys, s.delegate)
    } else if ('leafHash' in s) addUnique(sessionKeys, s.leafDelegator)
    else if (s.kind === 'NonceIncremented') addUnique(owners, s.delegator)
    else addUnique(sessionKeys, s.golem)
  }
  return { owners, sessionKeys }
}

/** Every delegation hash the Golem's authority is made of, in any shape it is in now or rotating to. */
function delegationHashes(p: GolemProfile): Set<string> {
  const all = [
    ...p.runway.chainHashes,
    ...(p.gas?.chainHashes ?? []),
    ...p.replicants.map((r) => r.hash),
    ...(p.pendingRotation?.runway.chainHashes ?? []),
    ...(p.pendingRotation?.gas?.chainHashes ?? []),
  ]
  return new Set(all.map((h) => h.toLowerCase()))
}

function concerns(s: CustodySignal, golem: GolemRecord, hashes: Set<string> | undefined, nonceOwner: Address | undefined): boolean {
  // A nonce increment voids the grants of a Golem whose grant carries that owner's nonce.
  if (s.kind === 'NonceIncremented') return nonceOwner !== undefined && isAddressEqual(nonceOwner, s.delegator)
  // Without a readable profile, the Golem's key being the delegate is the best evidence there is.
  if ('delegationHash' in s)
    return hashes ? hashes.has(s.delegationHash.toLowerCase()) : isAddressEqual(s.delegate, golem.sessionKeyAddress)
  if ('leafHash' in s)
    return (
      isAddressEqual(s.leafDelegator, golem.sessionKeyAddress) &&
      !isAddressEqual(s.redeemer, golem.sessionKeyAddress) &&
      (hashes?.has(s.leafHash.toLowerCase()) ?? false)
    )
  return isAddressEqual(s.golem, golem.sessionKeyAddress)
}

/** The Golems to tick now, each once, with the signals that concern it; dead Golems are never woken. */
export function planWake(signals: readonly CustodySignal[], candidates: readonly GolemRecord[]): WakeDecision[] {
  const byId = new Map<string, WakeDecision>()
  for (const golem of candidates) {
    if (golem.status === 'dead' || byId.has(golem.golemId)) continue
    let hashes: Set<string> | undefined
    let nonceOwner: Address | undefined
    try {
      const profile = parseGolemProfile(golem.profile)
      hashes = delegationHashes(profile)
      nonceOwner = profile.runway.nonce?.delegator
    } catch {
      hashes = undefined
    }
    const reasons = signals.filter((s) => concerns(s, golem, hashes, nonceOwner)).map((s) => s.kind)
    if (reasons.length > 0) byId.set(golem.golemId, { golemId: golem.golemId, reasons: [...new Set(reasons)] })
  }
  return [...byId.values()]
}
