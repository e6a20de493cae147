// Every delegation an owner signed for a Golem, kept for as long as the Golem's record: the runway and
// each renewal, the gas grant, every action and approval grant, the grants a rotation signed to a new key,
// and the council's and observers' delegations. A renewal or a rotation replaces the grant a tick uses,
// but the replaced one stays valid on-chain until its end; only this ledger remembers it, so the owner's
// one act of revocation can disable everything the owner ever signed for the Golem. Public data (signed
// delegations), in an append-only log of the store.
import type { Delegation } from '@metamask/smart-accounts-kit'
import { hashDelegation } from '@metamask/smart-accounts-kit/utils'
import type { Hex } from 'viem'
import * as z from '../zodMini.ts'
import { BardoError } from '../errors.ts'
import { delegationSchema, type GolemProfile } from '../lifecycle/profile.ts'
import type { JsonInputObject, LogStore } from '../store/index.ts'

export const GRANT_KINDS = ['runway', 'gas', 'action', 'council', 'observer'] as const
export type GrantKind = (typeof GRANT_KINDS)[number]

/** One signed delegation of the owner's, with what it grants. */
export type OwnerGrant = { kind: GrantKind; label: string; delegation: Delegation }

export class GrantLedgerError extends BardoError {
  constructor(field: string, rule: string) {
    super('INVALID_GRANT_RECORD', `${field}: ${rule}`, { details: { field, rule } })
  }
}

export const grantLedgerLog = (golemId: string): string => `grants:${golemId}`

const recordSchema = z.object({
  kind: z.enum(GRANT_KINDS),
  label: z.string().check(z.maxLength(200)),
  delegation: delegationSchema,
})

export function parseOwnerGrant(raw: unknown): OwnerGrant {
  const parsed = z.safeParse(recordSchema, raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new GrantLedgerError(`grant.${issue?.path.join('.') ?? ''}`, issue?.message ?? 'invalid')
  }
  return { ...parsed.data, delegation: { ...parsed.data.delegation, caveats: parsed.data.delegation.caveats.map((c) => ({ ...c })) } }
}

function toRecord(g: OwnerGrant): JsonInputObject {
  const d = g.delegation
  return {
    kind: g.kind,
    label: g.label,
    delegation: {
      delegate: d.delegate,
      delegator: d.delegator,
      authority: d.authority,
      caveats: d.caveats.map((c) => ({ enforcer: c.enforcer, terms: c.terms, args: c.args })),
      salt: d.salt,
      signature: d.signature,
    },
  }
}

/** The delegation's hash as the DelegationManager keys it (signature excluded). */
export function grantHash(delegation: Delegation): Hex {
  return hashDelegation({ ...delegation, signature: '0x' })
}

/** Records grants the owner signed for a Golem; a grant already recorded is skipped by the readers. */
export async function recordOwnerGrants(
  store: Pick<LogStore, 'appendLog'>,
  golemId: string,
  grants: readonly OwnerGrant[],
  nowMs: number,
): Promise<void> {
  const signed = grants.filter((g) => g.delegation.signature !== '0x')
  if (signed.length === 0) return
  await store.appendLog({ log: grantLedgerLog(golemId), records: signed.map(toRecord), now: nowMs })
}

/** Every grant recorded for a Golem, oldest first. */
export async function loadOwnerGrants(store: Pick<LogStore, 'readLog'>, golemId: string): Promise<OwnerGrant[]> {
  const out: OwnerGrant[] = []
  let after = 0
  for (;;) {
    const page = await store.readLog({ log: grantLedgerLog(golemId), after, limit: 500, order: 'asc' })
    out.push(...page.map((r) => parseOwnerGrant(r.data)))
    if (page.length < 500) return out
    after = page.at(-1)!.seq
  }
}

/**
 * The grants a Golem's profile holds right now: the runway chain, queued renewals, the gas grant and a
 * rotation's grants in flight. Golems recorded before the ledger existed are revoked from these.
 */
export function grantsOfProfile(profile: GolemProfile): OwnerGrant[] {
  const chain = (kind: GrantKind, label: string, delegations: readonly Delegation[]): OwnerGrant[] =>
    delegations.map((delegation) => ({ kind, label, delegation }))
  return [
    ...chain('runway', 'runway', profile.runway.chain),
    ...profile.renewals.flatMap((r) => chain('runway', 'runway renewal', r.chain)),
    ...chain('runway', 'runway adjustment', profile.adjustment?.chain ?? []),
    ...chain('gas', 'gas', profile.gas?.chain ?? []),
    ...chain('runway', 'runway to a rotated key', profile.pendingRotation?.runway.chain ?? []),
    ...chain('gas', 'gas to a rotated key', profile.pendingRotation?.gas?.chain ?? []),
  ]
}
