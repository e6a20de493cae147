import type { Address, Hash } from 'viem'
import { CustodyConfigError, SessionKeyZeroedError } from './errors.ts'
import { emitTo, type RevocationState, type SessionKeyEvent, type SessionKeyEventListener } from './events.ts'
import type { OperationRecorder } from './golemSigner.ts'
import { MemoryKey } from './memoryKey.ts'
import type { SigningPurpose } from './policy.ts'
import type { RawSigner } from './rawSigner.ts'
import { redact } from './redact.ts'
import { resolveRotationPolicy, shouldRotate, type RotationDecision, type RotationPolicy } from './rotation.ts'

export type SessionKeyParameters = {
  /** Unix seconds; the delegation's life window end (golemPhase's window). */
  expiresAt: number
  /** Budget the delegation grants this key, in the delegation's unit (e.g. USDC base units). 0n: untracked. */
  initialBudget: bigint
  rotationPolicy?: Partial<RotationPolicy>
  /** Emit BudgetWarning when remaining / initial falls to this fraction or below. Default 0.25. */
  budgetWarningFraction?: number
  /** Unix seconds; defaults to the wall clock. Tests pass it. */
  now?: number
  onEvent?: SessionKeyEventListener
}

const nowSeconds = () => Math.floor(Date.now() / 1000)

/**
 * The Golem's ephemeral key and its lifecycle: generated at boot, counted and
 * budgeted as it signs, rotated by policy, zeroed at death. The key bytes sit in a MemoryKey;
 * nothing here ever serialises them.
 */
export class SessionKey implements OperationRecorder {
  readonly address: Address
  readonly grantedAt: number
  readonly expiresAt: number
  readonly initialBudget: bigint
  readonly rotationPolicy: RotationPolicy
  readonly budgetWarningFraction: number
  #key: MemoryKey
  #operationsSigned = 0
  #remainingBudget: bigint
  #spentTotal = 0n
  #spendingOps = 0
  #warned = false
  #listeners = new Set<SessionKeyEventListener>()

  private constructor(key: MemoryKey, params: SessionKeyParameters) {
    if (!Number.isSafeInteger(params.expiresAt) || params.expiresAt <= 0) throw new CustodyConfigError('expiresAt', 'must be unix seconds')
    if (params.initialBudget < 0n) throw new CustodyConfigError('initialBudget', 'must not be negative')
    const warn = params.budgetWarningFraction ?? 0.25
    if (!(warn >= 0 && warn <= 1)) throw new CustodyConfigError('budgetWarningFraction', 'must be in [0, 1]')
    this.rotationPolicy = resolveRotationPolicy(params.rotationPolicy)
    this.#key = key
    this.address = key.address
    this.grantedAt = params.now ?? nowSeconds()
    this.expiresAt = params.expiresAt
    this.initialBudget = params.initialBudget
    this.#remainingBudget = params.initialBudget
    this.budgetWarningFraction = warn
    if (params.onEvent) this.#listeners.add(params.onEvent)
    redact(this, () => ({ address: this.address, zeroed: this.zeroed, operationsSigned: this.#operationsSigned }))
  }

  /** A fresh key from the OS CSPRNG. Emits Generated. */
  static generate(params: SessionKeyParameters): SessionKey {
    return SessionKey.fromMemoryKey(MemoryKey.generate(), params)
  }

  /** Wraps an existing key (a LocalKey loaded from its keystore). Emits Generated. */
  static fromMemoryKey(key: MemoryKey, params: SessionKeyParameters): SessionKey {
    const sk = new SessionKey(key, params)
    sk.#emit({ type: 'Generated', at: sk.grantedAt, address: sk.address, expiresAt: sk.expiresAt })
    return sk
  }

  get operationsSigned(): number {
    return this.#operationsSigned
  }
  get remainingBudget(): bigint {
    return this.#remainingBudget
  }
  get zeroed(): boolean {
    return this.#key.zeroed
  }
  /** The backend for a GolemSigner. Signing through it after zero() fails. */
  get signer(): RawSigner {
    return this.#key.toRawSigner('memory')
  }

  subscribe(listener: SessionKeyEventListener): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  delegationGranted(params: { delegationHash: Hash; caveats: readonly string[]; now?: number }): void {
    this.#emit({
      type: 'DelegationGranted',
      at: params.now ?? nowSeconds(),
      address: this.address,
      delegationHash: params.delegationHash,
      caveats: [...params.caveats],
    })
  }

  assertUsable(): void {
    if (this.#key.zeroed) throw new SessionKeyZeroedError(this.address)
  }

  /** Called by the GolemSigner after each signature: counts it and charges `spent` to the budget. */
  recordOperation(op: { opHash: Hash; purpose: SigningPurpose; spent: bigint; now?: number }): void {
    const at = op.now ?? nowSeconds()
    this.#operationsSigned += 1
    if (op.spent > 0n) {
      this.#spentTotal += op.spent
      this.#spendingOps += 1
      this.#remainingBudget = this.#remainingBudget > op.spent ? this.#remainingBudget - op.spent : 0n
    }
    this.#emit({
      type: 'OperationSigned',
      at,
      address: this.address,
      opHash: op.opHash,
      purpose: op.purpose,
      spent: op.spent,
      remainingBudget: this.#remainingBudget,
    })
    this.#checkBudgetWarning(at)
  }

  /** Replaces the local estimate with what the chain says is left (the chain is the truth). */
  reconcileBudget(remaining: bigint, now?: number): void {
    if (remaining < 0n) throw new CustodyConfigError('remaining', 'must not be negative')
    this.#remainingBudget = remaining
    this.#checkBudgetWarning(now ?? nowSeconds())
  }

  shouldRotate(now: number = nowSeconds()): RotationDecision {
    return shouldRotate(
      {
        grantedAt: this.grantedAt,
        operationsSigned: this.#operationsSigned,
        initialBudget: this.initialBudget,
        remainingBudget: this.#remainingBudget,
      },
      this.rotationPolicy,
      now,
    )
  }

  isExpired(now: number = nowSeconds()): boolean {
    return now > this.expiresAt
  }

  /** Records that the delegation behind this key ended (owner revoked, expired, calls exhausted). */
  revoked(cause: Exclude<RevocationState, { kind: 'Active' }>, now?: number): void {
    this.#emit({ type: 'Revoked', at: now ?? nowSeconds(), address: this.address, cause })
  }

  /** Overwrites the key bytes (death protocol, rotation). Every later signing fails. Idempotent. */
  zero(): void {
    this.#key.zero()
  }

  /** Internal to rotation: emits on this key's listeners. */
  emitRotation(event: Extract<SessionKeyEvent, { type: 'RotationTriggered' }>): void {
    this.#emit(event)
  }

  listeners(): SessionKeyEventListener[] {
    return [...this.#listeners]
  }

  #checkBudgetWarning(at: number): void {
    if (this.initialBudget === 0n) return
    const ppm = (this.#remainingBudget * 1_000_000n) / this.initialBudget
    const below = ppm <= BigInt(Math.round(this.budgetWarningFraction * 1_000_000))
    if (below && !this.#warned) {
      this.#warned = true
      this.#emit({
        type: 'BudgetWarning',
        at,
        address: this.address,
        remainingPct: Number(ppm) / 10_000,
        estimatedOperationsLeft: this.#estimateOperationsLeft(),
      })
    } else if (!below) {
      this.#warned = false
    }
  }

  /** Ops left before a rotation trigger: the smaller of the op cap and budget / average spend. */
  #estimateOperationsLeft(): number {
    const byCount = Math.max(0, this.rotationPolicy.maxOperations - this.#operationsSigned)
    if (this.#spendingOps === 0 || this.#spentTotal === 0n) return byCount
    const average = this.#spentTotal / BigInt(this.#spendingOps)
    if (average === 0n) return byCount
    const byBudget = this.#remainingBudget / average
    return byBudget < BigInt(byCount) ? Number(byBudget) : byCount
  }

  #emit(event: SessionKeyEvent): void {
    emitTo(this.#listeners, event)
  }
}

/**
 * Rotation: generate the next key, announce the switch, zero the old key. The caller then
 * asks the owner for a delegation to `next.address`; until it lands the Golem cannot redeem, which
 * the spec accepts (the heartbeat skips a tick). Listeners move to the new key.
 */
export function rotateSessionKey(
  old: SessionKey,
  params: Omit<SessionKeyParameters, 'onEvent'> & { force?: boolean },
): { rotated: false; decision: RotationDecision } | { rotated: true; decision: RotationDecision; next: SessionKey } {
  const { force, ...nextParams } = params
  const now = params.now ?? nowSeconds()
  const decision = old.shouldRotate(now)
  if (!decision.rotate && !force) return { rotated: false, decision }
  // The old key's listeners follow the switch, starting with the new key's Generated event.
  const listeners = old.listeners()
  const next = SessionKey.generate({
    rotationPolicy: old.rotationPolicy,
    budgetWarningFraction: old.budgetWarningFraction,
    ...nextParams,
    now,
    onEvent: (event) => emitTo(listeners, event),
  })
  const reasons = decision.rotate ? decision.reasons : []
  const reason = decision.rotate ? decision.reason : 'forced'
  old.emitRotation({
    type: 'RotationTriggered',
    at: now,
    address: old.address,
    reasons,
    reason,
    oldAddress: old.address,
    newAddress: next.address,
  })
  old.zero()
  return { rotated: true, decision, next }
}
