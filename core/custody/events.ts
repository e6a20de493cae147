import type { Address, Hash } from 'viem'
import type { RevocationState } from '../health/permissionHealth.ts'
import type { SigningPurpose } from './policy.ts'
import type { RotationReason } from './rotation.ts'

/** Lifecycle of a delegation: one definition, in core/health. */
export type { RevocationState }

/**
 * Session-key events. Every variant names the session key by address and carries the
 * time (unix seconds); none carries key material, so events can go to logs, the store and the indexer.
 */
export type SessionKeyEvent =
  | { type: 'Generated'; at: number; address: Address; expiresAt: number }
  | { type: 'DelegationGranted'; at: number; address: Address; delegationHash: Hash; caveats: readonly string[] }
  | { type: 'OperationSigned'; at: number; address: Address; opHash: Hash; purpose: SigningPurpose; spent: bigint; remainingBudget: bigint }
  | {
      type: 'RotationTriggered'
      at: number
      address: Address
      reasons: readonly RotationReason[]
      reason: string
      oldAddress: Address
      newAddress: Address
    }
  | { type: 'Revoked'; at: number; address: Address; cause: Exclude<RevocationState, { kind: 'Active' }> }
  | { type: 'BudgetWarning'; at: number; address: Address; remainingPct: number; estimatedOperationsLeft: number }

export type SessionKeyEventListener = (event: SessionKeyEvent) => void

/** Calls every listener; a throwing listener is skipped so that it can never block signing or zeroing. */
export function emitTo(listeners: Iterable<SessionKeyEventListener>, event: SessionKeyEvent): void {
  for (const listener of listeners) {
    try {
      listener(event)
    } catch {
      // Deliberately ignored: see the doc comment.
    }
  }
}
