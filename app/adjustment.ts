// The owner's adjustment of a Golem's runway grant without revoking it: the narrower grant the owner
// signed, checked (core/lifecycle/adjustment.ts), verified and stored in the Golem's profile
// (app/ownerSignedGrant.ts), where it waits for the owner's transaction that disables what it supersedes.
// A refused adjustment writes nothing.
import type { Delegation } from '@metamask/smart-accounts-kit'
import type { Hex } from 'viem'
import { AdjustmentError, checkAdjustment, installAdjustment } from '../core/lifecycle/adjustment.ts'
import type { PendingAdjustment } from '../core/lifecycle/adjustmentInForce.ts'
import { applyOwnerSignedGrant, type OwnerGrantDeps, type OwnerGrantRule } from './ownerSignedGrant.ts'

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

const adjustment: OwnerGrantRule<PendingAdjustment, AdjustmentOutcome> = {
  name: 'adjustment',
  label: 'runway adjustment',
  event: DELEGATION_ADJUSTMENT_SIGNED_EVENT,
  refuse: (field, rule) => new AdjustmentError(field, rule),
  check: checkAdjustment,
  install: installAdjustment,
  outcome: ({ grant, hash }) => ({
    result: {
      delegationHash: hash,
      supersedes: grant.supersedes as Hex[],
      periodAmount: grant.periodAmount,
      periodStart: grant.periodStart,
      expiresAt: grant.expiresAt,
    },
    data: {
      delegationHash: hash,
      supersedes: [...grant.supersedes],
      periodAmount: grant.periodAmount.toString(),
      periodStart: grant.periodStart.toString(),
      expiresAt: grant.expiresAt.toString(),
    },
  }),
}

export class StoreAdjustmentService implements AdjustmentService {
  constructor(private readonly o: OwnerGrantDeps) {}

  adjust(golemId: string, delegation: Delegation): Promise<AdjustmentOutcome> {
    return applyOwnerSignedGrant(this.o, adjustment, golemId, delegation)
  }
}
