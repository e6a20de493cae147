// The Golem's custody events, as the tick, the API and the owner's acts recorded them (DelegationGranted,
// PhaseChanged, RunwayRedeemed, DelegationExpiringWarning, SessionKeyRotated, RotationRenewalRequested,
// DelegationAdjusted, DelegationRevoked, HeartbeatAnomaly, DeathCompleted, ...): a paged read, newest first, and a live
// stream (server-sent events) that resumes where a client stood (`Last-Event-ID`), and sends an event
// written late behind it too (core/lifecycle/liveStreamWindow.ts). Both take
// the read tier's key or the owner's token, like every Golem read, and work in every lifecycle state. The
// owner's Snap reads them with its Snap token, which names one owner and reads that owner's Golems only.
import { createRoute } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { cors } from 'hono/cors'
import { streamSSE } from 'hono/streaming'
import { isAddressEqual } from 'viem'
import type { GolemEvent } from '../../../core/store/index.ts'
import { findGolem } from '../deathRules.ts'
import type { ApiDeps, EventPosition, GolemView } from '../deps.ts'
import { LiveStreamWindow } from '../../../core/lifecycle/liveStreamWindow.ts'
import type { ApiEnv } from '../env.ts'
import { ApiError } from '../errors.ts'
import { answered, apiRouter, errors, ok, security } from '../openapi.ts'
import { tierHeaders } from '../rateLimit.ts'
import { eventsResponse, golemParams, pageQuery } from '../schemas.ts'

const notFound = {
  404: "GOLEM_NOT_FOUND (also a Golem that is not the Snap token's owner's)",
  401: 'INVALID_API_KEY | INVALID_TOKEN',
} as const

/** How often a live stream looks for new events, and how long one connection lasts before the client reconnects. */
export const EVENT_STREAM = { pollMs: 2_000, maxSeconds: 300, batch: 100 }

/** The most events a live stream reads from its window in one poll. */
const WINDOW_EVENTS = 2_000

const eventsRoute = createRoute({
  tags: ['golems'],
  security: security('tier'),
  method: 'get',
  path: '/api/v1/golems/{id}/events',
  operationId: 'getEvents',
  summary: "The Golem's custody events, newest first (store)",
  request: { params: golemParams, query: pageQuery, headers: tierHeaders },
  responses: { 200: ok('custody events', eventsResponse), ...errors({ ...notFound, 400: 'VALIDATION_FAILED: limit or cursor' }) },
})

const streamRoute = createRoute({
  tags: ['golems'],
  security: security('tier'),
  method: 'get',
  path: '/api/v1/golems/{id}/events/stream',
  operationId: 'streamEvents',
  summary:
    "The Golem's custody events as they are recorded (text/event-stream): each message's event is the type, its data the event, its id the stream's position `<at>:<eventId>` (the newest event sent so far); reconnect with Last-Event-ID to resume. An event written up to five minutes behind the newest one sent is still sent",
  request: { params: golemParams, headers: tierHeaders },
  responses: { 200: answered('a server-sent event stream; it ends after a few minutes and the client reconnects'), ...errors(notFound) },
})

const eventJson = (e: GolemEvent) => ({ eventId: e.eventId, type: e.type, at: e.at, data: e.data })

/** `<at>:<eventId>`, the stream's message id; undefined when the header is not one this API sent. */
export function positionOf(lastEventId: string | undefined): EventPosition | undefined {
  const m = lastEventId === undefined ? null : /^(\d{1,15}):(.{1,200})$/.exec(lastEventId)
  return m ? { at: Number(m[1]), eventId: m[2]! } : undefined
}

/**
 * The Golem a read names. A Snap token authenticates one owner's Snap: it reads that owner's Golems, and
 * another owner's Golem is answered as unknown to it.
 */
async function readableGolem(deps: ApiDeps, c: Context<ApiEnv>, id: string): Promise<GolemView> {
  const golem = await findGolem(deps, id)
  const principal = c.get('principal')
  if (principal.kind === 'snap' && !isAddressEqual(golem.owner, principal.owner))
    throw new ApiError('GOLEM_NOT_FOUND', `id: no Golem ${id} of the Snap token's owner`, { golemId: id })
  return golem
}

export function eventRoutes(deps: ApiDeps) {
  const router = apiRouter()
  // The Snap reads the paged route from its sandbox (Origin null) with an Authorization header, which a
  // browser preflights; the allowlisted origins are answered here, as for the Snap's status.
  router.use(
    '/api/v1/golems/:id/events',
    cors({
      origin: (o) => (deps.config.allowedOrigins.includes(o) ? o : null),
      allowHeaders: ['Authorization', 'X-API-Key'],
      allowMethods: ['GET'],
      maxAge: 600,
    }),
  )
  return router
    .openapi(eventsRoute, async (c) => {
      const golem = await readableGolem(deps, c, c.req.valid('param').id)
      const page = await deps.journal.events(golem, c.req.valid('query'))
      return c.json({ golemId: golem.id, events: page.items.map(eventJson), nextCursor: page.nextCursor }, 200)
    })
    .openapi(streamRoute, async (c) => {
      const golem = await readableGolem(deps, c, c.req.valid('param').id)
      const header = c.req.header('last-event-id')
      let position = positionOf(header)
      if (header !== undefined && position === undefined)
        throw new ApiError('VALIDATION_FAILED', 'Last-Event-ID: must be an id this stream sent (<at>:<eventId>)')
      // A new client hears what happens from now on; a reconnecting one, everything after what it saw.
      if (position === undefined) {
        const newest = (await deps.journal.events(golem, { limit: 1 })).items[0]
        position = newest ? { at: newest.at, eventId: newest.eventId } : { at: 0, eventId: '' }
      }
      const stream = deps.eventStream ?? EVENT_STREAM
      // What the client saw is what lists at or before its position; an event written later behind it, within
      // the window, is still sent (core/lifecycle/liveStreamWindow.ts).
      const read = (since: number) => deps.journal.eventsSince(golem, since, WINDOW_EVENTS)
      const window = new LiveStreamWindow(position, await read(LiveStreamWindow.sinceOf(position)))
      return streamSSE(c, async (sse) => {
        const until = Date.now() + stream.maxSeconds * 1000
        let open = true
        sse.onAbort(() => {
          open = false
        })
        // What is new is sent at once; then, while the connection may last, every poll. A connection that
        // may not last (maxSeconds 0: an API that cannot stream) answers once and the client reconnects.
        for (;;) {
          for (const e of window.unsent(await read(window.since)).slice(0, stream.batch)) {
            window.sent(e)
            // The message's id is the stream's position (its newest event), so a client that reconnects
            // with it is not sent again an event that came late.
            const at = window.position
            await sse.writeSSE({ id: `${at.at}:${at.eventId}`, event: e.type, data: JSON.stringify(eventJson(e)) })
          }
          if (!open || Date.now() + stream.pollMs >= until) break
          await sse.sleep(stream.pollMs)
        }
      })
    })
}
