// What the owner's wallet is asked to sign for the owner's acts, drafted from the store and the chain:
// the revocation (one user operation from the owner's smart account disabling every grant of the Golems
// named), the renewal (the superseding grant) and the adjustment (a narrower grant, and the one user
// operation disabling what it supersedes). A draft is unsigned and changes nothing: the owner signs it in
// the wallet, posts a grant to the API, and submits a user operation from the owner's own account.
import type { SmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import { pad, toHex, type Address, type Hex, type PublicClient } from 'viem'
import { ownerOperation, type OwnerOperation } from '../adapters/chain/userOperation.ts'
import { planRevocation } from '../core/custody/revocationPlan.ts'
import type { BardoDeployment } from '../core/deployment.ts'
import { buildGolemDelegation } from '../core/delegations/buildGolemDelegation.ts'
import { DelegationTree } from '../core/delegations/tree.ts'
import { delegationDomainOf, delegationTypedData } from '../core/delegations/typedData.ts'
import { BardoError } from '../core/errors.ts'
import { adjustmentStart, supersededGrants } from '../core/lifecycle/adjustment.ts'
import { latestGrant } from '../core/lifecycle/grantInForce.ts'
import { parseGolemProfile } from '../core/lifecycle/profile.ts'
import { renewalWindow } from '../core/lifecycle/renewal.ts'
import { draftGasGrant } from '../core/permissions/golemGrants.ts'
import { directGasGrant } from '../core/permissions/rotationGasGrant.ts'
import type { Store } from '../core/store/index.ts'
import { revocationOf } from './revocation.ts'
import { rotationWaitingFor } from './rotationGrant.ts'

export type OwnerDraftsDeps = {
  store: Pick<Store, 'getGolem' | 'readLog' | 'findPoolKeyClaim'>
  client: PublicClient
  deployment: BardoDeployment
}

export class OwnerDraftError extends BardoError {
  constructor(code: 'VALIDATION_FAILED' | 'GOLEM_NOT_FOUND' | 'NOTHING_TO_REVOKE' | 'OBSERVER_NOT_FOUND', field: string, rule: string) {
    super(code, `${field}: ${rule}`, { details: { field, rule } })
  }
}

/** A grant for the owner to sign: the delegation (signature empty) and its EIP-712 typed data. */
export type GrantDraft = {
  delegation: Record<string, unknown>
  typedData: ReturnType<typeof delegationTypedData>
}

export type RevocationDraft = OwnerOperation & { grants: { delegationHash: Hex; kind: string; label: string }[] }
export type RenewalDraft = GrantDraft & { expiresAt: bigint }
/** `gas`: the gas grant to the new key, drafted when the old key had a direct one from the owner. */
export type RotationGrantDraft = GrantDraft & { to: Address; periodStart: bigint; expiresAt: bigint; gas?: GrantDraft }
export type AdjustmentDraft = GrantDraft & {
  disable: OwnerOperation & { grants: Hex[] }
  periodAmount: bigint
  periodStart: bigint
  expiresAt: bigint
}

const GOLEM_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/

export class OwnerDrafts {
  readonly #d: OwnerDraftsDeps
  constructor(deps: OwnerDraftsDeps) {
    this.#d = deps
  }

  get #environment(): SmartAccountsEnvironment {
    return this.#d.deployment.environment
  }

  async #now(): Promise<bigint> {
    return (await this.#d.client.getBlock({ blockTag: 'latest' })).timestamp
  }

  async #golem(id: string) {
    const record = await this.#d.store.getGolem(id)
    if (!record?.profile) throw new OwnerDraftError('GOLEM_NOT_FOUND', 'golem', `names no Golem with a custody profile: ${id}`)
    return { record, profile: parseGolemProfile(record.profile) }
  }

  #operation(owner: Address, calls: readonly { to: Address; data: Hex }[]): Promise<OwnerOperation> {
    return ownerOperation(this.#d.client, this.#environment, this.#d.deployment.chainId, owner, calls)
  }

  #grant(delegation: Parameters<typeof delegationTypedData>[0]): GrantDraft {
    return {
      delegation: { ...delegation, signature: '0x' },
      typedData: delegationTypedData(delegation, delegationDomainOf(this.#d.deployment)),
    }
  }

  /** Every grant the owner signed for these Golems (one owner), disabled in one user operation. */
  async revocation(golemIds: readonly string[]): Promise<RevocationDraft> {
    if (golemIds.length === 0 || golemIds.length > 50 || !golemIds.every((id) => GOLEM_ID.test(id)))
      throw new OwnerDraftError('VALIDATION_FAILED', 'golems', 'must be a list of 1-50 Golem ids')
    const deps = { store: this.#d.store, client: this.#d.client, delegationManager: this.#environment.DelegationManager }
    const plans = []
    for (const id of golemIds) plans.push(await revocationOf(deps, id))
    const owner = plans[0]!.owner
    const other = plans.find((p) => p.owner.toLowerCase() !== owner.toLowerCase())
    if (other) throw new OwnerDraftError('VALIDATION_FAILED', 'golems', `${other.golemId} has another owner than ${plans[0]!.golemId}`)
    const calls = plans.flatMap((p) => p.calls)
    if (calls.length === 0) throw new OwnerDraftError('NOTHING_TO_REVOKE', 'golems', 'every grant is disabled already')
    return {
      ...(await this.#operation(owner, calls)),
      grants: calls.map((call) => ({ delegationHash: call.hash, kind: call.kind, label: call.label })),
    }
  }

  /**
   * The superseding grant: same runway, a higher salt, one more life window from where the newest grant
   * stops paying, on the old grant's period grid, nothing wider than the grant it follows.
   */
  async renewal(golemId: string): Promise<RenewalDraft> {
    const { record, profile } = await this.#golem(golemId)
    const now = await this.#now()
    const latest = latestGrant(profile)
    const window = renewalWindow(profile, now, profile.life.runwayTotalSeconds)
    const tree = new DelegationTree({ environment: this.#environment, deployment: this.#d.deployment, now: () => now })
    const grant = buildGolemDelegation({
      tree,
      owner: record.owner,
      golem: profile.golemKey,
      bardo: [{ type: 'golemPhase', golem: profile.golemKey, startTime: now, endTime: window.endTime }],
      runway: {
        token: profile.runway.token,
        periodAmount: latest.periodAmount,
        periodDuration: Number(profile.runway.periodDuration),
        // Where the newest grant stops paying: never two of the owner's runway grants in one period.
        startDate: Number(window.startDate),
      },
      salt: pad(toHex(BigInt(latest.chain[0]!.salt) + 1n), { size: 32 }) as Hex,
    })
    if (!grant.runway) throw new OwnerDraftError('VALIDATION_FAILED', 'golem', 'its grant has no runway delegation')
    return { ...this.#grant(grant.runway.delegation), expiresAt: window.endTime }
  }

  /**
   * The grant a key rotation waits for: the newest grant's runway and end, to the new key the rotation
   * created, from the runway grid's next boundary (the old key pays until then), with a higher salt.
   */
  async rotationGrant(golemId: string): Promise<RotationGrantDraft> {
    const { record, profile } = await this.#golem(golemId)
    const to = await rotationWaitingFor(this.#d.store, profile.golemKey)
    if (!to) throw new OwnerDraftError('VALIDATION_FAILED', 'golem', 'no key rotation waits for the owner: nothing to sign')
    if (profile.runway.chain.length !== 1)
      throw new OwnerDraftError('VALIDATION_FAILED', 'golem', "an ERC-7715 grant's rotation is re-delegated by its Session Account")
    const now = await this.#now()
    const latest = latestGrant(profile)
    const start = adjustmentStart(profile, now)
    const tree = new DelegationTree({ environment: this.#environment, deployment: this.#d.deployment, now: () => now })
    const grant = buildGolemDelegation({
      tree,
      owner: record.owner,
      golem: to,
      bardo: [{ type: 'golemPhase', golem: to, startTime: now, endTime: latest.expiresAt }],
      runway: {
        token: profile.runway.token,
        periodAmount: latest.periodAmount,
        periodDuration: Number(profile.runway.periodDuration),
        startDate: Number(start),
      },
      salt: pad(toHex(BigInt(latest.chain[0]!.salt) + 1n), { size: 32 }) as Hex,
    })
    if (!grant.runway) throw new OwnerDraftError('VALIDATION_FAILED', 'golem', 'its grant has no runway delegation')
    // The old gas grant names the old key only: the same allowance to the new key, over the same window.
    const oldGas = directGasGrant(profile)
    const gas = oldGas
      ? draftGasGrant(tree, {
          deployment: this.#d.deployment,
          owner: record.owner,
          golemKey: to,
          periodAmount: oldGas.periodAmount,
          startDate: start,
          expiresAt: latest.expiresAt,
          now,
        })
      : undefined
    return {
      ...this.#grant(grant.runway.delegation),
      to,
      periodStart: start,
      expiresAt: latest.expiresAt,
      ...(gas ? { gas: this.#grant(gas.delegation) } : {}),
    }
  }

  /**
   * A narrower grant (a lower period amount, an earlier end, or both) from the next boundary of the
   * runway's grid, and the one user operation that disables every grant it supersedes.
   */
  async adjustment(golemId: string, change: { periodAmount?: unknown; endsAt?: unknown }): Promise<AdjustmentDraft> {
    const { record, profile } = await this.#golem(golemId)
    const refuse = (field: string, rule: string) => new OwnerDraftError('VALIDATION_FAILED', field, rule)
    if (profile.runway.chain.length !== 1) throw refuse('golem', "an ERC-7715 grant is adjusted in the owner's wallet")
    const now = await this.#now()
    const start = adjustmentStart(profile, now)
    const end = latestGrant(profile).expiresAt
    let periodAmount = profile.runway.periodAmount
    if (change.periodAmount !== undefined) {
      if (typeof change.periodAmount !== 'string' || !/^[0-9]{1,30}$/.test(change.periodAmount))
        throw refuse('periodAmount', "must be a whole number of the runway token's base units, as a decimal string")
      periodAmount = BigInt(change.periodAmount)
      if (periodAmount <= 0n || periodAmount > profile.runway.periodAmount)
        throw refuse('periodAmount', `must be above 0 and at most the current period amount ${profile.runway.periodAmount}`)
    }
    let endsAt = end
    if (change.endsAt !== undefined) {
      if (typeof change.endsAt !== 'number' || !Number.isSafeInteger(change.endsAt))
        throw refuse('endsAt', 'must be a unix time in seconds')
      endsAt = BigInt(change.endsAt)
      if (endsAt < start || endsAt > end)
        throw refuse('endsAt', `must be between ${start} (the adjusted grant's first period) and the current end ${end}`)
    }
    if (periodAmount === profile.runway.periodAmount && endsAt === end)
      throw refuse('periodAmount', 'must lower the period amount or the end (endsAt): an adjustment narrows the grant')
    const newest = profile.adjustment ?? latestGrant(profile)
    const tree = new DelegationTree({ environment: this.#environment, deployment: this.#d.deployment, now: () => now })
    const grant = buildGolemDelegation({
      tree,
      owner: record.owner,
      golem: profile.golemKey,
      bardo: [{ type: 'golemPhase', golem: profile.golemKey, startTime: now, endTime: endsAt }],
      runway: {
        token: profile.runway.token,
        periodAmount,
        periodDuration: Number(profile.runway.periodDuration),
        startDate: Number(start),
      },
      salt: pad(toHex(BigInt(newest.chain[0]!.salt) + 1n), { size: 32 }) as Hex,
    })
    if (!grant.runway) throw refuse('golem', 'its grant has no runway delegation')
    const superseded = planRevocation({
      owner: record.owner,
      delegationManager: this.#environment.DelegationManager,
      grants: supersededGrants(profile),
      disabled: new Set(),
    })
    return {
      ...this.#grant(grant.runway.delegation),
      disable: { ...(await this.#operation(record.owner, superseded.calls)), grants: superseded.calls.map((call) => call.hash) },
      periodAmount,
      periodStart: start,
      expiresAt: endsAt,
    }
  }
}
