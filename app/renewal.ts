// Feed-the-Golem renewal: the owner's superseding runway grant, checked (core/lifecycle/renewalCheck),
// its signature verified against the owner's smart account (viem's verifyTypedData: ERC-1271 for a
// deployed account, ERC-6492 for a counterfactual one), then installed in the Golem's profile with a
// compare-and-swap. A refused renewal writes nothing.
import type { Delegation } from '@metamask/smart-accounts-kit'
import { hashDelegation } from '@metamask/smart-accounts-kit/utils'
import type { Hex, PublicClient } from 'viem'
import type { BardoDeployment } from '../core/deployment.ts'
import { latestGrant } from '../core/lifecycle/grantInForce.ts'
import { parseGolemProfile, serializeGolemProfile } from '../core/lifecycle/profile.ts'
import { checkRenewal, installRenewal, RenewalError } from '../core/lifecycle/renewalCheck.ts'
import { RETRY, retry } from '../core/retry.ts'
import type { EventStore, GolemStore, LogStore } from '../core/store/index.ts'
import { recordOwnerGrants } from '../core/custody/grantLedger.ts'
import { delegationDomainOf, delegationTypedData } from '../core/delegations/typedData.ts'

export type RenewalOutcome = { delegationHash: Hex; replaced: Hex; expiresAt: bigint; periodStart: bigint }

export interface RenewalService {
  renew(golemId: string, delegation: Delegation): Promise<RenewalOutcome>
}

export const DELEGATION_RENEWED_EVENT = 'DelegationRenewed'

export class StoreRenewalService implements RenewalService {
  constructor(
    private readonly o: {
      store: Pick<GolemStore, 'getGolem' | 'updateGolem'> & Pick<EventStore, 'appendEvent'> & Pick<LogStore, 'appendLog'>
      client: PublicClient
      deployment: BardoDeployment
    },
  ) {}

  async renew(golemId: string, delegation: Delegation): Promise<RenewalOutcome> {
    const { store, client, deployment } = this.o
    const candidateHash = hashDelegation(delegation)
    let verified = false
    const policy = {
      attempts: 5,
      exhausted: (): never => {
        throw new RenewalError('golemId', 'the Golem kept changing while the renewal was applied; try again')
      },
    }
    return retry<RenewalOutcome>(policy, async (attempt) => {
      const record = await store.getGolem(golemId)
      if (!record) throw new RenewalError('golemId', 'names no Golem')
      const profile = parseGolemProfile(record.profile)
      const now = (await client.getBlock({ blockTag: 'latest' })).timestamp
      const grant = checkRenewal({ profile, candidate: delegation, candidateHash, deployment, environment: deployment.environment, now })
      if (!verified) {
        verified = await client
          .verifyTypedData({
            address: delegation.delegator,
            ...delegationTypedData(delegation, delegationDomainOf(deployment)),
            signature: delegation.signature,
          })
          .catch(() => false)
        if (!verified)
          throw new RenewalError(
            'delegation.signature',
            `must be the owner's signature over the delegation, valid for ${delegation.delegator} (ERC-1271 / ERC-6492)`,
          )
      }
      // Kept before it is installed: a grant the owner signed is revocable even if the install never lands.
      if (attempt === 0)
        await recordOwnerGrants(store, golemId, [{ kind: 'runway', label: 'runway renewal', delegation }], Number(now) * 1000)
      const replaced = latestGrant(profile).periodDelegationHash
      const updated = await store.updateGolem({
        golemId,
        expectedVersion: record.version,
        patch: { profile: serializeGolemProfile(installRenewal(profile, grant)) },
        now: Number(now) * 1000,
      })
      if (!updated.updated) return RETRY
      await store.appendEvent({
        golemId,
        type: DELEGATION_RENEWED_EVENT,
        at: Number(now) * 1000,
        eventId: `${DELEGATION_RENEWED_EVENT}:${candidateHash}`,
        data: { replaced, delegationHash: candidateHash, expiresAt: grant.expiresAt.toString(), periodStart: grant.periodStart.toString() },
      })
      return { delegationHash: candidateHash, replaced, expiresAt: grant.expiresAt, periodStart: grant.periodStart }
    })
  }
}
