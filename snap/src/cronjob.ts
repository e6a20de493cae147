// The cron job ("heartbeat", every 5 minutes): fetch the status with the stored token, keep the next
// token, cache the Golems for the home page, and notify on every condition that has just become true.
import { pairAgainAlert, planAlerts, type Alert } from './alerts.ts'
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
  | { kind: 'ok'; alerts: Alert[] }

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
  const { alerts, active } = planAlerts(state.activeAlerts, status)
  // The token of this call is already retired: store its successor before anything else can fail.
  await io.setState({
    ...state,
    authToken: status.nextToken,
    authProblem: null,
    owner: status.owner,
    golems: status.golems,
    activeAlerts: active,
    lastFetchAt: status.generatedAt,
  })
  for (const alert of alerts) await io.notify(alert)
  return { kind: 'ok', alerts }
}
