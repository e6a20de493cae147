// The Snap's two calls to the Bardo API: the status (token in, next token out) and pairing. `fetch` is
// passed in so the same code runs in the Snap and against the real API in tests.
import type { PendingPairing, SnapDeployment, SnapStatus } from './types.ts'

export type Fetch = (
  input: string,
  init?: { method?: string; headers?: Record<string, string>; body?: string },
) => Promise<{ status: number; json(): Promise<unknown> }>

export type StatusResult =
  | { kind: 'ok'; status: SnapStatus }
  /** 401: the token was rotated away or never valid; only pairing again helps. */
  | { kind: 'refused'; code: string }
  /** Network error or 5xx: keep the token and try again on the next cron. */
  | { kind: 'unavailable'; reason: string }

export async function fetchSnapStatus(fetchFn: Fetch, apiUrl: string, token: string): Promise<StatusResult> {
  let res: Awaited<ReturnType<Fetch>>
  try {
    res = await fetchFn(`${apiUrl}/api/snap/status`, { headers: { authorization: `Bearer ${token}` } })
  } catch (error) {
    return { kind: 'unavailable', reason: describeError(error) }
  }
  const body = (await res.json().catch(() => ({}))) as Partial<SnapStatus> & { code?: string }
  if (res.status === 401) return { kind: 'refused', code: body.code ?? 'INVALID_TOKEN' }
  if (res.status !== 200 || typeof body.nextToken !== 'string' || !Array.isArray(body.golems)) {
    return { kind: 'unavailable', reason: `status ${res.status}${body.code ? ` ${body.code}` : ''}` }
  }
  return { kind: 'ok', status: body as SnapStatus }
}

/** fetch's own message is "fetch failed"; the reason (connection refused, DNS, ...) is in its cause. */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : ''
  return `${error.message}${cause}`
}

export class PairingError extends Error {
  override name = 'PairingError'
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

async function postJson(fetchFn: Fetch, url: string, body: unknown): Promise<unknown> {
  const res = await fetchFn(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const json = (await res.json().catch(() => ({}))) as { code?: string; message?: string }
  if (res.status !== 200)
    throw new PairingError(json.code ?? `HTTP_${res.status}`, json.message ?? `pairing: the API answered ${res.status}`)
  return json
}

export async function requestPairingChallenge(fetchFn: Fetch, apiUrl: string, owner: string): Promise<PendingPairing> {
  return (await postJson(fetchFn, `${apiUrl}/api/snap/pairing/challenge`, { owner })) as PendingPairing
}

export async function completePairing(
  fetchFn: Fetch,
  apiUrl: string,
  pairing: PendingPairing,
  signature: string,
): Promise<{ owner: string; token: string; deployment: SnapDeployment }> {
  return (await postJson(fetchFn, `${apiUrl}/api/snap/pairing`, { challenge: pairing.challenge, signature })) as {
    owner: string
    token: string
    deployment: SnapDeployment
  }
}
