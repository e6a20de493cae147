// The owner's read-only observers ("Sleepwalkers") of a Golem: the grant drafted from the owner's account
// for the wallet to sign, the signed grant checked (core/custody/observerGrant.ts), verified against the
// owner's smart account (ERC-1271 / ERC-6492) and kept in the owner's grant ledger (kind `observer`), the
// list with each grant's state read from the chain, and the owner's revocation drafted as one user
// operation from the owner's account (DelegationManager.disableDelegation). A draft changes nothing; a
// refused grant writes nothing.
import type { Delegation } from '@metamask/smart-accounts-kit'
import { getAddress, isAddressEqual, type Address, type Hex, type PublicClient } from 'viem'
import { ownerOperation, type OwnerOperation } from '../adapters/chain/userOperation.ts'
import { decodeDelegationCaveats } from '../core/caveats/caveat.ts'
import type { ObserverPublishMethod } from '../core/caveats/observerScope.ts'
import { loadOwnerGrants, recordOwnerGrants } from '../core/custody/grantLedger.ts'
import { checkObserverGrant, ObserverGrantError, observerTermsOf, type ObserverTerms } from '../core/custody/observerGrant.ts'
import { ownerSignedGrants } from '../core/custody/revocationPlan.ts'
import type { BardoDeployment } from '../core/deployment.ts'
import { buildObserverDelegation } from '../core/delegations/buildObserverDelegation.ts'
import { DelegationShapeError } from '../core/delegations/errors.ts'
import { encodeDisableDelegation } from '../core/delegations/redeem.ts'
import { DelegationTree } from '../core/delegations/tree.ts'
import { delegationDomainOf, delegationTypedData } from '../core/delegations/typedData.ts'
import type { GolemRecord, Store } from '../core/store/index.ts'
import { knownTokens } from './fleet.ts'
import { OwnerDraftError, type GrantDraft } from './ownerDrafts.ts'
import { disabledAmong } from './revocation.ts'

export type ObserverDeps = {
  store: Pick<Store, 'getGolem' | 'readLog' | 'appendLog' | 'appendEvent'>
  client: PublicClient
  deployment: BardoDeployment
}

/** What the owner asks for: the observer, and optionally fewer publish methods, an expiry and a call limit. */
export type ObserverRequest = { observer: Address; publish?: ObserverPublishMethod[]; expiresAt?: number; maxCalls?: number }

/** `revoked`: disabled on the DelegationManager; `expired`: past its Timestamp caveat's end. */
export type ObserverStatus = 'active' | 'revoked' | 'expired'

export type ObserverGrantView = ObserverTerms & { delegationHash: Hex; status: ObserverStatus; delegation: Delegation }

export type ObserverDraft = GrantDraft & ObserverTerms & { delegationHash: Hex }

export type ObserverRevocationDraft = OwnerOperation & { grants: Hex[] }

export const OBSERVER_GRANTED_EVENT = 'ObserverGranted'

export class ObserverGrants {
  readonly #d: ObserverDeps
  constructor(deps: ObserverDeps) {
    this.#d = deps
  }

  async #now(): Promise<bigint> {
    return (await this.#d.client.getBlock({ blockTag: 'latest' })).timestamp
  }

  async #record(golemId: string): Promise<GolemRecord> {
    const record = await this.#d.store.getGolem(golemId)
    if (!record?.profile) throw new OwnerDraftError('GOLEM_NOT_FOUND', 'golem', `names no Golem with a custody profile: ${golemId}`)
    return record
  }

  /** The observer delegation from the owner's account, unsigned, with the typed data the wallet signs. */
  async draft(golemId: string, request: ObserverRequest): Promise<ObserverDraft> {
    const record = await this.#record(golemId)
    const now = await this.#now()
    const { deployment } = this.#d
    const tree = new DelegationTree({ environment: deployment.environment, deployment, now: () => now })
    let built: ReturnType<typeof buildObserverDelegation>
    try {
      built = buildObserverDelegation({
        tree,
        from: record.owner,
        observer: request.observer,
        ...(request.publish === undefined ? {} : { publish: request.publish }),
        ...(request.expiresAt === undefined ? {} : { expiresAt: BigInt(request.expiresAt) }),
        ...(request.maxCalls === undefined ? {} : { maxCalls: request.maxCalls }),
      })
    } catch (error) {
      if (error instanceof DelegationShapeError)
        throw new OwnerDraftError('VALIDATION_FAILED', error.field, error.message.slice(error.field.length + 1))
      throw error
    }
    const terms = observerTermsOf(built.delegation.delegate, tree.get(built.hash)!.caveats, deployment)
    return {
      delegation: { ...built.delegation, signature: '0x' },
      typedData: delegationTypedData(built.delegation, delegationDomainOf(deployment)),
      delegationHash: built.hash,
      ...terms,
    }
  }

  /**
   * Keeps the owner's signed observer grant: checked (the owner's root grant, exactly an observer's
   * scope, not expired), its signature verified against the owner's account, then recorded in the grant
   * ledger and the Golem's events. A grant already kept is answered again, unchanged (`recorded: false`).
   */
  async grant(golemId: string, delegation: Delegation): Promise<ObserverGrantView & { recorded: boolean }> {
    const { store, client, deployment } = this.#d
    const record = await this.#record(golemId)
    const now = await this.#now()
    // The deployment's own tokens are named in a refusal (a chain's USDC is known where its assets are).
    const labels = deployment.assets ? { tokens: knownTokens({ deployment, usdc: deployment.assets.usdc }) } : {}
    const checked = checkObserverGrant({ delegation, owner: record.owner, deployment, environment: deployment.environment, now, labels })
    const verified = await client
      .verifyTypedData({
        address: record.owner,
        ...delegationTypedData(delegation, delegationDomainOf(deployment)),
        signature: delegation.signature,
      })
      .catch(() => false)
    if (!verified)
      throw new ObserverGrantError(
        'delegation.signature',
        `must be the owner's signature over the delegation, valid for ${getAddress(record.owner)} (ERC-1271 / ERC-6492)`,
      )
    const { hash, ...terms } = checked
    const view: ObserverGrantView = { ...terms, delegationHash: hash, status: 'active', delegation }
    if ((await this.#observerGrants(record)).some((g) => g.hash === hash)) return { ...view, recorded: false }
    const at = Number(now) * 1000
    await recordOwnerGrants(store, golemId, [{ kind: 'observer', label: `observer ${terms.observer}`, delegation }], at)
    await store.appendEvent({
      golemId,
      type: OBSERVER_GRANTED_EVENT,
      at,
      eventId: `${OBSERVER_GRANTED_EVENT}:${hash}`,
      data: {
        delegationHash: hash,
        observer: terms.observer,
        publish: terms.publish.join(','),
        expiresAt: terms.expiresAt === null ? null : terms.expiresAt.toString(),
        maxCalls: terms.maxCalls === null ? null : terms.maxCalls.toString(),
      },
    })
    return { ...view, recorded: true }
  }

  async #observerGrants(record: GolemRecord) {
    const grants = await loadOwnerGrants(this.#d.store, record.golemId)
    return ownerSignedGrants(
      record.owner,
      grants.filter((g) => g.kind === 'observer'),
    )
  }

  /**
   * Every observer the owner granted for the Golem, oldest first, each active, revoked or expired as the
   * chain says now: the DelegationManager's disabledDelegations (what every redemption is checked
   * against, read at the head, so a revocation shows as soon as it is mined) and the chain's time.
   */
  async list(golemId: string): Promise<{ owner: Address; observers: ObserverGrantView[] }> {
    const record = await this.#record(golemId)
    const { client, deployment } = this.#d
    const grants = await this.#observerGrants(record)
    const [disabled, now] = await Promise.all([
      disabledAmong(
        { client, delegationManager: deployment.environment.DelegationManager },
        grants.map((g) => g.hash),
      ),
      this.#now(),
    ])
    const observers = grants.map((g): ObserverGrantView => {
      const terms = observerTermsOf(
        g.delegation.delegate,
        decodeDelegationCaveats(g.delegation, deployment, deployment.environment),
        deployment,
      )
      const status: ObserverStatus = disabled.has(g.hash)
        ? 'revoked'
        : terms.expiresAt !== null && terms.expiresAt <= now
          ? 'expired'
          : 'active'
      return { ...terms, delegationHash: g.hash, status, delegation: g.delegation }
    })
    return { owner: getAddress(record.owner), observers }
  }

  /**
   * The owner's revocation of one observer grant (by its hash) or of every grant to one observer (by its
   * address): one user operation from the owner's account calling disableDelegation for each still enabled.
   */
  async revocationDraft(golemId: string, which: { delegationHash?: Hex; observer?: Address }): Promise<ObserverRevocationDraft> {
    if ((which.delegationHash === undefined) === (which.observer === undefined))
      throw new OwnerDraftError('VALIDATION_FAILED', 'delegationHash', 'exactly one of delegationHash and observer is required')
    const { owner, observers } = await this.list(golemId)
    const named = observers.filter((o) =>
      which.delegationHash !== undefined
        ? o.delegationHash.toLowerCase() === which.delegationHash.toLowerCase()
        : isAddressEqual(o.observer, which.observer!),
    )
    const field = which.delegationHash !== undefined ? 'delegationHash' : 'observer'
    if (named.length === 0)
      throw new OwnerDraftError(
        'OBSERVER_NOT_FOUND',
        field,
        `names no observer grant of Golem ${golemId}: ${which.delegationHash ?? which.observer}`,
      )
    const open = named.filter((o) => o.status !== 'revoked')
    if (open.length === 0) throw new OwnerDraftError('NOTHING_TO_REVOKE', field, 'every grant it names is disabled already')
    const { client, deployment } = this.#d
    const calls = open.map((o) => ({ to: deployment.environment.DelegationManager, data: encodeDisableDelegation(o.delegation) }))
    const operation = await ownerOperation(client, deployment.environment, deployment.chainId, owner, calls)
    return { ...operation, grants: open.map((o) => o.delegationHash) }
  }
}
