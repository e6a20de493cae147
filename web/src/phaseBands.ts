// Phase history as the chart draws it: contiguous bands of one phase over chain time, and the vitality
// points (survival score at each transition and now). Pure, so the shape is tested without a browser.

export type PhaseMove = { from: string; to: string; timestamp: number; survivalScore: number | null }
export type PhaseBand = { phase: string; start: number; end: number }

/**
 * Bands from birth to `now`: the first band is the first move's `from` phase (the current phase when
 * nothing moved yet); moves may arrive newest first, as the API lists them.
 */
export function phaseBands(bornAt: number, moves: readonly PhaseMove[], now: number, current: string): PhaseBand[] {
  const sorted = [...moves].filter((m) => m.timestamp >= bornAt).sort((a, b) => a.timestamp - b.timestamp)
  const bands: PhaseBand[] = []
  let phase = sorted[0]?.from ?? current
  let start = bornAt
  for (const move of sorted) {
    if (move.timestamp > start) bands.push({ phase, start, end: move.timestamp })
    phase = move.to
    start = move.timestamp
  }
  bands.push({ phase, start, end: Math.max(start, now) })
  return bands
}

/** Vitality (0..1) at each scored transition, then now; resets carry no score and are skipped. */
export function vitalityPoints(moves: readonly PhaseMove[], now: number, currentScore: number | null): { t: number[]; v: number[] } {
  const scored = [...moves].filter((m) => m.survivalScore !== null).sort((a, b) => a.timestamp - b.timestamp)
  const t = scored.map((m) => m.timestamp)
  const v = scored.map((m) => (m.survivalScore ?? 0) / 10_000)
  if (currentScore !== null && (t.length === 0 || now > t[t.length - 1]!)) {
    t.push(now)
    v.push(currentScore / 10_000)
  }
  return { t, v }
}

/** Seconds as the overlay counts them down: `3m07s`, `1h02m`, `2.5 d`. */
export function countdown(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds))
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`
  if (s < 86_400) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
  return `${(s / 86_400).toFixed(1)} d`
}
