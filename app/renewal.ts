// Feed-the-Golem renewal: the owner's superseding runway grant, checked (core/lifecycle/renewalCheck),
// verified and installed in the Golem's profile (app/ownerSignedGrant.ts), queued behind the newest grant.
// A refused renewal writes nothing.
import type { Delegation } from '@metamask/smart-accounts-kit'
import type { Hex } from 'viem'
import { latestGrant } from '../core/lifecycle/grantInForce.ts'
import { checkRenewal, installRenewal, RenewalError, type RenewedGrant } from '../core/lifecycle/renewalCheck.ts'
import { applyOwnerSignedGrant, type OwnerGrantDeps, type OwnerGrantRule } from './ownerSignedGrant.ts'

export type RenewalOutcome = { delegationHash: Hex; replaced: Hex; expiresAt: bigint; periodStart: bigint }

export interface RenewalService {
  renew(golemId: string, delegation: Delegation): Promise<RenewalOutcome>
}

export const DELEGATION_RENEWED_EVENT = 'DelegationRenewed'

const renewal: OwnerGrantRule<RenewedGrant, RenewalOutcome> = {
  name: 'renewal',
  label: 'runway renewal',
  event: DELEGATION_RENEWED_EVENT,
  refuse: (field, rule) => new RenewalError(field, rule),
  check: checkRenewal,
  install: installRenewal,
  outcome: ({ grant, hash, before }) => {
    const replaced = latestGrant(before).periodDelegationHash as Hex
    return {
      result: { delegationHash: hash, replaced, expiresAt: grant.expiresAt, periodStart: grant.periodStart },
      data: { replaced, delegationHash: hash, expiresAt: grant.expiresAt.toString(), periodStart: grant.periodStart.toString() },
    }
  },
}

export class StoreRenewalService implements RenewalService {
  constructor(private readonly o: OwnerGrantDeps) {}

  renew(golemId: string, delegation: Delegation): Promise<RenewalOutcome> {
    return applyOwnerSignedGrant(this.o, renewal, golemId, delegation)
  }
}
