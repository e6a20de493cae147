// A Golem's grants in order: the owner's first delegation to it, then renewals (a superseding grant to
// the same or a rotated key, from the same delegator). The DelegationManager only shows a delegation
// once it is redeemed, enabled or disabled, so a grant enters the timeline when it is first seen.

export type GrantRow = {
  hash: string
  delegator: string
  delegate: string
  enabled: boolean
  firstSeenBlock: bigint
  statusBlock: bigint | null
  redemptionCount: number
  lastRedeemedBlock: bigint | null
  caveats: { enforcer: string; terms: string; args: string }[]
}

export type GrantStatus = 'active' | 'superseded' | 'revoked'

export type Grant = GrantRow & {
  kind: 'grant' | 'renewal'
  status: GrantStatus
  /** The grant from the same delegator that replaced this one, if any. */
  supersededBy: string | null
}

/**
 * Orders grants by when they were first seen and links each to the next grant from the same delegator.
 * A disabled grant is `revoked` (the owner's act wins over a later renewal); otherwise one with a
 * successor is `superseded`, and the newest is `active`.
 */
export function grantTimeline(rows: readonly GrantRow[]): Grant[] {
  const ordered = [...rows].sort((a, b) =>
    a.firstSeenBlock === b.firstSeenBlock ? a.hash.localeCompare(b.hash) : a.firstSeenBlock < b.firstSeenBlock ? -1 : 1,
  )
  return ordered.map((row, i) => {
    const earlier = ordered.slice(0, i).some((r) => r.delegator === row.delegator)
    const next = ordered.slice(i + 1).find((r) => r.delegator === row.delegator)
    const status: GrantStatus = !row.enabled ? 'revoked' : next !== undefined ? 'superseded' : 'active'
    return { ...row, kind: earlier ? 'renewal' : 'grant', status, supersededBy: next?.hash ?? null }
  })
}
