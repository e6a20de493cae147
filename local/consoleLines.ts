// The local stack's console lines: one per tick (age, outcome, vital signs, health, the last redemption),
// the tick's money, and what the death protocol sent home. Shared by the runner and the scheduler process.
import { formatEther, formatUnits } from 'viem'
import type { TickResult } from '../app/tick/types.ts'
import { vitalSignsWords } from '../core/lifecycle/vitalSignsWords.ts'
import type { PositionLeftOpen, PositionSettled } from '../core/lifecycle/windDownPlan.ts'

/** An amount of USDC (6 decimals) as people read it. */
export const usdc = (v: bigint) => `${formatUnits(v, 6)} USDC`

/** A span of chain time as people read it: `4m05s`, `2h10m`, `3.5 d`. */
export function formatSpan(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds))
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`
  if (s < 86_400) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
  return `${(s / 86_400).toFixed(1)} d`
}

/**
 * One console line per tick, from the tick's vital signs (core/lifecycle/vitalSigns.ts, what the API,
 * the dashboard and the Snap show too) and its health verdict (core/health/golemHealth.ts).
 */
export function progressLine(ageSeconds: number, r: TickResult | undefined, extra: { redeemedTotal: bigint }): string {
  if (!r) return `age ${formatSpan(ageSeconds)}  (no tick yet)`
  const redemption =
    r.redemption?.status === 'confirmed'
      ? `redeemed ${usdc(r.redemption.amount ?? 0n)}`
      : r.redemption?.reason === 'staggered'
        ? `staggered to this Golem's offset into its period`
        : (r.redemption?.status ?? '')
  const dead = r.outcome === 'died' || r.outcome === 'dead'
  return [
    `age ${formatSpan(ageSeconds).padStart(6)}`,
    `outcome ${r.outcome.padEnd(6)}`,
    ...(r.vitals ? vitalSignsWords(r.vitals) : []),
    dead ? 'health dead' : r.health ? `health ${r.health}` : '',
    redemption ? `last redemption ${redemption}` : '',
    `total redeemed ${usdc(extra.redeemedTotal)}`,
  ]
    .filter(Boolean)
    .join(' | ')
}

/** The tick's money, one line each: gas topped up from the owner's grant, runtime bought with its runway or by delegation. */
export function moneyLines(r: TickResult | undefined): string[] {
  const lines: string[] = []
  if (r?.gas?.status === 'confirmed') lines.push(`gas topped up ${formatEther(r.gas.amount ?? 0n)} ETH from the owner's gas grant`)
  const bought = r?.selfExtension
  if (bought?.status === 'confirmed')
    lines.push(
      `bought ${bought.hours}h of its own runtime for ${usdc(bought.amount ?? 0n)} (x402 POST /api/v1/extend, ${
        bought.paidFrom === 'grant' ? "paid by delegation from the owner's grant" : 'signed by its session key'
      })`,
    )
  else if (bought?.status === 'refused' || bought?.status === 'failed') lines.push(`runtime not bought: ${bought.reason ?? bought.status}`)
  return lines
}

/** What the death protocol sent home to the owner, one line per asset, then what wind-down closed or left open. */
export function returnLines(settlement: unknown): string[] {
  const s = settlement as
    | {
        fundsReturned?: { asset: string; status: string; amount?: string }[]
        positionsSettled?: PositionSettled[]
        positionsLeftOpen?: PositionLeftOpen[]
      }
    | undefined
  return [
    ...(s?.fundsReturned ?? []).map((f) =>
      f.status === 'returned'
        ? `returned ${f.asset === 'native' ? `${formatEther(BigInt(f.amount ?? '0'))} ETH` : usdc(BigInt(f.amount ?? '0'))} to the owner`
        : `return of ${f.asset}: ${f.status}`,
    ),
    ...(s?.positionsSettled ?? []).map((p) =>
      p.kind === 'vault'
        ? `redeemed ${p.shares} shares of vault ${p.vault} for ${p.assets} base units to the owner (${p.txHash})`
        : p.kind === 'liquidity'
          ? `removed ${p.liquidity} liquidity of position ${p.tokenId} on ${p.manager} and collected ${p.amount0} of ${p.token0} and ${p.amount1} of ${p.token1} to the owner (${p.txHash})`
          : `revoked the allowance of ${p.spender} on ${p.token} (${p.txHash})`,
    ),
    ...(s?.positionsLeftOpen ?? []).map((p) =>
      p.kind === 'vault'
        ? `left open: ${p.shares} shares of vault ${p.vault} (${p.reason})`
        : p.kind === 'liquidity'
          ? `left open: position ${p.tokenId} on ${p.manager}, liquidity ${p.liquidity} (${p.reason})`
          : `left open: allowance of ${p.allowance} to ${p.spender} on ${p.token} (${p.reason})`,
    ),
  ]
}
