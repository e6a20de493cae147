// The owner's answer to a key rotation only the owner can sign for: the runway grant to the new key the
// rotation created (the key claimed for the Golem's current key), and beside it the gas grant to that key
// when the old key had one from the owner, checked (core/lifecycle/rotationGrant,
// core/permissions/rotationGasGrant), verified and kept in the Golem's profile (app/ownerSignedGrant.ts)
// for the next tick's rotation to install. A refused answer writes nothing.
import type { Delegation } from '@metamask/smart-accounts-kit'
import { hashDelegation } from '@metamask/smart-accounts-kit/utils'
import { getAddress, type Address, type Hex } from 'viem'
import { rotationClaimant } from '../core/custody/rotationClaim.ts'
import { checkRotationGrant, installRotationGrant, RotationGrantError, type RotationGrant } from '../core/lifecycle/rotationGrant.ts'
import { parseGolemProfile } from '../core/lifecycle/profile.ts'
import { checkRotationGasGrant } from '../core/permissions/rotationGasGrant.ts'
import type { PoolKeyStore } from '../core/store/index.ts'
import { applyOwnerSignedGrant, type OwnerGrantDeps, type OwnerGrantRule } from './ownerSignedGrant.ts'

export type RotationGrantOutcome = {
  delegationHash: Hex
  gasDelegationHash: Hex | null
  to: Address
  periodStart: bigint
  expiresAt: bigint
}

export interface RotationGrantService {
  /** `gas`: the owner's gas grant to the new key, required when the old key had a direct one. */
  answer(golemId: string, delegation: Delegation, gas?: Delegation): Promise<RotationGrantOutcome>
}

export const ROTATION_GRANT_RECEIVED_EVENT = 'RotationGrantReceived'

/** The new key a rotation of `golemKey` created and waits for the owner's grant to, if any. */
export async function rotationWaitingFor(store: Pick<PoolKeyStore, 'findPoolKeyClaim'>, golemKey: Address): Promise<Address | null> {
  const claim = await store.findPoolKeyClaim(rotationClaimant(golemKey))
  return claim ? getAddress(claim.address) : null
}

export class StoreRotationGrantService implements RotationGrantService {
  constructor(private readonly o: OwnerGrantDeps & { keys: Pick<PoolKeyStore, 'findPoolKeyClaim'> }) {}

  async answer(golemId: string, delegation: Delegation, gas?: Delegation): Promise<RotationGrantOutcome> {
    const record = await this.o.store.getGolem(golemId)
    if (!record) throw new RotationGrantError('golemId', 'names no Golem')
    const to = await rotationWaitingFor(this.o.keys, parseGolemProfile(record.profile).golemKey)
    if (!to) throw new RotationGrantError('golemId', 'no key rotation waits for the owner: nothing to answer')
    const refuse = (field: string, rule: string) => new RotationGrantError(field, rule)
    const gasHash = gas ? hashDelegation(gas) : undefined
    const rule: OwnerGrantRule<RotationGrant, RotationGrantOutcome> = {
      name: 'rotation grant',
      label: 'runway grant to the rotated key',
      event: ROTATION_GRANT_RECEIVED_EVENT,
      refuse,
      check: (input) => {
        const runway = checkRotationGrant({ ...input, to })
        const gasGrant = checkRotationGasGrant(
          { ...input, candidate: gas, candidateHash: gasHash, to, periodStart: runway.periodStart, expiresAt: runway.expiresAt },
          refuse,
        )
        return gasGrant ? { ...runway, gas: gasGrant } : runway
      },
      install: installRotationGrant,
      outcome: ({ grant, hash }) => {
        const gasHash = grant.gas?.periodDelegationHash ?? null
        return {
          result: { delegationHash: hash, gasDelegationHash: gasHash, to, periodStart: grant.periodStart, expiresAt: grant.expiresAt },
          data: {
            delegationHash: hash,
            gasDelegationHash: gasHash,
            to,
            periodStart: grant.periodStart.toString(),
            expiresAt: grant.expiresAt.toString(),
          },
        }
      },
      ...(gas ? { companions: [{ field: 'gas', kind: 'gas' as const, label: 'gas grant to the rotated key', delegation: gas }] } : {}),
    }
    return applyOwnerSignedGrant(this.o, rule, golemId, delegation)
  }
}
