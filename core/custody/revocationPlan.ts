// The owner's one act of revocation: every delegation the owner signed for a Golem (and still enabled),
// disabled in one transaction from the owner's account, which batches the disableDelegation calls.
// Delegations others signed under them (the Golem's Replicants, a 7715 Session Account's re-delegation,
// a council's) need no call of their own: a chain with a disabled delegation in it is refused. Pure: the
// edge reads which hashes are already disabled and sends the calls through the owner's wallet.
import { isAddressEqual, type Address, type Hex } from 'viem'
import { encodeDisableDelegation } from '../delegations/redeem.ts'
import { grantHash, type GrantKind, type OwnerGrant } from './grantLedger.ts'

/** One call of the owner's batch: `to` is the DelegationManager. */
export type RevocationCall = { to: Address; value: 0n; data: Hex; hash: Hex; kind: GrantKind; label: string }

export type RevocationPlan = {
  owner: Address
  /** The owner's calls, in the order the grants were signed; empty when everything is disabled already. */
  calls: RevocationCall[]
  /** The owner's grants the chain already reports disabled. */
  alreadyDisabled: Hex[]
}

/** Each distinct delegation the owner signed, with its hash, oldest first. */
export function ownerSignedGrants(owner: Address, grants: readonly OwnerGrant[]): (OwnerGrant & { hash: Hex })[] {
  const seen = new Set<string>()
  const out: (OwnerGrant & { hash: Hex })[] = []
  for (const g of grants) {
    if (!isAddressEqual(g.delegation.delegator, owner) || g.delegation.signature === '0x') continue
    const hash = grantHash(g.delegation)
    if (seen.has(hash)) continue
    seen.add(hash)
    out.push({ ...g, hash })
  }
  return out
}

export function planRevocation(p: {
  owner: Address
  delegationManager: Address
  grants: readonly OwnerGrant[]
  /** Hashes the DelegationManager reports disabled (disabledDelegations). */
  disabled: ReadonlySet<Hex>
}): RevocationPlan {
  const signed = ownerSignedGrants(p.owner, p.grants)
  const open = signed.filter((g) => !p.disabled.has(g.hash))
  return {
    owner: p.owner,
    calls: open.map((g) => ({
      to: p.delegationManager,
      value: 0n,
      data: encodeDisableDelegation(g.delegation),
      hash: g.hash,
      kind: g.kind,
      label: g.label,
    })),
    alreadyDisabled: signed.filter((g) => p.disabled.has(g.hash)).map((g) => g.hash),
  }
}
