// Numbers as the console shows them.
import { vitalSignsAt as vitalsAt, type VitalSigns } from '../../core/lifecycle/vitalSigns.ts'
import { lifeWords } from '../../core/lifecycle/vitalSignsWords.ts'
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

/** Each clock once, in the console's words. */
export function lifeLine(v: VitalSigns): string {
  const words = lifeWords(v).join(' - ')
  return `${words[0]?.toUpperCase() ?? ''}${words.slice(1)}`
}

export function golemLines(g: GolemStatus, now: number): { title: string; life: string | null; permission: string; heartbeat: string } {
  const p = g.permission
  const v = g.vitals ? vitalsAt(g.vitals, now) : null
  // Dead is Terminal, whatever an older API said of its phase.
  const phase = g.lifecycle === 'dead' ? 'Terminal' : (v?.phase ?? g.phase)
  const vitality = v?.vitality ?? g.vitality
  return {
    title: `◆ ${g.name} [${phase.toUpperCase()}${g.lifecycle === 'dead' ? ' · DEAD' : ''}] ${Math.round(vitality * 100)} vitality`,
    life: v ? lifeLine(v) : null,
    permission: p
      ? `Permission: ${p.health} - ${usdc(p.remaining_today)} USDC/day remaining - ${p.days_remaining}d left`
      : 'Permission: unknown (not readable this time)',
    heartbeat: `Last heartbeat: ${g.lastHeartbeatAt === null ? 'never' : ago(Math.max(0, now - g.lastHeartbeatAt))}`,
  }
}
