// Wind-down: what a Golem closes in its owner's account before it dies, from what the chain says it holds
// open there. Pure: the edge reads the holdings (vault shares, allowances and Uniswap V3 liquidity
// positions of the owner's account, for the vaults, approvals and position managers the action grant
// names) and the attempts already spent, and sends the steps.
//
// The rules:
// - Vault shares are redeemed whole, to the owner's account. Redeem is a settlement action, which the
//   chain's phase gate allows in every phase, Terminal included.
// - An allowance is revoked with approve(spender, 0). Approve is an opening action, which the phase gate
//   refuses from Conservation on: an allowance is revoked only while the Golem is Thriving or Stable (the
//   tick revokes them just before it posts the fall to Conservation); one still open later is listed as
//   left open, for the owner to revoke from their account.
// - A liquidity position (an NFT of a position manager the grant may remove from and collect on, held by
//   the owner's account, with liquidity or owed tokens) is closed in one transaction: decreaseLiquidity of
//   all its liquidity (minimums 0: the grant's MaxSlippage refuses the removal while the pool's price is off
//   the feeds, PoolPriceOffFeeds), then collect of everything owed to the owner's account. Closing adds no
//   risk, but the phase gate classes decreaseLiquidity as a closing action, allowed from Thriving to
//   Declining and refused in Terminal (GolemPhase's default masks, which compiled grants carry); collect
//   is a settlement action, allowed in every phase. So a
//   position is closed while wind-down closes everything before Terminal (Declining, or a tick after
//   which its delegation ends); in Terminal one with liquidity is listed as left open, for the owner to
//   remove from their account, and one that only owes tokens is still collected. Every position the
//   owner's account holds on such a manager is closed, as every share of a granted vault is redeemed.
// - Every step has its own store slot, so it is sent at most once; an attempt that ended without
//   settling (reverted, or its nonce taken) gives way to a fresh slot, up to MAX_WIND_DOWN_ATTEMPTS. A
//   step the chain refuses in simulation (a pool off the feeds, say) sends nothing and spends no attempt:
//   it is listed as left open with the chain's reason, and the next tick that closes everything tries again.
// - Nothing else is opened by the Golem's grant, so nothing else is unwound.
import { concat, getAddress, isAddress, keccak256, numberToHex, type Address, type Hex } from 'viem'
import { BardoError } from '../errors.ts'
import { Phase } from './phase.ts'

/** Attempts per position before wind-down leaves it open (each is one transaction at most). */
export const MAX_WIND_DOWN_ATTEMPTS = 3

/** Wind-down input that does not describe a chain read (a bad address, a negative amount); nothing is planned. */
export class WindDownPlanError extends BardoError {
  readonly field: string
  constructor(field: string, rule: string) {
    super('INVALID_WIND_DOWN', `${field} ${rule}`, { details: { field } })
    this.field = field
  }
}

export type VaultHolding = { vault: Address; shares: bigint }
export type ApprovalHolding = { token: Address; spender: Address; allowance: bigint }
/**
 * A position manager's NFT held by the owner's account, as positions(tokenId) reads it: its pool's tokens
 * (sorted, as the manager keeps them), its liquidity and what it owes (fees, removed liquidity).
 */
export type LiquidityHolding = {
  manager: Address
  tokenId: bigint
  token0: Address
  token1: Address
  liquidity: bigint
  tokensOwed0: bigint
  tokensOwed1: bigint
}

export type WindDownInput = {
  /** The phase the chain holds the Golem in: it decides whether an approval can still be revoked. */
  phase: Phase
  /** 'approvals': only revoke allowances (the tick before the fall to Conservation); 'all': close everything. */
  scope: 'approvals' | 'all'
  vaults: readonly VaultHolding[]
  approvals: readonly ApprovalHolding[]
  /** The owner's positions on the granted position managers (absent: none). */
  liquidity?: readonly LiquidityHolding[]
  /** Attempts already spent per position, by its base step name (absent: none). */
  attempts: Readonly<Record<string, number>>
}

export type WindDownStep =
  | { kind: 'redeem'; base: string; step: string; vault: Address; shares: bigint }
  | { kind: 'revoke'; base: string; step: string; token: Address; spender: Address; allowance: bigint }
  /** decreaseLiquidity of `liquidity` (none when it is 0), then collect of everything owed, to the owner. */
  | ({ kind: 'removeLiquidity'; base: string; step: string } & LiquidityHolding)

/** A position wind-down could not close, and why; amounts are decimal strings of base units. */
export type PositionLeftOpen =
  | { kind: 'vault'; vault: Address; shares: string; reason: string }
  | { kind: 'approval'; token: Address; spender: Address; allowance: string; reason: string }
  | {
      kind: 'liquidity'
      manager: Address
      tokenId: string
      token0: Address
      token1: Address
      liquidity: string
      tokensOwed0: string
      tokensOwed1: string
      reason: string
    }

/** A position wind-down closed, with the transaction that closed it. */
export type PositionSettled =
  | { kind: 'vault'; vault: Address; shares: string; assets: string; txHash: Hex }
  | { kind: 'approval'; token: Address; spender: Address; txHash: Hex }
  /** `liquidity` removed and `amount0`/`amount1` (of token0/token1) collected to the owner, as the manager's events report them. */
  | {
      kind: 'liquidity'
      manager: Address
      tokenId: string
      token0: Address
      token1: Address
      liquidity: string
      amount0: string
      amount1: string
      txHash: Hex
    }

export type WindDownPlan = { steps: WindDownStep[]; leftOpen: PositionLeftOpen[] }

/** 80 bits of the position's addresses: a step name is at most 48 characters, too short for two whole addresses. */
const idOf = (...addresses: Address[]) => keccak256(concat(addresses.map((a) => getAddress(a)))).slice(2, 22)

/** The slot name of a vault's redemptions, before its attempt number. */
export const redeemBase = (vault: Address): string => `winddown-redeem-${idOf(vault)}`
/** The slot name of an approval's revocations, before its attempt number. */
export const revokeBase = (token: Address, spender: Address): string => `winddown-revoke-${idOf(token, spender)}`
/** The slot name of a liquidity position's closes, before its attempt number: 80 bits of (manager, tokenId). */
export const liquidityBase = (manager: Address, tokenId: bigint): string =>
  `winddown-liquidity-${keccak256(concat([getAddress(manager), numberToHex(tokenId, { size: 32 })])).slice(2, 22)}`
/** One attempt's slot: `<base>-<attempt>`. */
export const windDownStep = (base: string, attempt: number): string => `${base}-${attempt}`

export const REVOKE_TOO_LATE =
  'approve is an opening action, which the chain refuses from Conservation on: the owner revokes it from their account'
export const LIQUIDITY_TOO_LATE =
  'decreaseLiquidity is a closing action, which the chain refuses in Terminal: the owner removes the liquidity from their account'
export const NO_ATTEMPT_LEFT = `${MAX_WIND_DOWN_ATTEMPTS} attempts ended without settling it`

/**
 * Whether a tick closes everything: in Declining, and in any phase once a delegation that covers a
 * position stops acting before the next tick can come (its window ends): after that nothing can close it.
 */
export function closeAllDue(p: { phase: Phase; nextTickAt: bigint; endsAt: readonly (bigint | null)[] }): boolean {
  return p.phase === Phase.Declining || p.endsAt.some((end) => end !== null && end < p.nextTickAt)
}

/** Whether a tick revokes the allowances before its phase post: a fall from Stable or better to Conservation or lower. */
export function revokeBeforeFall(current: Phase, next: Phase | undefined): boolean {
  return next !== undefined && current <= Phase.Stable && next >= Phase.Conservation
}

export function windDownPlan(input: WindDownInput): WindDownPlan {
  checkInput(input)
  const steps: WindDownStep[] = []
  const leftOpen: PositionLeftOpen[] = []
  const attemptOf = (base: string) => input.attempts[base] ?? 0
  if (input.scope === 'all')
    for (const { vault, shares } of input.vaults) {
      if (shares === 0n) continue
      const base = redeemBase(vault)
      const attempt = attemptOf(base)
      if (attempt >= MAX_WIND_DOWN_ATTEMPTS) leftOpen.push({ kind: 'vault', vault, shares: shares.toString(), reason: NO_ATTEMPT_LEFT })
      else steps.push({ kind: 'redeem', base, step: windDownStep(base, attempt), vault, shares })
    }
  if (input.scope === 'all')
    for (const position of input.liquidity ?? []) {
      const { liquidity, tokensOwed0, tokensOwed1 } = position
      if (liquidity === 0n && tokensOwed0 === 0n && tokensOwed1 === 0n) continue
      const base = liquidityBase(position.manager, position.tokenId)
      const attempt = attemptOf(base)
      const open = (reason: string) => leftOpen.push(liquidityOpen(position, reason))
      if (input.phase === Phase.Terminal && liquidity > 0n) open(LIQUIDITY_TOO_LATE)
      else if (attempt >= MAX_WIND_DOWN_ATTEMPTS) open(NO_ATTEMPT_LEFT)
      else steps.push({ kind: 'removeLiquidity', base, step: windDownStep(base, attempt), ...position })
    }
  for (const { token, spender, allowance } of input.approvals) {
    if (allowance === 0n) continue
    const base = revokeBase(token, spender)
    const attempt = attemptOf(base)
    const open = (reason: string) => leftOpen.push({ kind: 'approval', token, spender, allowance: allowance.toString(), reason })
    if (input.phase > Phase.Stable) open(REVOKE_TOO_LATE)
    else if (attempt >= MAX_WIND_DOWN_ATTEMPTS) open(NO_ATTEMPT_LEFT)
    else steps.push({ kind: 'revoke', base, step: windDownStep(base, attempt), token, spender, allowance })
  }
  return { steps, leftOpen }
}

/** A liquidity position as the record lists it when it stays open. */
export function liquidityOpen(p: LiquidityHolding, reason: string): PositionLeftOpen {
  return {
    kind: 'liquidity',
    manager: p.manager,
    tokenId: p.tokenId.toString(),
    token0: p.token0,
    token1: p.token1,
    liquidity: p.liquidity.toString(),
    tokensOwed0: p.tokensOwed0.toString(),
    tokensOwed1: p.tokensOwed1.toString(),
    reason,
  }
}

function checkInput(input: WindDownInput): void {
  if (!Number.isInteger(input.phase) || input.phase < Phase.Thriving || input.phase > Phase.Terminal)
    throw new WindDownPlanError('phase', 'must be a phase number from 0 (Thriving) to 4 (Terminal)')
  if (input.scope !== 'approvals' && input.scope !== 'all') throw new WindDownPlanError('scope', "must be 'approvals' or 'all'")
  const seen = new Set<string>()
  input.vaults.forEach((v, i) => {
    const vault = address(v.vault, `vaults[${i}].vault`)
    if (seen.has(vault)) throw new WindDownPlanError(`vaults[${i}].vault`, `must list each vault once (${vault} is listed twice)`)
    seen.add(vault)
    amount(v.shares, `vaults[${i}].shares`)
  })
  input.approvals.forEach((a, i) => {
    const pair = `${address(a.token, `approvals[${i}].token`)}:${address(a.spender, `approvals[${i}].spender`)}`
    if (seen.has(pair)) throw new WindDownPlanError(`approvals[${i}]`, 'must list each (token, spender) pair once')
    seen.add(pair)
    amount(a.allowance, `approvals[${i}].allowance`)
  })
  if (input.liquidity !== undefined && !Array.isArray(input.liquidity))
    throw new WindDownPlanError('liquidity', 'must be a list of positions')
  ;(input.liquidity ?? []).forEach((l, i) => {
    const f = `liquidity[${i}]`
    const manager = address(l.manager, `${f}.manager`)
    amount(l.tokenId, `${f}.tokenId`)
    const position = `${manager}#${String(l.tokenId)}`
    if (seen.has(position)) throw new WindDownPlanError(`${f}.tokenId`, `must list each position once (${position} is listed twice)`)
    seen.add(position)
    const token0 = address(l.token0, `${f}.token0`)
    const token1 = address(l.token1, `${f}.token1`)
    if (BigInt(token0) >= BigInt(token1))
      throw new WindDownPlanError(`${f}.token1`, 'must sort after token0 (the pool orders its tokens by address)')
    uint128(l.liquidity, `${f}.liquidity`)
    uint128(l.tokensOwed0, `${f}.tokensOwed0`)
    uint128(l.tokensOwed1, `${f}.tokensOwed1`)
  })
  for (const [base, n] of Object.entries(input.attempts))
    if (!Number.isInteger(n) || n < 0) throw new WindDownPlanError(`attempts.${base}`, 'must be a whole number of attempts, 0 or more')
}

function address(value: unknown, field: string): Address {
  if (typeof value !== 'string' || !isAddress(value, { strict: false })) throw new WindDownPlanError(field, 'must be a 20-byte 0x address')
  return getAddress(value)
}

function amount(value: unknown, field: string): void {
  if (typeof value !== 'bigint' || value < 0n || value >= 2n ** 256n) throw new WindDownPlanError(field, 'must be a uint256 bigint')
}

function uint128(value: unknown, field: string): void {
  if (typeof value !== 'bigint' || value < 0n || value >= 2n ** 128n) throw new WindDownPlanError(field, 'must be a uint128 bigint')
}
