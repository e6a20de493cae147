// The vital signs in a newcomer's words, the same on the console, the dashboard and the Snap: each clock
// named once, a feed's reprieve named as one, a recovered vitality said as such. Pure and free of viem.
import type { VitalSigns } from './vitalSigns.ts'

/** A span of chain time as people read it: `4m05s`, `2h10m`, `3.5 d`. */
export function spanWords(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds))
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`
  if (s < 86_400) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
  return `${(s / 86_400).toFixed(1)} d`
}

export function phaseWords(v: VitalSigns): string {
  const c = v.change
  if (!c) return `phase ${v.phase}`
  if (c.kind === 'reprieve') return `reprieve ${c.from} -> ${c.to} (fed)`
  return `phase ${c.from} -> ${c.to}${c.kind === 'death' ? ' (died)' : ''}`
}

export function vitalityWords(v: VitalSigns): string {
  return `vitality ${v.vitality.toFixed(3)}${v.recovered ? ` (recovered; ${v.phase} holds until a reprieve)` : ''}`
}

/** How long it still lives, then the other clock, each once; `dead` once dead. */
export function lifeWords(v: VitalSigns): string[] {
  if (v.lifecycle === 'dead') return ['dead']
  const lives = `lives ${spanWords(v.livesSeconds)} more`
  if (v.runwayEndsAt === v.grantEndsAt) return [`${lives}, until its runway and its grant end together`]
  return v.endsBy === 'runway'
    ? [lives, `grant ends in ${spanWords(v.grantEndsInSeconds)}`]
    : [`${lives}, until its grant ends`, `runway paid ${spanWords(v.runwayEndsAt - v.grantEndsAt)} past it`]
}

export function vitalSignsWords(v: VitalSigns): string[] {
  return [phaseWords(v), vitalityWords(v), ...lifeWords(v)]
}
