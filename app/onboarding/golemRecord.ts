// A Golem's record as onboarding writes it, whoever signed its grant (the owner's wallet, a local owner
// key, the CLI): its custody profile, the grants in the ledger (so the owner's one act can revoke them),
// its DelegationGranted event, and the record itself, due at once so the next heartbeat ticks it.
import type { Address } from 'viem'
import { grantsOfProfile, recordOwnerGrants } from '../../core/custody/grantLedger.ts'
import type { RenewedRunway } from '../../core/custody/signerResolver.ts'
import { serializeGolemProfile, type GolemProfile, type SignerRef } from '../../core/lifecycle/profile.ts'
import type { Store } from '../../core/store/index.ts'
import { BardoError } from '../../core/errors.ts'

/**
 * The custody profile of a Golem with a direct runway grant: where its key lives (`signer`), its runway
 * grant, and a life from `now` to `expiresAt` (the runway's end).
 */
export function golemProfileOf(p: {
  chainId: number
  golemKey: Address
  signer: SignerRef
  runway: RenewedRunway
  token: Address
  periodAmount: bigint
  /** Seconds per runway period; default a day. */
  periodDuration?: bigint
  expiresAt: bigint
  now: bigint
}): GolemProfile {
  return {
    v: 1,
    chainId: p.chainId,
    golemKey: p.golemKey,
    signer: p.signer,
    runway: {
      ...p.runway,
      token: p.token,
      periodAmount: p.periodAmount,
      periodDuration: p.periodDuration ?? 86_400n,
      expiresAt: p.expiresAt,
    },
    life: { bornAt: p.now, runwayEndsAt: p.expiresAt, runwayTotalSeconds: p.expiresAt - p.now, lastInsightAt: p.now },
    replicants: [],
    renewals: [],
    known: { revokedReported: false, expiringWarned: false, budgetWarnedPeriod: null },
  }
}

/** Stores a provisioned Golem (due at once) and its DelegationGranted event. */
export async function recordGolem(store: Store, g: { golemId: string; owner: Address; profile: GolemProfile; now: bigint }): Promise<void> {
  const nowMs = Number(g.now) * 1000
  const created = await store.createGolem({
    golemId: g.golemId,
    owner: g.owner,
    sessionKeyAddress: g.profile.golemKey,
    custodyMode: 'Delegation',
    profile: serializeGolemProfile(g.profile),
    phase: 'Thriving',
    nextTickAt: nowMs,
    now: nowMs,
  })
  if (!created.created)
    throw new BardoError('GOLEM_EXISTS', `golemId: Golem ${g.golemId} already exists`, { details: { field: 'golemId' } })
  await recordOwnerGrants(store, g.golemId, grantsOfProfile(g.profile), nowMs)
  await store.appendEvent({
    golemId: g.golemId,
    type: 'DelegationGranted',
    at: nowMs,
    eventId: 'DelegationGranted',
    data: {
      delegationHash: g.profile.runway.periodDelegationHash,
      caveats: g.profile.runway.chain[0]!.caveats.map((c) => c.enforcer),
      expiresAt: g.profile.runway.expiresAt.toString(),
    },
  })
}
