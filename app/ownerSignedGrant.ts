// What the owner's renewal and adjustment share: a runway grant the owner signed, checked by a pure rule,
// its signature verified against the owner's smart account (viem's verifyTypedData: ERC-1271 for a
// deployed account, ERC-6492 for a counterfactual one), kept in the owner's grant ledger before anything
// else is written (a grant the owner signed is revocable even if the install never lands), then installed
// in the Golem's profile with a compare-and-swap and recorded as one event. A refused grant writes nothing.
import type { Delegation } from '@metamask/smart-accounts-kit'
import { hashDelegation } from '@metamask/smart-accounts-kit/utils'
import type { Hex, PublicClient } from 'viem'
import type { BardoDeployment } from '../core/deployment.ts'
import type { BardoError } from '../core/errors.ts'
import type { GolemProfile } from '../core/lifecycle/profile.ts'
import { parseGolemProfile, serializeGolemProfile } from '../core/lifecycle/profile.ts'
import type { SuccessorInput } from '../core/lifecycle/successorGrant.ts'
import { RETRY, retry } from '../core/retry.ts'
import type { EventStore, GolemStore, JsonInputObject, LogStore } from '../core/store/index.ts'
import { recordOwnerGrants, type OwnerGrant } from '../core/custody/grantLedger.ts'
import { delegationDomainOf, delegationTypedData } from '../core/delegations/typedData.ts'

export type OwnerGrantDeps = {
  store: Pick<GolemStore, 'getGolem' | 'updateGolem'> & Pick<EventStore, 'appendEvent'> & Pick<LogStore, 'appendLog'>
  client: PublicClient
  deployment: BardoDeployment
}

export type OwnerGrantRule<G, O> = {
  /** What the owner's act is called in a refusal ("renewal", "adjustment"). */
  name: string
  /** The ledger's label for the grant ("runway renewal", "runway adjustment"). */
  label: string
  /** The event recorded once the grant is installed. */
  event: string
  /** The refusal naming the field and the rule. */
  refuse: (field: string, rule: string) => BardoError
  /** The pure check: the grant to install, or a refusal. */
  check: (input: SuccessorInput) => G
  /** The profile with the grant installed. */
  install: (profile: GolemProfile, grant: G) => GolemProfile
  /** The answer, and the event's data, from what was installed. */
  outcome: (p: { grant: G; hash: Hex; before: GolemProfile }) => { result: O; data: JsonInputObject }
  /** Grants the owner signed beside it (a rotation's gas grant): verified and kept in the ledger with it. */
  companions?: readonly (OwnerGrant & { field: string })[]
}

export async function applyOwnerSignedGrant<G, O>(
  deps: OwnerGrantDeps,
  rule: OwnerGrantRule<G, O>,
  golemId: string,
  delegation: Delegation,
): Promise<O> {
  const { store, client, deployment } = deps
  const hash = hashDelegation(delegation)
  let verified = false
  const policy = {
    attempts: 5,
    exhausted: (): never => {
      throw rule.refuse('golemId', `the Golem kept changing while the ${rule.name} was applied; try again`)
    },
  }
  return retry<O>(policy, async (attempt) => {
    const record = await store.getGolem(golemId)
    if (!record) throw rule.refuse('golemId', 'names no Golem')
    const profile = parseGolemProfile(record.profile)
    const now = (await client.getBlock({ blockTag: 'latest' })).timestamp
    const grant = rule.check({ profile, candidate: delegation, candidateHash: hash, deployment, environment: deployment.environment, now })
    const companions = rule.companions ?? []
    if (!verified) {
      for (const signed of [{ field: 'delegation', delegation }, ...companions]) {
        const valid = await client
          .verifyTypedData({
            address: signed.delegation.delegator,
            ...delegationTypedData(signed.delegation, delegationDomainOf(deployment)),
            signature: signed.delegation.signature,
          })
          .catch(() => false)
        if (!valid)
          throw rule.refuse(
            `${signed.field}.signature`,
            `must be the owner's signature over the delegation, valid for ${signed.delegation.delegator} (ERC-1271 / ERC-6492)`,
          )
      }
      verified = true
    }
    if (attempt === 0)
      await recordOwnerGrants(
        store,
        golemId,
        [
          { kind: 'runway', label: rule.label, delegation },
          ...companions.map(({ kind, label, delegation }) => ({ kind, label, delegation })),
        ],
        Number(now) * 1000,
      )
    const updated = await store.updateGolem({
      golemId,
      expectedVersion: record.version,
      patch: { profile: serializeGolemProfile(rule.install(profile, grant)) },
      now: Number(now) * 1000,
    })
    if (!updated.updated) return RETRY
    const { result, data } = rule.outcome({ grant, hash, before: profile })
    await store.appendEvent({ golemId, type: rule.event, at: Number(now) * 1000, eventId: `${rule.event}:${hash}`, data })
    return result
  })
}
