import type { CreditOptions } from '../../core/lifecycle/applyPaymentCredit.ts'
import type { ConfirmationDepths } from '../../core/finality.ts'
import type { Address, Hex, LocalAccount } from 'viem'
import type { PaymentPolicy, RuntimeByDelegation } from '../../core/custody/paymentPolicy.ts'
import type { TickChainClient } from '../../adapters/chain/tickChainClient.ts'
import type { KeyRotation, SignerResolver } from '../../core/custody/signerResolver.ts'
import type { TickDeployment } from '../../core/deployment.ts'
import type { TickFees } from '../../core/fees.ts'
import type { VitalityParameters } from '../../core/lifecycle/vitality.ts'
import type { VitalSigns } from '../../core/lifecycle/vitalSigns.ts'
import type { PositionLeftOpen } from '../../core/lifecycle/windDownPlan.ts'
import type { TickStore } from '../../core/store/index.ts'

export type SelfExtensionConfig = {
  /** The API's base URL: the local API, or the deployed stack's API URL. */
  apiUrl: string
  /** The runtime price the API charges (core/x402/pricing.ts): what the plan expects to pay per hour. */
  runtimeCostPerHour: bigint
  /** What the key may pay: the API's asset, its payTo as the only payee, and the bounds. */
  payments: PaymentPolicy
  /**
   * Pay by delegation from the owner's grant instead of from the key: the runway is not redeemed to the
   * key, and each payment is a delegation under the runway grant that only these settlement accounts
   * may redeem. Without it the key redeems its runway and pays by EIP-3009.
   */
  byDelegation?: RuntimeByDelegation
  /** Seconds of TTL kept beyond the next beats; default one beat. */
  marginSeconds?: bigint
  fetch?: typeof fetch
}

export type SelfExtensionResult = {
  status: 'skipped' | 'refused' | 'confirmed' | 'failed' | 'pending' | 'busy'
  reason?: string
  hours?: number
  amount?: bigint
  /** The TTL the API reports once the payment is credited. */
  runwayEndsAt?: bigint
  /** The payment's identity: its EIP-3009 authorization nonce, or its delegation's hash. */
  nonce?: Hex
  /** Whose money paid: the key's (EIP-3009), or the owner's through the runway grant (by delegation). */
  paidFrom?: 'key' | 'grant'
}

export type TickDeps = {
  store: TickStore
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
  credits?: {
    runtimeCostPerHour: bigint
    /**
     * Where settlements may be reorged out (a confirmation depth above one block): the credit standing
     * judge (adapters/x402/creditStanding.ts). With it every tick advances the Golem's credits still
     * confirming: applied once final, reversed once they can never land.
     */
    standing?: CreditOptions['standing']
  }
  /** When present, keys rotate as the rotation policy says (10,000 ops, 7 days, budget floor). */
  rotation?: KeyRotation
  /**
   * When present, the Golem buys its own runtime (POST /api/v1/extend, paid by its key) to keep its TTL
   * ahead of its next beats. Absent: no self-extension.
   */
  selfExtension?: SelfExtensionConfig
  /**
   * Confirmation depths per chain id over core/finality.ts's defaults: a slot's transaction is final only
   * this many blocks deep, and re-checked on later ticks until then.
   */
  confirmations?: ConfirmationDepths
  /**
   * Ticks that may fail in a row before the Golem is halted and its owner told
   * (core/lifecycle/heartbeatAnomaly.ts); default DEFAULT_MAX_CONSECUTIVE_FAILURES.
   */
  maxConsecutiveFailures?: number
  /** Test hook: runs right after each broadcast (crash injection). */
  afterBroadcast?: (step: string) => Promise<void> | void
}

export type TickResult = {
  golemId: string
  /** `halted`: the heartbeat anomaly stopped the Golem's ticks (core/lifecycle/heartbeatAnomaly.ts). */
  outcome: 'unknown' | 'dead' | 'busy' | 'ticked' | 'died' | 'halted'
  phase?: { from: number; to: number; posted: boolean }
  /** A paid feed's reprieve served this tick: the operator's reset from one phase back to another. */
  reprieve?: { from: number; to: number }
  vitality?: number
  /** What every surface shows of the Golem after this tick (core/lifecycle/vitalSigns.ts). */
  vitals?: VitalSigns
  health?: string
  /** A redemption `staggered` to the Golem's offset into its period carries the chain time it will be redeemed at. */
  redemption?: { status: string; amount?: bigint; txHash?: string | null; reason?: string; redeemAt?: bigint }
  /** The gas top-up from the owner's gas grant, when the Golem has one. */
  gas?: { status: string; amount?: bigint; txHash?: string | null; reason?: string }
  /** Wind-down this tick: how many positions are settled so far, and what it could not close (core/lifecycle/windDownPlan.ts). */
  windDown?: { settled: number; leftOpen: PositionLeftOpen[]; pending?: string }
  /** The Golem's purchase of its own runtime, when self-extension is configured. */
  selfExtension?: SelfExtensionResult
  events?: string[]
  /** RevocationState kind of the runway delegation (Active, RevokedByOwner, Expired, Exhausted). */
  revocation?: string
  rotated?: { from: Address; to: Address; reason: string }
}
