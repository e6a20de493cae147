// Key rotation in the deployed tick: the new key is created in KMS for this rotation (tagged with the
// stage, the role and the Golem, named by an alias from the key it replaces), exactly once across a crash
// and concurrent ticks: the intent is a conditional write in the store before CreateKey, and a retry finds
// the key by its alias. Its address is read from KMS (GetPublicKey). The renewed grant comes from the
// ERC-7715 Session Account where the platform holds its key (it re-delegates the owner's permission to
// the new key); where only the owner can sign (a direct grant), the rotation records an owner renewal
// request and waits. app/tick/rotate.ts carries the rotation out (crash-safe), exactly as with the
// local key source.
import { KMSClient } from '@aws-sdk/client-kms'
import type { Delegation } from '@metamask/smart-accounts-kit'
import { randomBytes, randomUUID } from 'node:crypto'
import { getAddress, hashStruct, isAddressEqual, toHex, type Address, type Hex } from 'viem'
import type { TickChainClient } from '../chain/tickChainClient.ts'
import type { RotationPolicy } from '../../core/custody/rotation.ts'
import type { KeyRotation, RenewedRunway } from '../../core/custody/signerResolver.ts'
import type { TickDeployment } from '../../core/deployment.ts'
import { BardoError } from '../../core/errors.ts'
import { RETRY, retry } from '../../core/retry.ts'
import { encodeBardoTerms } from '../../core/caveats/encodeBardoTerms.ts'
import { runwayGates } from '../../core/delegations/buildGolemDelegation.ts'
import type { GolemProfile } from '../../core/lifecycle/profile.ts'
import { durableRotationDecision } from '../../core/lifecycle/rotationPlan.ts'
import type { EventStore, GolemStore, PoolKeyStore } from '../../core/store/index.ts'
import { rotationClaimant } from '../../core/custody/rotationClaim.ts'
import { createKmsSigner } from './kmsSigner.ts'
import { ensureSessionKey, findSessionKey, type SessionKeyRef } from './kmsKeys.ts'
import { rotationAlias, stageOfPrefix } from './kmsKeyNames.ts'
import { SIGNABLE_DELEGATION_TYPED_DATA, toDelegationStruct } from '@metamask/smart-accounts-kit/utils'
import type { RawSigner } from '../../core/custody/rawSigner.ts'
import { delegationDomainOf, delegationTypedData } from '../../core/delegations/typedData.ts'

/** The event a rotation records when only the owner can sign the new key's grant. */
export const ROTATION_RENEWAL_REQUESTED = 'RotationRenewalRequested'
/**
 * How long a claim to create a rotation's key stands before another tick may take over: longer than the
 * tick's own timeout, so its creator has certainly stopped.
 */
export const KEY_CREATION_LEASE_MS = 300_000
/** Takeovers of a creation whose creator died before naming its key, before the rotation gives up. */
export const MAX_KEY_CREATION_ATTEMPTS = 3

/** Another tick is creating this rotation's key (or died doing so within the lease): a later tick finishes. */
export class RotationKeyPendingError extends BardoError {
  constructor(alias: string, rule: string) {
    super('ROTATION_KEY_PENDING', `rotation key ${alias}: ${rule}`, { details: { field: 'rotationKey', alias } })
  }
}

/** The key to rotate away from is held by no Golem in the store: there is nobody to tag the new key for. */
export class RotationKeyOwnerError extends BardoError {
  constructor(oldKey: Address) {
    super('ROTATION_KEY_OWNER', `profile.golemKey: no Golem in the store holds ${oldKey}`, { details: { field: 'profile.golemKey' } })
  }
}

/** The profile's Session Account cannot sign through KMS: its key must be the KMS key at its address. */
export class SessionAccountKeyError extends BardoError {
  constructor(rule: string) {
    super('SESSION_ACCOUNT_KEY', `profile.sessionAccount.signer: ${rule}`, { details: { field: 'profile.sessionAccount.signer', rule } })
  }
}

export { rotationClaimant }
/** The store key of a claim to create the key named `alias` (one per takeover attempt). */
export const keyCreationIntent = (alias: string, attempt: number) => `${alias}:${attempt}`

export type KmsKeyRotationOptions = {
  deployment: TickDeployment
  client: TickChainClient
  store: PoolKeyStore & Pick<GolemStore, 'findGolems'> & Pick<EventStore, 'appendEvent'>
  /** Where the stage's SessionKey aliases live, `alias/<app>/<stage>` (BARDO_KMS_ALIAS_PREFIX). */
  aliasPrefix: string
  kms?: Pick<KMSClient, 'send'>
  policy?: Partial<RotationPolicy>
  /** Wall clock (unix ms) for the claims' timestamps. */
  nowMs?: () => number
}

export class KmsKeyRotation implements KeyRotation {
  readonly #o: KmsKeyRotationOptions
  readonly #kms: Pick<KMSClient, 'send'>
  readonly #stage: string
  // A key's address never changes: read it from KMS once per instance.
  readonly #signers = new Map<string, Promise<RawSigner>>()

  constructor(options: KmsKeyRotationOptions) {
    this.#o = options
    this.#kms = options.kms ?? new KMSClient({})
    this.#stage = stageOfPrefix(options.aliasPrefix)
  }

  /** Age since the key took over, and the transactions it signed (its nonce), against the policy. */
  async due(profile: GolemProfile, now: number): Promise<{ rotate: boolean; reason?: string }> {
    const signed = await this.#o.client.getTransactionCount({ address: profile.golemKey, blockTag: 'latest' })
    return durableRotationDecision(profile, signed, now, this.#o.policy)
  }

  async newKey(profile: GolemProfile): Promise<{ address: Address; signer: GolemProfile['signer'] }> {
    const claimant = rotationClaimant(profile.golemKey)
    const mine = await this.#o.store.findPoolKeyClaim(claimant)
    if (mine) return { address: getAddress(mine.address), signer: { kind: 'kms', keyId: mine.keyId } }
    const [golem] = await this.#o.store.findGolems({ sessionKey: profile.golemKey })
    if (!golem) throw new RotationKeyOwnerError(profile.golemKey)
    const alias = rotationAlias(this.#o.aliasPrefix, golem.golemId, profile.golemKey)
    const key = await this.#createOnce(alias, golem.golemId, profile.golemKey)
    // Recorded as the rotation's key: every later attempt (and the owner renewal request) finds it in one read.
    const taken = await this.#o.store.claimPoolKey({ keyId: key.keyId, address: key.address, claimant, now: this.#nowMs() })
    if (!taken.claimed) throw new RotationKeyPendingError(alias, `the key ${key.keyId} is claimed by ${taken.claim.claimant}`)
    return { address: key.address, signer: { kind: 'kms', keyId: key.keyId } }
  }

  /**
   * The key `alias` names, created by exactly one tick: the tick whose conditional write takes the
   * creation intent calls CreateKey; the others use the key once it is named, or take over when its
   * creator died before naming one (after the lease, under the next attempt's intent).
   */
  async #createOnce(alias: string, golemId: string, oldKey: Address): Promise<SessionKeyRef> {
    const creator = `key-creation:${oldKey.toLowerCase()}:${randomUUID()}`
    const policy = {
      attempts: MAX_KEY_CREATION_ATTEMPTS,
      exhausted: (): never => {
        throw new RotationKeyPendingError(
          alias,
          `${MAX_KEY_CREATION_ATTEMPTS} creators stopped before naming a key; see the operator runbook`,
        )
      },
    }
    return retry<SessionKeyRef>(policy, async (attempt) => {
      const intent = await this.#o.store.claimPoolKey({
        keyId: keyCreationIntent(alias, attempt),
        address: oldKey,
        claimant: creator,
        now: this.#nowMs(),
      })
      if (intent.claimed)
        return ensureSessionKey({
          kms: this.#kms,
          alias,
          stage: this.#stage,
          golemId,
          description: `Bardo SessionKey of Golem ${golemId} (${this.#stage}), replacing ${oldKey}`,
        })
      const named = await findSessionKey(this.#kms, alias)
      if (named) return named
      if (this.#nowMs() < intent.claim.claimedAt + KEY_CREATION_LEASE_MS)
        throw new RotationKeyPendingError(alias, 'another tick is creating it; a later tick uses it')
      return RETRY
    })
  }

  async renew(profile: GolemProfile, newKey: Address, startAt: bigint): Promise<RenewedRunway | null> {
    const chain = profile.runway.chain
    // The owner answered the request: its grant to the new key, from the grid's next boundary on.
    const answered = profile.rotationGrant
    if (answered && isAddressEqual(answered.to, newKey)) {
      const { chain: granted, periodDelegationHash, periodTerms, chainHashes, periodStart } = answered
      return { chain: granted, periodDelegationHash, periodTerms, chainHashes, periodStart }
    }
    if (!this.#sessionAccountHolds(profile, chain)) {
      await this.#requestOwnerRenewal(profile, newKey, startAt)
      return null
    }
    const renewed = await this.#redelegate(profile, chain, profile.runway.chainHashes, newKey, startAt)
    return {
      chain: renewed.chain,
      periodDelegationHash: profile.runway.periodDelegationHash,
      periodTerms: profile.runway.periodTerms,
      chainHashes: [renewed.hash, ...profile.runway.chainHashes.slice(1)],
      periodStart: profile.runway.periodStart,
    }
  }

  /**
   * The Session Account's gas permission re-delegated to the new key; for an owner's direct gas grant, the
   * owner's answer's gas grant to the new key (none before the owner answers).
   */
  async renewGas(profile: GolemProfile, newKey: Address, startAt: bigint): Promise<NonNullable<GolemProfile['gas']> | undefined> {
    const answered = profile.rotationGrant
    if (answered?.gas && isAddressEqual(answered.to, newKey)) return answered.gas
    const gas = profile.gas
    if (!gas || !this.#sessionAccountHolds(profile, gas.chain)) return undefined
    const renewed = await this.#redelegate(profile, gas.chain, gas.chainHashes, newKey, startAt)
    return { ...gas, chain: renewed.chain, chainHashes: [renewed.hash, ...gas.chainHashes.slice(1)] }
  }

  /** The chain is [Session Account -> key, owner -> Session Account, ...] and the platform holds that key. */
  #sessionAccountHolds(profile: GolemProfile, chain: readonly Delegation[]): boolean {
    const account = profile.sessionAccount
    const leaf = chain[0]
    return (
      account !== undefined &&
      account.signer.kind === 'kms' &&
      chain.length >= 2 &&
      !!leaf &&
      isAddressEqual(leaf.delegator, account.address)
    )
  }

  /**
   * The Session Account signs a new leaf to `newKey` under the same permission: the golemPhase gate names
   * the new key from `startAt` (the old grid's next period boundary) to the grant's end. The period
   * budget stays on the owner's permission, so old and new key share it and no period is paid twice.
   * Built field by field rather than through the delegation tree, which would carry MetaMask's utils
   * library into the tick's bundle; the DelegationManager checks the chain on every redemption anyway.
   */
  async #redelegate(
    profile: GolemProfile,
    chain: readonly Delegation[],
    chainHashes: readonly Hex[],
    newKey: Address,
    startAt: bigint,
  ): Promise<{ chain: Delegation[]; hash: Hex }> {
    const account = profile.sessionAccount!
    if (account.signer.kind !== 'kms') throw new SessionAccountKeyError('must be a KMS key')
    const { deployment } = this.#o
    const raw = await this.#signer(account.signer.keyId)
    if (!isAddressEqual(raw.address, account.address))
      throw new SessionAccountKeyError(`KMS key ${account.signer.keyId} must be the Session Account's key (${account.address})`)
    const unsigned: Delegation = {
      delegate: newKey,
      delegator: account.address,
      authority: chainHashes[1]!,
      caveats: [
        {
          enforcer: deployment.enforcers.golemPhase,
          // The runway shape, as core's re-delegation builder writes it (runwayGates): one plain transfer.
          terms: encodeBardoTerms(
            runwayGates([{ type: 'golemPhase', golem: newKey, startTime: startAt, endTime: profile.runway.expiresAt }], newKey)[0]!,
          ),
          args: '0x',
        },
      ],
      salt: toHex(randomBytes(32)),
      signature: '0x',
    }
    const leaf = {
      ...unsigned,
      signature: await raw.signTypedData(delegationTypedData(unsigned, delegationDomainOf(deployment))),
    }
    // The DelegationManager's delegation hash: the EIP-712 struct hash of the signed fields.
    const hash = hashStruct({ data: toDelegationStruct(leaf), types: SIGNABLE_DELEGATION_TYPED_DATA, primaryType: 'Delegation' })
    return { chain: [leaf, ...chain.slice(1)], hash }
  }

  /**
   * Records that the owner must sign the new key's grant, once per rotation: the event's time is the
   * claim's, so every retry writes the same (time, id) pair and the store keeps one.
   */
  async #requestOwnerRenewal(profile: GolemProfile, newKey: Address, startAt: bigint): Promise<void> {
    const [golem] = await this.#o.store.findGolems({ sessionKey: profile.golemKey })
    const claim = await this.#o.store.findPoolKeyClaim(rotationClaimant(profile.golemKey))
    if (!golem || !claim) return
    await this.#o.store.appendEvent({
      golemId: golem.golemId,
      type: ROTATION_RENEWAL_REQUESTED,
      at: claim.claimedAt,
      eventId: `${ROTATION_RENEWAL_REQUESTED}:${newKey.toLowerCase()}`,
      data: {
        oldAddress: profile.golemKey,
        newAddress: newKey,
        startAt: startAt.toString(),
        grantEndsAt: profile.runway.expiresAt.toString(),
        delegationHash: profile.runway.chainHashes[0]!,
      },
    })
  }

  #signer(keyId: string): Promise<RawSigner> {
    const cached = this.#signers.get(keyId)
    if (cached) return cached
    const signer = createKmsSigner({ keyId, client: this.#kms })
    this.#signers.set(keyId, signer)
    signer.catch(() => this.#signers.delete(keyId))
    return signer
  }

  #nowMs(): number {
    return this.#o.nowMs?.() ?? Date.now()
  }
}
