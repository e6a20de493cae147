// The owner's revocation of a Golem, as every surface offers it (the CLI, the dashboard, the Snap's
// hand-off to the dashboard): what the owner has signed for the Golem, which of it the chain still holds
// enabled, and the owner's one batch of disableDelegation calls (core/custody/revocationPlan.ts). After
// the owner's transaction lands, `wakeRevoked` makes the Golem due at once, so its next heartbeat runs the
// death protocol instead of waiting for its next tick.
import type { Address, Hex, PublicClient } from 'viem'
import { parseActionGrant } from '../core/actions/index.ts'
import { grantsOfProfile, loadOwnerGrants, type OwnerGrant } from '../core/custody/grantLedger.ts'
import { ownerSignedGrants, planRevocation, type RevocationPlan } from '../core/custody/revocationPlan.ts'
import { DelegationManagerAbi } from '../core/delegations/frameworkAbi.ts'
import { parseGolemProfile } from '../core/lifecycle/profile.ts'
import { RETRY, retry } from '../core/retry.ts'
import type { GolemRecord, Store } from '../core/store/index.ts'
import { actionGrantLog } from './actions/actionGrantStore.ts'
import { BardoError } from '../core/errors.ts'

export type RevocationDeps = {
  store: Pick<Store, 'getGolem' | 'readLog'>
  client: Pick<PublicClient, 'readContract'>
  delegationManager: Address
}

export class RevocationError extends BardoError {
  constructor(code: 'GOLEM_NOT_FOUND' | 'GOLEM_NOT_REVOKED', field: string, rule: string) {
    super(code, `${field}: ${rule}`, { details: { field, rule } })
  }
}

/** Every delegation known for the Golem: its ledger, its profile, and every action grant it was given. */
export async function grantsOf(store: RevocationDeps['store'], record: GolemRecord): Promise<OwnerGrant[]> {
  const profile = parseGolemProfile(record.profile)
  const actionRecords = await store.readLog({ log: actionGrantLog(record.golemId), limit: 1000, order: 'asc' })
  const actions = actionRecords.flatMap((r) =>
    parseActionGrant(r.data).delegations.flatMap((e) =>
      e.chain.map((delegation) => ({ kind: 'action' as const, label: e.label, delegation })),
    ),
  )
  return [...(await loadOwnerGrants(store, record.golemId)), ...grantsOfProfile(profile), ...actions]
}

/** Which of `hashes` the DelegationManager reports disabled, read at the chain's head. */
export async function disabledAmong(deps: Pick<RevocationDeps, 'client' | 'delegationManager'>, hashes: readonly Hex[]): Promise<Set<Hex>> {
  const flags = await Promise.all(
    hashes.map((hash) =>
      deps.client.readContract({
        address: deps.delegationManager,
        abi: DelegationManagerAbi,
        functionName: 'disabledDelegations',
        args: [hash],
      }),
    ),
  )
  return new Set(hashes.filter((_h, i) => flags[i] === true))
}

async function recordOf(store: RevocationDeps['store'], golemId: string): Promise<GolemRecord> {
  const record = await store.getGolem(golemId)
  if (!record?.profile) throw new RevocationError('GOLEM_NOT_FOUND', 'golemId', `names no Golem with a custody profile: ${golemId}`)
  return record
}

/** The owner's revocation of the Golem: the calls still needed, and what is already disabled. */
export async function revocationOf(
  deps: RevocationDeps,
  golemId: string,
): Promise<RevocationPlan & { golemId: string; record: GolemRecord }> {
  const record = await recordOf(deps.store, golemId)
  const grants = await grantsOf(deps.store, record)
  const signed = ownerSignedGrants(record.owner, grants)
  const disabled = await disabledAmong(
    deps,
    signed.map((g) => g.hash),
  )
  return { golemId, record, ...planRevocation({ owner: record.owner, delegationManager: deps.delegationManager, grants, disabled }) }
}

/**
 * Makes a revoked Golem due now. Refused (nothing written) unless the chain reports the Golem's runway
 * disabled: anyone may ask, and only a revocation that happened wakes anything.
 */
export async function wakeRevoked(
  deps: RevocationDeps & { store: Pick<Store, 'getGolem' | 'readLog' | 'updateGolem'> },
  golemId: string,
  nowMs: number,
): Promise<{ woken: boolean; record: GolemRecord }> {
  const record = await recordOf(deps.store, golemId)
  const profile = parseGolemProfile(record.profile)
  const disabled = await disabledAmong(deps, profile.runway.chainHashes)
  if (disabled.size === 0)
    throw new RevocationError('GOLEM_NOT_REVOKED', 'golemId', `Golem ${golemId}'s runway grant is not disabled on-chain`)
  let current: GolemRecord | null = record
  // A conflict means a tick or a credit wrote meanwhile: the wake is applied to what the store answered.
  const gaveUp = () => ({ woken: false, record: current ?? record })
  return retry({ attempts: 3, exhausted: gaveUp }, async () => {
    if (!current) return gaveUp()
    if (current.status === 'dead' || current.nextTickAt <= nowMs) return { woken: false, record: current }
    const updated = await deps.store.updateGolem({ golemId, expectedVersion: current.version, patch: { nextTickAt: nowMs }, now: nowMs })
    if (updated.updated) return { woken: true, record: updated.golem }
    current = updated.current
    return RETRY
  })
}

/** The API's revocation service over the store and the chain. */
export function revocationService(
  deps: RevocationDeps & { store: Pick<Store, 'getGolem' | 'readLog' | 'updateGolem'>; now: () => number },
) {
  return {
    plan: (golemId: string) => revocationOf(deps, golemId),
    wake: async (golemId: string) => ({ woken: (await wakeRevoked(deps, golemId, deps.now())).woken }),
  }
}
