// The Snap's read of one Golem's custody events: GET /api/v1/golems/:id/events with the Snap token,
// newest first, page after page until it reaches what the Snap has seen (or at most MAX_PAGES). Reading
// never rotates the token. An API without the route, or one that fails, is an answer, not an exception:
// the cron's status alerts go on without the events.
import { LOOKBACK_MS, type CustodyEvent } from './eventAlerts.ts'
import type { EventCursor } from './types.ts'
import type { Fetch } from './statusClient.ts'

export const EVENTS_PAGE_LIMIT = 50
export const MAX_PAGES = 4

export type EventsResult = { kind: 'ok'; events: CustodyEvent[] } | { kind: 'unavailable'; reason: string }

const isEvent = (e: unknown): e is CustodyEvent => {
  const v = e as Partial<CustodyEvent> | null
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.eventId === 'string' &&
    typeof v.type === 'string' &&
    typeof v.at === 'number' &&
    typeof v.data === 'object' &&
    v.data !== null
  )
}

export async function fetchGolemEvents(
  fetchFn: Fetch,
  apiUrl: string,
  token: string,
  golemId: string,
  cursor: EventCursor | undefined,
): Promise<EventsResult> {
  const events: CustodyEvent[] = []
  let page: string | null = null
  let floor: number | undefined = cursor === undefined ? undefined : cursor.newestAt - LOOKBACK_MS
  for (let read = 0; read < MAX_PAGES; read++) {
    const query = `limit=${EVENTS_PAGE_LIMIT}${page === null ? '' : `&cursor=${encodeURIComponent(page)}`}`
    let res: Awaited<ReturnType<Fetch>>
    try {
      res = await fetchFn(`${apiUrl}/api/v1/golems/${encodeURIComponent(golemId)}/events?${query}`, {
        headers: { authorization: `Bearer ${token}` },
      })
    } catch (error) {
      return { kind: 'unavailable', reason: error instanceof Error ? error.message : String(error) }
    }
    const body = (await res.json().catch(() => ({}))) as { events?: unknown; nextCursor?: unknown; code?: unknown }
    if (res.status !== 200 || !Array.isArray(body.events) || !body.events.every(isEvent)) {
      return { kind: 'unavailable', reason: `events: status ${res.status}${typeof body.code === 'string' ? ` ${body.code}` : ''}` }
    }
    events.push(...body.events)
    // The first read of a Golem remembers the last hour before its newest event; later reads go back as
    // far as the hour before the newest event already seen.
    floor ??= body.events[0] === undefined ? 0 : body.events[0].at - LOOKBACK_MS
    const oldest = body.events.at(-1)
    if (typeof body.nextCursor !== 'string' || oldest === undefined || oldest.at < floor) break
    page = body.nextCursor
  }
  return { kind: 'ok', events }
}
