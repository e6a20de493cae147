// The owner's adjustment of a Golem's runway grant without revoking it: the narrower grant the owner
// signed, checked (core/lifecycle/adjustment.ts), its signature verified against the owner's smart account
// (viem's verifyTypedData: ERC-1271 for a deployed account, ERC-6492 for a counterfactual one), kept in
// the owner's grant ledger, then stored in the Golem's profile to wait for the owner's transaction that
// disables what it supersedes. A refused adjustment writes nothing.
import type { Delegation } from '@metamask/smart-accounts-kit'
import { hashDelegation } from '@metamask/smart-accounts-kit/utils'
import type { Hex, PublicClient } from 'viem'
import type { BardoDeployment } from '../core/deployment.ts'
import { AdjustmentError, checkAdjustment, installAdjustment } from '../core/lifecycle/adjustment.ts'
import { parseGolemProfile, serializeGolemProfile } from '../core/lifecycle/profile.ts'
import { RETRY, retry } from '../core/retry.ts'
import type { EventStore, GolemStore, LogStore } from '../core/store/index.ts'
import { recordOwnerGrants } from '../core/custody/grantLedger.ts'
import { delegationDomainOf, delegationTypedData } from '../core/delegations/typedData.ts'

export type AdjustmentOutcome = {
  delegationHash: Hex
  /** What the owner's transaction must disable for the adjustment to take over. */
  supersedes: Hex[]
  periodAmount: bigint
  periodStart: bigint
  expiresAt: bigint
}

export interface AdjustmentService {
  adjust(golemId: string, delegation: Delegation): Promise<AdjustmentOutcome>
}

export const DELEGATION_ADJUSTMENT_SIGNED_EVENT = 'DelegationAdjustmentSigned'

export class StoreAdjustmentService implements AdjustmentService {
  constructor(
    private readonly o: {
      store: Pick<GolemStore, 'getGolem' | 'updateGolem'> & Pick<EventStore, 'appendEvent'> & Pick<LogStore, 'appendLog'>
      client: PublicClient
      deployment: BardoDeployment
    },
  ) {}

  async adjust(golemId: string, delegation: Delegation): Promise<AdjustmentOutcome> {
    const { store, client, deployment } = this.o
    const candidateHash = hashDelegation(delegation)
    let verified = false
    const policy = {
      attempts: 5,
      exhausted: (): never => {
        throw new AdjustmentError('golemId', 'the Golem kept changing while the adjustment was stored; try again')
      },
    }
    return retry<AdjustmentOutcome>(policy, async (attempt) => {
      const record = await store.getGolem(golemId)
      if (!record) throw new AdjustmentError('golemId', 'names no Golem')
      const profile = parseGolemProfile(record.profile)
      const now = (await client.getBlock({ blockTag: 'latest' })).timestamp
      const adjustment = checkAdjustment({
        profile,
        candidate: delegation,
        candidateHash,
        deployment,
        environment: deployment.environment,
        now,
      })
      if (!verified) {
        verified = await client
          .verifyTypedData({
            address: delegation.delegator,
            ...delegationTypedData(delegation, delegationDomainOf(deployment)),
            signature: delegation.signature,
          })
          .catch(() => false)
        if (!verified)
          throw new AdjustmentError(
            'delegation.signature',
            `must be the owner's signature over the delegation, valid for ${delegation.delegator} (ERC-1271 / ERC-6492)`,
          )
      }
      // Kept before it is stored: a grant the owner signed is revocable even if the store write never lands.
      if (attempt === 0)
        await recordOwnerGrants(store, golemId, [{ kind: 'runway', label: 'runway adjustment', delegation }], Number(now) * 1000)
      const updated = await store.updateGolem({
        golemId,
        expectedVersion: record.version,
        patch: { profile: serializeGolemProfile(installAdjustment(profile, adjustment)) },
        now: Number(now) * 1000,
      })
      if (!updated.updated) return RETRY
      await store.appendEvent({
        golemId,
        type: DELEGATION_ADJUSTMENT_SIGNED_EVENT,
        at: Number(now) * 1000,
        eventId: `${DELEGATION_ADJUSTMENT_SIGNED_EVENT}:${candidateHash}`,
        data: {
          delegationHash: candidateHash,
          supersedes: [...adjustment.supersedes],
          periodAmount: adjustment.periodAmount.toString(),
          periodStart: adjustment.periodStart.toString(),
          expiresAt: adjustment.expiresAt.toString(),
        },
      })
      return {
        delegationHash: candidateHash,
        supersedes: adjustment.supersedes as Hex[],
        periodAmount: adjustment.periodAmount,
        periodStart: adjustment.periodStart,
        expiresAt: adjustment.expiresAt,
      }
    })
  }
}
