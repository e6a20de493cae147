// What the Snap reads from the Bardo API and keeps in its managed state. The API is the source of these
// shapes (functions/api/schemas.ts snapStatusResponse); the Snap reads them as plain JSON.
import type { BardoDeployment } from '../../core/deployment.ts'
import type { PhaseName } from '../../core/lifecycle/phase.ts'
import type { StatedVitalSigns } from '../../core/lifecycle/vitalSigns.ts'

/** The vital signs as the API states them (core/lifecycle/vitalSigns.ts): where the Golem is, not how a tick moved it. */
export type ApiVitals = StatedVitalSigns

export type PermissionHealth = 'healthy' | 'low' | 'critical' | 'revoked'

export type GolemPermission = {
  health: PermissionHealth
  /** Token units (USDC: 6 decimals) still available in the current period, as a decimal string. */
  remaining_today: string
  days_remaining: number
  last_redemption_at: number
  total_remaining: string
}

export type GolemStatus = {
  id: string
  name: string
  phase: PhaseName
  /** In [0, 1]. */
  vitality: number
  lifecycle: 'alive' | 'dying' | 'dead'
  /** Absent from an API that predates them, null when the API could not read the profile. */
  vitals?: ApiVitals | null
  lastHeartbeatAt: number | null
  permission: GolemPermission | null
  /** Seconds between heartbeats when the API says so; otherwise the scheduler's default applies. */
  heartbeatIntervalSeconds?: number
  /** The owner's grant: when it ends and whether the owner must sign a renewal to keep the Golem alive. */
  grant?: { endsAt?: number; renewalNeeded?: boolean }
}

export type SnapStatus = { owner: string; generatedAt: number; golems: GolemStatus[]; nextToken: string }

/** Public addresses the API hands over at pairing (functions/api/deps.ts SnapDeploymentInfo). */
export type SnapDeployment = {
  chainId: number
  environment: {
    DelegationManager: `0x${string}`
    EntryPoint: `0x${string}`
    SimpleFactory: `0x${string}`
    implementations: Record<string, `0x${string}`>
    caveatEnforcers: Record<string, `0x${string}`>
  }
  vitalityOracle: `0x${string}`
  dreamOracle: `0x${string}`
  daimonOracle: `0x${string}`
  /** Bardo's enforcers by name, as the deployment file names them. */
  enforcers: BardoDeployment['enforcers']
  tokens: Record<string, { symbol: string; decimals: number }>
}

export type PendingPairing = {
  challenge: Record<string, unknown> & { owner: string; expiresAt: number }
  message: string
  /** The API the pairing was started with; the Snap talks to it once the pairing completes. */
  apiUrl?: string
}

export type SnapState = {
  /** The API this Snap talks to; null means the build's BARDO_API_URL. Only the Snap itself writes its state. */
  apiUrl: string | null
  /** The current Snap token; every successful status call replaces it. */
  authToken: string | null
  /** Why the last status call did not authenticate (the owner must pair again), if it did not. */
  authProblem: 'refused' | null
  owner: string | null
  golems: GolemStatus[]
  /** Conditions that were true at the last fetch ("atlas:phase:Declining"): a notification is sent only on entry. */
  activeAlerts: string[]
  /** Per Golem id, the custody events already read: each event notifies once. */
  eventCursors: Record<string, EventCursor>
  /** Unix seconds of the last successful fetch (the API's clock). */
  lastFetchAt: number
  deployment: SnapDeployment | null
  pairing: PendingPairing | null
  /** Golems the owner confirmed revoking; the Portal has the owner sign the disableDelegation calls. */
  revokeRequest: { golems: string[]; at: number } | null
}

export const emptyState = (): SnapState => ({
  apiUrl: null,
  authToken: null,
  authProblem: null,
  owner: null,
  golems: [],
  activeAlerts: [],
  eventCursors: {},
  lastFetchAt: 0,
  deployment: null,
  pairing: null,
  revokeRequest: null,
})

/** What the Snap remembers of one Golem's events (kept in managed state). */
export type EventCursor = {
  /** The newest event time seen (ms, the API's clock); 0 when the Golem had no events. */
  newestAt: number
  /** `<at>:<eventId>` of the events seen within LOOKBACK_MS before `newestAt`. */
  seen: string[]
}
