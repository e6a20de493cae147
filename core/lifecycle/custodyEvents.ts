// Custody events the heartbeat records per Golem. Addresses and hashes only: never key
// material, so events may go to logs, the store and the indexer.
import type { Address, Hex } from 'viem'

export type CustodyEvent =
  | { type: 'DelegationGranted'; at: bigint; delegationHash: Hex; caveats: readonly string[]; expiresAt: bigint }
  | { type: 'SessionKeyRotated'; at: bigint; oldAddress: Address; newAddress: Address; reason: string }
  | { type: 'DelegationRevoked'; at: bigint; delegationHash: Hex; cause: 'owner' | 'expired' | 'exhausted' | 'terminal' }
  /** The owner's narrower grant put in force once the grant it supersedes read disabled. */
  | {
      type: 'DelegationAdjusted'
      at: bigint
      delegationHash: Hex
      replaced: Hex
      periodAmount: bigint
      periodStart: bigint
      expiresAt: bigint
    }
  | { type: 'DelegationExpiringWarning'; at: bigint; delegationHash: Hex; hoursRemaining: number }
  | { type: 'BudgetWarning'; at: bigint; remainingPct: number; estimatedOperationsLeft: number }
  | { type: 'PhaseChanged'; at: bigint; from: number; to: number; survivalScoreBps: number }
  | { type: 'RunwayRedeemed'; at: bigint; amount: bigint; txHash: Hex; period: bigint }
  /** The key's gas topped up from the owner's native-token grant (wei), once in the grant's period. */
  | { type: 'GasRedeemed'; at: bigint; amount: bigint; txHash: Hex; period: bigint }
  /**
   * The Golem's ticks failed `failures` times in a row, reaching the configured limit: it is halted (no
   * more ticks, no more redemptions). `reason` is the last failure's error name and first line, secrets cut.
   */
  | { type: 'HeartbeatAnomaly'; at: bigint; failures: number; maxConsecutiveFailures: number; reason: string }
  | { type: 'DeathProtocolStarted'; at: bigint; trigger: string; vitality: number }
  | { type: 'DeathCompleted'; at: bigint; delegationHash: Hex; cause: string }
  /** The owner's grant ends before the Golem's TTL: the owner is asked to sign a superseding grant. */
  | { type: 'RenewalRequested'; at: bigint; delegationHash: Hex; grantEndsAt: bigint; runwayEndsAt: bigint; secondsLeft: bigint }

/** Warn once a delegation has under a day left (where permission health turns `critical`). */
export const EXPIRING_WARNING_SECONDS = 86_400n
/** Warn once less than 20 % of the period's runway is left. */
export const BUDGET_WARNING_BPS = 2_000n
