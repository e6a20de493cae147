// Key rotation in the deployed tick: the new key is a free key of the stack's KMS pool, taken with a
// conditional write in the store so two ticks never take the same one, its address read from KMS
// (GetPublicKey). The renewed grant comes from the ERC-7715 Session Account where the platform holds its
// key (it re-delegates the owner's permission to the new key); where only the owner can sign (a direct
// grant), the rotation records an owner renewal request and waits. functions/tick/rotate.ts carries the
// rotation out (crash-safe), exactly as with the local key source.
import { KMSClient } from '@aws-sdk/client-kms'
import type { Delegation } from '@metamask/smart-accounts-kit'
import { randomBytes } from 'node:crypto'
import { getAddress, hashStruct, isAddressEqual, toHex, type Address, type Hex, type TypedDataDefinition } from 'viem'
import type { TickChainClient } from '../../adapters/chain/tickChainClient.ts'
import { VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import type { RotationPolicy } from '../../core/custody/rotation.ts'
import type { KeyRotation, RenewedRunway } from '../../core/custody/signerResolver.ts'
import type { BardoDeployment } from '../../core/deployment.ts'
import { BardoError } from '../../core/errors.ts'
import { encodeBardoTerms } from '../../core/caveats/encodeBardoTerms.ts'
import { runwayGates } from '../../core/delegations/buildGolemDelegation.ts'
import type { GolemProfile } from '../../core/lifecycle/profile.ts'
import { durableRotationDecision } from '../../core/lifecycle/rotationPlan.ts'
import type { EventStore, GolemStore, PoolKeyStore } from '../../core/store/index.ts'
import { createKmsSigner } from '../../adapters/signers/kmsSigner.ts'
import { SIGNABLE_DELEGATION_TYPED_DATA, toDelegationStruct } from '@metamask/smart-accounts-kit/utils'
import type { RawSigner } from '../../core/custody/rawSigner.ts'

/** The event a rotation records when only the owner can sign the new key's grant. */
export const ROTATION_RENEWAL_REQUESTED = 'RotationRenewalRequested'

/** Every key of the pool is held by a Golem, retired, or claimed: grow the pool and deploy. */
export class KeyPoolExhaustedError extends BardoError {
  constructor(size: number) {
    super(
      'KEY_POOL_EXHAUSTED',
      `BARDO_KMS_KEY_ARNS: every key of the pool (${size}) is in use, retired or claimed; raise BARDO_KEY_POOL_SIZE and deploy`,
      { details: { field: 'BARDO_KMS_KEY_ARNS', size } },
    )
  }
}

/** The profile's Session Account cannot sign through the pool: its key must be the KMS key at its address. */
export class SessionAccountKeyError extends BardoError {
  constructor(rule: string) {
    super('SESSION_ACCOUNT_KEY', `profile.sessionAccount.signer: ${rule}`, { details: { field: 'profile.sessionAccount.signer', rule } })
  }
}

/** The claimant of a rotation away from `oldKey`: each key belongs to one Golem and is rotated away once. */
export const rotationClaimant = (oldKey: Address) => `rotation:${oldKey.toLowerCase()}`

export type KmsKeyRotationOptions = {
  deployment: BardoDeployment
  client: TickChainClient
  store: PoolKeyStore & Pick<GolemStore, 'findGolems'> & Pick<EventStore, 'appendEvent'>
  /** The pool's key ids or ARNs, in pool order (BARDO_KMS_KEY_ARNS). */
  poolKeyIds: readonly string[]
  kms?: Pick<KMSClient, 'send'>
  policy?: Partial<RotationPolicy>
  /** Wall clock (unix ms) for the claim's timestamp. */
  nowMs?: () => number
}

export class KmsKeyRotation implements KeyRotation {
  readonly #o: KmsKeyRotationOptions
  readonly #kms: Pick<KMSClient, 'send'>
  // A key's address never changes: read it from KMS once per instance.
  readonly #signers = new Map<string, Promise<RawSigner>>()

  constructor(options: KmsKeyRotationOptions) {
    this.#o = options
    this.#kms = options.kms ?? new KMSClient({})
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
    for (const keyId of this.#o.poolKeyIds) {
      const claim = await this.#o.store.getPoolKeyClaim(keyId)
      // Our own claim whose pointer a crash did not write: claiming it again writes the pointer.
      if (claim && claim.claimant !== claimant) continue
      const address = claim ? getAddress(claim.address) : (await this.#signer(keyId)).address
      // The Golem's own Session Account key is never its execution key, claimed or not.
      if (profile.sessionAccount && isAddressEqual(address, profile.sessionAccount.address)) continue
      if (!claim && !(await this.#isFree(address))) continue
      const taken = await this.#o.store.claimPoolKey({ keyId, address, claimant, now: this.#nowMs() })
      if (taken.claimed) return { address, signer: { kind: 'kms', keyId } }
    }
    throw new KeyPoolExhaustedError(this.#o.poolKeyIds.length)
  }

  async renew(profile: GolemProfile, newKey: Address, startAt: bigint): Promise<RenewedRunway | null> {
    const chain = profile.runway.chain
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

  /** The Session Account's gas permission re-delegated to the new key; none for an owner's direct gas grant. */
  async renewGas(profile: GolemProfile, newKey: Address, startAt: bigint): Promise<NonNullable<GolemProfile['gas']> | undefined> {
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
    if (account.signer.kind !== 'kms') throw new SessionAccountKeyError('must be a KMS key of the pool')
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
    const leaf = { ...unsigned, signature: await raw.signTypedData(delegationTypedData(unsigned, deployment)) }
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

  /** No Golem in the store holds the key, and the VitalityOracle has never seen it (a retired key stays retired). */
  async #isFree(address: Address): Promise<boolean> {
    if ((await this.#o.store.findGolems({ sessionKey: address })).length > 0) return false
    const state = await this.#o.client.readContract({
      address: this.#o.deployment.vitalityOracle,
      abi: VitalityOracleAbi,
      functionName: 'getState',
      args: [address],
    })
    return !state.registered && !state.dead && state.registeredAt === 0n
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

/** The EIP-712 payload the DelegationManager checks a delegation's signature against. */
function delegationTypedData(delegation: Delegation, deployment: BardoDeployment): TypedDataDefinition {
  return {
    domain: {
      name: 'DelegationManager',
      version: '1',
      chainId: deployment.chainId,
      verifyingContract: deployment.environment.DelegationManager,
    },
    types: SIGNABLE_DELEGATION_TYPED_DATA,
    primaryType: 'Delegation',
    message: toDelegationStruct(delegation),
  } as TypedDataDefinition
}
