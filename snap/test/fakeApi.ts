// A stand-in for the Bardo API's Snap routes on 127.0.0.1, for the handler tests: a rotating token,
// pairing by a signature it accepts, and the custody events route (paged newest first, read with the
// current token, or answering 503 as an API that cannot serve it). The real API is exercised in test/snap/cronjob.test.ts (vitest).
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'

export const OWNER = '0x00000000000000000000000000000000000A11CE'
export const GOOD_SIGNATURE = `0x${'ab'.repeat(65)}`

export const tokenFor = (owner: string) => `bardo_snap_${owner.slice(2).toLowerCase()}.${randomBytes(32).toString('base64url')}`

export type FakeApi = {
  url: string
  /** The token the API accepts now (undefined: none). */
  current: string | undefined
  golems: unknown[]
  generatedAt: number
  statusCalls: number
  /** Custody events per Golem id, in the order they were recorded (the route answers newest first). */
  events: Record<string, { eventId: string; type: string; at: number; data: Record<string, unknown> }[]>
  /** When set, the events route answers this status (an API without the route, or one that fails). */
  eventsStatus: number | undefined
  eventCalls: number
  deployment: unknown
  stop(): Promise<void>
}

const body = (req: IncomingMessage) =>
  new Promise<unknown>((resolve) => {
    let text = ''
    req.on('data', (d: Buffer) => (text += d.toString()))
    req.on('end', () => resolve(text ? JSON.parse(text) : {}))
  })

export async function startFakeApi(deployment: unknown): Promise<FakeApi> {
  const api: FakeApi = {
    url: '',
    current: undefined,
    golems: [],
    generatedAt: 1_767_225_600,
    statusCalls: 0,
    events: {},
    eventsStatus: undefined,
    eventCalls: 0,
    deployment,
    stop: async () => undefined,
  }
  const server = createServer(async (req, res) => {
    const send = (status: number, json: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(json))
    }
    if (req.method === 'GET' && req.url === '/api/snap/status') {
      api.statusCalls++
      const presented = (req.headers.authorization ?? '').replace(/^Bearer /, '')
      if (api.current === undefined || presented !== api.current)
        return send(401, { code: 'INVALID_TOKEN', message: 'authorization: unknown or rotated Snap token', details: {} })
      api.current = tokenFor(OWNER)
      return send(200, { owner: OWNER, generatedAt: api.generatedAt, golems: api.golems, nextToken: api.current })
    }
    const events = req.method === 'GET' ? /^\/api\/v1\/golems\/([^/?]+)\/events\?(.*)$/.exec(req.url ?? '') : null
    if (events) {
      api.eventCalls++
      if (api.eventsStatus !== undefined) return send(api.eventsStatus, { code: 'INTERNAL_ERROR', message: 'events', details: {} })
      const presented = (req.headers.authorization ?? '').replace(/^Bearer /, '')
      if (api.current === undefined || presented !== api.current)
        return send(401, { code: 'INVALID_TOKEN', message: 'authorization: unknown or rotated Snap token', details: {} })
      const query = new URLSearchParams(events[2])
      const limit = Number(query.get('limit') ?? 50)
      const from = Number(query.get('cursor') ?? 0)
      const all = [...(api.events[decodeURIComponent(events[1]!)] ?? [])].reverse()
      const page = all.slice(from, from + limit)
      return send(200, { golemId: events[1], events: page, nextCursor: from + limit < all.length ? String(from + limit) : null })
    }
    if (req.method === 'POST' && req.url === '/api/snap/pairing/challenge') {
      const { owner } = (await body(req)) as { owner: string }
      return send(200, {
        challenge: { owner, chainId: 84532, nonce: `0x${'11'.repeat(32)}`, issuedAt: api.generatedAt, expiresAt: api.generatedAt + 300 },
        message: `Bardo Snap pairing\n\nOwner: ${owner}`,
      })
    }
    if (req.method === 'POST' && req.url === '/api/snap/pairing') {
      const { challenge, signature } = (await body(req)) as { challenge: { owner: string }; signature: string }
      if (signature !== GOOD_SIGNATURE)
        return send(401, {
          code: 'SNAP_PAIRING_BAD_SIGNATURE',
          message: `signature: is not the owner ${challenge.owner}'s signature of the challenge text`,
          details: {},
        })
      api.current = tokenFor(challenge.owner)
      return send(200, { owner: challenge.owner, token: api.current, deployment: api.deployment })
    }
    send(404, { code: 'NOT_FOUND', message: 'path', details: {} })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  api.stop = () => new Promise((resolve) => server.close(() => resolve()))
  return api
}
