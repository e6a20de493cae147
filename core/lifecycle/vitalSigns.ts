// A Golem's vital signs: its phase, vitality, how long it still lives and when its grant ends, as one
// answer that the console, the API, the dashboard and the Snap all show. Pure, and free of viem, so the
// dashboard and the Snap bundle it as they are.
import { BardoError } from '../errors.ts'
import { Phase, phaseForVitality, phaseNames, type PhaseName } from './phase.ts'

export type VitalSignsLifecycle = 'alive' | 'dying' | 'dead'

export type VitalSignsInput = {
  /** Chain time, unix seconds. */
  now: number
  lifecycle: VitalSignsLifecycle
  /** The VitalityOracle's phase, this tick's post or reprieve included. */
  phase: number
  /** In [0, 1]: the tick's vitality (what it posts when its phase moves); a dead Golem's is 0 whatever is given. */
  vitality: number
  /** The Golem's TTL (its paid runway), unix seconds. */
  runwayEndsAt: number
  /** The owner's grant's end (its life window), unix seconds. */
  grantEndsAt: number
  /** The phase before this tick, when this tick moved it (a post, a reprieve or the death). */
  from?: number
  /** The move was a paid feed's reprieve: the operator's audited reset, the one move back a phase makes. */
  reprieve?: boolean
}

/** How this tick moved the phase: forward, back through a feed's reprieve, or to Terminal at death. */
export type PhaseChange = { kind: 'advance' | 'reprieve' | 'death'; from: PhaseName; to: PhaseName }

export type VitalSigns = {
  lifecycle: VitalSignsLifecycle
  /** Terminal once dead, whatever the oracle held before the death protocol posted it. */
  phase: PhaseName
  /** 0 once dead: nothing of its life is left (the score the death protocol posts with Terminal). */
  vitality: number
  survivalScoreBps: number
  /** Seconds the Golem still lives without its owner's renewal: until its runway or its grant ends, whichever comes first; 0 once dead. */
  livesSeconds: number
  /** The clock that ends its life first (the grant when both end together: only the owner moves it). */
  endsBy: 'runway' | 'grant'
  runwayEndsAt: number
  grantEndsAt: number
  /** Seconds until the owner's grant ends, 0 once it has. */
  grantEndsInSeconds: number
  /** Its vitality points to an earlier phase than the one it holds: phases hold until a reprieve. */
  recovered: boolean
  change: PhaseChange | null
}

function invalid(field: string, rule: string, got: unknown): never {
  throw new BardoError('INVALID_VITAL_SIGNS', `${field}: ${rule}, got ${String(got)}`)
}

function seconds(value: number, field: string): number {
  if (!Number.isSafeInteger(value) || value < 0) invalid(field, 'must be a whole number of unix seconds, not negative', value)
  return value
}

function phaseOf(value: number, field: string): Phase {
  if (!Number.isInteger(value) || value < 0 || value > Phase.Terminal) invalid(field, 'must be an integer 0..4 (Thriving..Terminal)', value)
  return value as Phase
}

const lifecycles: readonly string[] = ['alive', 'dying', 'dead']

export function vitalSigns(input: VitalSignsInput): VitalSigns {
  const now = seconds(input.now, 'now')
  const runwayEndsAt = seconds(input.runwayEndsAt, 'runwayEndsAt')
  const grantEndsAt = seconds(input.grantEndsAt, 'grantEndsAt')
  if (!lifecycles.includes(input.lifecycle)) invalid('lifecycle', 'must be alive, dying or dead', input.lifecycle)
  if (!Number.isFinite(input.vitality) || input.vitality < 0 || input.vitality > 1)
    invalid('vitality', 'must be a number in [0, 1]', input.vitality)
  const held = phaseOf(input.phase, 'phase')
  const from = input.from === undefined ? undefined : phaseOf(input.from, 'from')
  const dead = input.lifecycle === 'dead'
  const phase = dead ? Phase.Terminal : held
  if (input.reprieve && (from === undefined || from <= phase))
    invalid('reprieve', 'must move the phase back (from a later phase)', `${from} -> ${phase}`)
  if (!input.reprieve && from !== undefined && from > phase)
    invalid('from', 'a phase moves back only through a reprieve', `${from} -> ${phase}`)

  const end = runwayEndsAt < grantEndsAt ? runwayEndsAt : grantEndsAt
  const change: PhaseChange | null =
    from === undefined || from === phase
      ? null
      : { kind: input.reprieve ? 'reprieve' : dead ? 'death' : 'advance', from: phaseNames[from], to: phaseNames[phase] }
  const vitality = dead ? 0 : input.vitality
  return {
    lifecycle: input.lifecycle,
    phase: phaseNames[phase],
    vitality,
    survivalScoreBps: Math.round(vitality * 10_000),
    livesSeconds: dead ? 0 : Math.max(0, end - now),
    endsBy: runwayEndsAt < grantEndsAt ? 'runway' : 'grant',
    runwayEndsAt,
    grantEndsAt,
    grantEndsInSeconds: Math.max(0, grantEndsAt - now),
    recovered: !dead && phaseForVitality(input.vitality) < phase,
    change,
  }
}

/** The vital signs as a surface received them (where the Golem is, not how a tick moved it). */
export type StatedVitalSigns = Omit<VitalSigns, 'change'>

/**
 * Stated vital signs read again at another clock (the page's, the Snap's), so the life left counts
 * down between reads; the phase, vitality and ends are the stated ones.
 */
export function vitalSignsAt(v: StatedVitalSigns, now: number): VitalSigns {
  return vitalSigns({
    now: Math.max(0, Math.floor(now)),
    lifecycle: v.lifecycle,
    phase: phaseNames.indexOf(v.phase),
    vitality: v.vitality,
    runwayEndsAt: v.runwayEndsAt,
    grantEndsAt: v.grantEndsAt,
  })
}
