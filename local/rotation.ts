// Key rotation on the local stack: a fresh session key in the stack's keystore (local/stackKeys.ts), and the owner's smart account signing
// the same runway grant to it (starting at the next period boundary). In production the owner's wallet
// or the 7715 Session Account answers the renewal instead.
import type { Address } from 'viem'
import type { BardoDeployment } from '../core/deployment.ts'
import type { GolemProfile } from '../core/lifecycle/profile.ts'
import { newStackKey, type StackKeys } from './stackKeys.ts'
import { SessionKey } from '../core/custody/index.ts'
import { MemorySignerResolver } from '../adapters/signers/memorySignerResolver.ts'
import type { KeyRotation, RenewedRunway } from '../core/custody/signerResolver.ts'
import type { OwnerAccount } from './devnet.ts'
import { signGasGrant, signRunwayGrant } from './provision.ts'
import { LocalStackError } from './errors.ts'

export class LocalKeyRotation implements KeyRotation {
  #generation = 0
  constructor(
    private readonly deployment: BardoDeployment,
    private readonly owner: OwnerAccount,
    /** Where new keys go: the stack's keystore, or a resolver's memory (a test's stack in one process). */
    private readonly keys: StackKeys | MemorySignerResolver,
    /** Gives the new key gas money (locally the deployer; on a real chain the Golem's gas grant). */
    private readonly fund: (address: Address) => Promise<void>,
  ) {}

  async newKey(profile: GolemProfile, now: bigint): Promise<{ address: Address; signer: GolemProfile['signer'] }> {
    const key = await this.#make(profile, now)
    await this.fund(key.address)
    return key
  }

  async #make(profile: GolemProfile, now: bigint): Promise<{ address: Address; signer: GolemProfile['signer'] }> {
    if (!(this.keys instanceof MemorySignerResolver))
      // A key an attempt made but the store never named stays on disk until the stack stops (removed with the rest).
      return newStackKey(this.keys, `rotated-${profile.golemKey.slice(2, 10).toLowerCase()}`)
    const key = SessionKey.generate({ expiresAt: Number(profile.runway.expiresAt), initialBudget: 0n, now: Number(now) })
    const ref = `${profile.signer.kind === 'memory' ? profile.signer.ref : 'session-key'}#${++this.#generation}`
    this.keys.hold(ref, key)
    return { address: key.address, signer: { kind: 'memory', ref } }
  }

  renew(profile: GolemProfile, newKey: Address, startAt: bigint): Promise<RenewedRunway> {
    return renewRunwayGrant(this.deployment, this.owner, profile, newKey, startAt)
  }

  /** The same gas grant to the new key, from the same boundary to the grant's end. */
  renewGas(profile: GolemProfile, newKey: Address, startAt: bigint): Promise<NonNullable<GolemProfile['gas']>> {
    const periodAmount = profile.gas?.periodAmount
    if (periodAmount === undefined) throw new LocalStackError('ROTATION', 'renewGas: the profile has no gas grant to renew')
    return signGasGrant({
      deployment: this.deployment,
      owner: this.owner,
      golemKey: newKey,
      periodAmount,
      startDate: startAt,
      expiresAt: profile.runway.expiresAt,
      now: startAt,
    })
  }
}

/** The owner signs the same runway grant to a new key, from `startAt` (a period boundary) to the old grant's end. */
export function renewRunwayGrant(
  deployment: BardoDeployment,
  owner: OwnerAccount,
  profile: GolemProfile,
  newKey: Address,
  startAt: bigint,
): Promise<RenewedRunway> {
  return signRunwayGrant({
    deployment,
    owner,
    golemKey: newKey,
    token: profile.runway.token,
    periodAmount: profile.runway.periodAmount,
    periodDuration: profile.runway.periodDuration,
    startDate: startAt,
    expiresAt: profile.runway.expiresAt,
    now: startAt,
  })
}
