// Numbers as the console shows them.
import type { GolemStatus } from './types.ts'

/** USDC (6 decimals) from a decimal string of token units: "8200000" -> "8.2". */
export function usdc(units: string): string {
  const n = BigInt(units)
  const whole = n / 1_000_000n
  const cents = ((n % 1_000_000n) / 10_000n).toString().padStart(2, '0').replace(/0+$/, '')
  return cents.length > 0 ? `${whole}.${cents}` : `${whole}`
}

export function ago(seconds: number): string {
  if (seconds < 60) return 'just now'
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`
  return `${Math.floor(seconds / 86_400)}d ago`
}

export function golemLines(g: GolemStatus, now: number): { title: string; permission: string; heartbeat: string } {
  const p = g.permission
  return {
    title: `◆ ${g.name} [${g.lifecycle === 'dead' ? 'DEAD' : g.phase.toUpperCase()}] ${Math.round(g.vitality * 100)} vitality`,
    permission: p
      ? `Permission: ${p.health} - ${usdc(p.remaining_today)} USDC/day remaining - ${p.days_remaining}d left`
      : 'Permission: unknown (not readable this time)',
    heartbeat: `Last heartbeat: ${g.lastHeartbeatAt === null ? 'never' : ago(Math.max(0, now - g.lastHeartbeatAt))}`,
  }
}
