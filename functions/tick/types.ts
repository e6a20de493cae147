import type { Address, LocalAccount } from 'viem'
import type { TickChainClient } from '../../adapters/chain/tickChainClient.ts'
import type { KeyRotation, SignerResolver } from '../../core/custody/signerResolver.ts'
import type { TickDeployment } from '../../core/deployment.ts'
import type { TickFees } from '../../core/fees.ts'
import type { VitalityParameters } from '../../core/lifecycle/vitality.ts'
import type { Store } from '../../core/store/index.ts'
import type { SelfExtensionConfig, SelfExtensionResult } from './selfExtend.ts'

export type TickDeps = {
  store: Store
  client: TickChainClient
  deployment: TickDeployment
  signers: SignerResolver
  /** The operator key: deregisters dead Golems on the VitalityOracle (its owner). */
  operator: LocalAccount
  /** Invocation id (Lambda request id, or a local id): the owner of the slots this tick claims. */
  invocationId: string
  /** Seconds until the Golem's next tick. */
  tickIntervalSeconds?: number
  /** How long a tick owns a Golem and its slots before a retry may take over (ms). */
  leaseMs?: number
  vitalityParameters?: Partial<VitalityParameters>
  /** The heartbeat's fee data: every transaction of the tick is priced from it instead of its own fee read. */
  fees?: TickFees
  /**
   * The runtime price: when present, the tick re-applies once a period any paid credit that was
   * journaled but never reached the profile (a crash between the two writes).
   */
  credits?: { runtimeCostPerHour: bigint }
  /** When present, keys rotate as the rotation policy says (10,000 ops, 7 days, budget floor). */
  rotation?: KeyRotation
  /**
   * When present, the Golem buys its own runtime (POST /api/v1/extend, paid by its key) to keep its TTL
   * ahead of its next beats. Absent: no self-extension.
   */
  selfExtension?: SelfExtensionConfig
  /** Test hook: runs right after each broadcast (crash injection). */
  afterBroadcast?: (step: string) => Promise<void> | void
}

export type TickResult = {
  golemId: string
  outcome: 'unknown' | 'dead' | 'busy' | 'ticked' | 'died'
  phase?: { from: number; to: number; posted: boolean }
  vitality?: number
  health?: string
  /** A redemption `staggered` to the Golem's offset into its period carries the chain time it will be redeemed at. */
  redemption?: { status: string; amount?: bigint; txHash?: string | null; reason?: string; redeemAt?: bigint }
  /** The gas top-up from the owner's gas grant, when the Golem has one. */
  gas?: { status: string; amount?: bigint; txHash?: string | null; reason?: string }
  /** The Golem's purchase of its own runtime, when self-extension is configured. */
  selfExtension?: SelfExtensionResult
  events?: string[]
  /** RevocationState kind of the runway delegation (Active, RevokedByOwner, Expired, Exhausted). */
  revocation?: string
  rotated?: { from: Address; to: Address; reason: string }
}
