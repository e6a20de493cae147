// The cron job ("heartbeat", every 5 minutes): fetch the status with the stored token, keep the next
// token, cache the Golems for the home page, read each Golem's new custody events, and notify on every
// condition that has just become true and every new event the owner must act on or know.
import { pairAgainAlert, planAlerts, type Alert } from './alerts.ts'
import { eventAlertsOf, mergeEventAlerts, newEvents } from './eventAlerts.ts'
import type { EventCursor } from './types.ts'
import { fetchGolemEvents } from './eventsClient.ts'
import { fetchSnapStatus, type Fetch } from './statusClient.ts'
import type { SnapState } from './types.ts'

export type CronjobIo = {
  /** The build's API; a state that names its own API wins. */
  apiUrl: string
  fetch: Fetch
  getState(): Promise<SnapState>
  setState(state: SnapState): Promise<void>
  notify(alert: Alert): Promise<void>
}

export type CronjobOutcome =
  | { kind: 'no-token' }
  | { kind: 'refused'; code: string }
  | { kind: 'unavailable'; reason: string }
  /** `eventsUnavailable`: the Golems whose events could not be read this time (their status alerts went out). */
  | { kind: 'ok'; alerts: Alert[]; eventsUnavailable: string[] }

export async function runCronjob(io: CronjobIo): Promise<CronjobOutcome> {
  const state = await io.getState()
  if (state.authToken === null) return { kind: 'no-token' }
  const result = await fetchSnapStatus(io.fetch, state.apiUrl ?? io.apiUrl, state.authToken)
  if (result.kind === 'unavailable') return result
  if (result.kind === 'refused') {
    const first = state.authProblem === null
    await io.setState({ ...state, authToken: null, authProblem: 'refused' })
    if (first) await io.notify(pairAgainAlert)
    return { kind: 'refused', code: result.code }
  }
  const { status } = result
  const planned = planAlerts(state.activeAlerts, status)
  // The token of this call is already retired: store its successor before anything else can fail.
  const fetched: SnapState = {
    ...state,
    authToken: status.nextToken,
    authProblem: null,
    owner: status.owner,
    golems: status.golems,
    activeAlerts: planned.active,
    lastFetchAt: status.generatedAt,
  }
  await io.setState(fetched)
  const events = await readEvents(io, fetched, state.activeAlerts)
  const { alerts, active } = mergeEventAlerts(state.activeAlerts, planned, events.alerts)
  await io.setState({ ...fetched, activeAlerts: active, eventCursors: events.cursors })
  for (const alert of alerts) await io.notify(alert)
  return { kind: 'ok', alerts, eventsUnavailable: events.unavailable }
}

/**
 * Each Golem's events since the last cron, with the fresh token (reading does not rotate it). A Golem
 * whose events cannot be read keeps its cursor and is read again next time; a Golem whose death was
 * told on an earlier cron is not read again. Cursors of Golems no longer in the status are dropped.
 */
async function readEvents(
  io: CronjobIo,
  state: SnapState,
  previouslyActive: readonly string[],
): Promise<{ alerts: Alert[]; cursors: Record<string, EventCursor>; unavailable: string[] }> {
  const before = state.eventCursors ?? {}
  const cursors: Record<string, EventCursor> = {}
  const alerts: Alert[] = []
  const unavailable: string[] = []
  const apiUrl = state.apiUrl ?? io.apiUrl
  for (const golem of state.golems) {
    const cursor = before[golem.id]
    if (cursor !== undefined) cursors[golem.id] = cursor
    if (cursor !== undefined && previouslyActive.includes(`${golem.id}:dead`)) continue
    const read = await fetchGolemEvents(io.fetch, apiUrl, state.authToken ?? '', golem.id, cursor).catch(
      (error: unknown) => ({ kind: 'unavailable', reason: String(error) }) as const,
    )
    if (read.kind !== 'ok') {
      unavailable.push(golem.id)
      continue
    }
    const { fresh, cursor: next } = newEvents(cursor, read.events)
    cursors[golem.id] = next
    alerts.push(...eventAlertsOf(golem, fresh))
  }
  return { alerts, cursors, unavailable }
}
