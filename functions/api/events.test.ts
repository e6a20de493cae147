// The Golem's custody events over HTTP: the paged read (newest first, a cursor to the next page, a forged
// cursor refused naming the field) and the live stream (server-sent events: a new client hears only what
// is recorded after it connected; a reconnecting one resumes after its Last-Event-ID; a malformed one is
// refused; the owner's Snap token reads its owner's Golems only). The stream runs with a short poll and
// lifetime so a test reads it to its end.
import { describe, expect, it } from 'vitest'
import { InMemoryStore } from '../../adapters/store/index.ts'
import { rotateSnapToken } from '../../core/snap/snapToken.ts'
import { createApp } from './app.ts'
import { positionOf } from './routes/events.ts'
import { StoreGolemJournal } from './services/journal.ts'
import { sampleGolem, testApiDeps } from './testing.ts'

const golem = sampleGolem()

const stranger = sampleGolem({ id: 'stranger', owner: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC' })

async function withEvents(n: number) {
  const store = new InMemoryStore()
  for (let i = 1; i <= n; i++)
    await store.appendEvent({
      golemId: golem.id,
      type: i % 2 ? 'RunwayRedeemed' : 'PhaseChanged',
      at: 1_000 * i,
      eventId: `e${i}`,
      data: { n: i },
    })
  const deps = testApiDeps({
    golems: [golem, stranger],
    overrides: { journal: new StoreGolemJournal(store), eventStream: { pollMs: 20, maxSeconds: 0.2, batch: 100 } },
  })
  return { store, app: createApp(deps), deps }
}

/** The stream's messages, read to its end: [id, event, data.n]. */
async function messages(res: Response): Promise<[string, string, number][]> {
  const text = await res.text()
  return text
    .split('\n\n')
    .filter((block) => block.includes('data:'))
    .map((block) => {
      const field = (name: string) => /^(\w+): ?(.*)$/m.exec(block.split('\n').find((l) => l.startsWith(`${name}:`)) ?? '')?.[2] ?? ''
      return [field('id'), field('event'), (JSON.parse(field('data')) as { data: { n: number } }).data.n]
    })
}

describe('custody events', () => {
  it('pages newest first with a cursor to the next page', async () => {
    const { app } = await withEvents(5)
    const first = await app.request(`/api/v1/golems/${golem.id}/events?limit=3`)
    expect(first.status).toBe(200)
    const page = (await first.json()) as { events: { eventId: string; type: string; at: number }[]; nextCursor: string | null }
    expect(page.events.map((e) => e.eventId)).toEqual(['e5', 'e4', 'e3'])
    expect(page.events[0]).toMatchObject({ type: 'RunwayRedeemed', at: 5_000, data: { n: 5 } })
    const next = (await (await app.request(`/api/v1/golems/${golem.id}/events?limit=3&cursor=${page.nextCursor}`)).json()) as typeof page
    expect(next.events.map((e) => e.eventId)).toEqual(['e2', 'e1'])
    expect(next.nextCursor).toBeNull()
  })

  it('refuses a forged cursor, a bad limit and an unknown Golem, naming what is wrong', async () => {
    const { app } = await withEvents(2)
    const forged = await app.request(`/api/v1/golems/${golem.id}/events?cursor=not-a-cursor`)
    expect(forged.status).toBe(400)
    expect(await forged.json()).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/^cursor: /) })
    const limit = await app.request(`/api/v1/golems/${golem.id}/events?limit=500`)
    expect(limit.status).toBe(400)
    expect(await limit.json()).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/limit/) })
    expect((await app.request('/api/v1/golems/nobody/events')).status).toBe(404)
  })

  it('streams what is recorded after a new client connected, each message named and resumable', async () => {
    const { store, app } = await withEvents(3)
    const pending = app.request(`/api/v1/golems/${golem.id}/events/stream`)
    await new Promise((r) => setTimeout(r, 50))
    await store.appendEvent({ golemId: golem.id, type: 'DelegationAdjusted', at: 9_000, eventId: 'e9', data: { n: 9 } })
    const res = await pending
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/)
    expect(await messages(res)).toEqual([['9000:e9', 'DelegationAdjusted', 9]])
  })

  it('resumes after the Last-Event-ID a reconnecting client sends, and refuses one it never sent', async () => {
    const { app } = await withEvents(4)
    const res = await app.request(`/api/v1/golems/${golem.id}/events/stream`, { headers: { 'last-event-id': '2000:e2' } })
    expect(await messages(res)).toEqual([
      ['3000:e3', 'RunwayRedeemed', 3],
      ['4000:e4', 'PhaseChanged', 4],
    ])
    const bad = await app.request(`/api/v1/golems/${golem.id}/events/stream`, { headers: { 'last-event-id': 'yesterday' } })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/^Last-Event-ID: /) })
    expect(positionOf('12:abc')).toEqual({ at: 12, eventId: 'abc' })
    expect(positionOf(undefined)).toBeUndefined()
  })

  it('sends an event written after the stream moved past its time, with the stream position as its id', async () => {
    const { store, deps } = await withEvents(3)
    const app = createApp({ ...deps, eventStream: { pollMs: 20, maxSeconds: 30, batch: 100 } })
    // The response is answered once the stream's start is fixed (the newest event, e3).
    const res = await app.request(`/api/v1/golems/${golem.id}/events/stream`)
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
    let text = ''
    const next = async () => {
      while (!text.includes('\n\n')) text += (await reader.read()).value ?? ''
      const [block] = text.split('\n\n', 1)
      text = text.slice(block!.length + 2)
      const field = (name: string) =>
        block!
          .split('\n')
          .find((l) => l.startsWith(`${name}:`))
          ?.replace(/^\w+: ?/, '')
      return [field('id'), field('event'), (JSON.parse(field('data')!) as { data: { n: number } }).data.n]
    }
    try {
      // A payment credited at the API's clock, then the last event of a tick that started earlier.
      await store.appendEvent({ golemId: golem.id, type: 'PaymentCredited', at: 9_000, eventId: 'e9', data: { n: 9 } })
      expect(await next()).toEqual(['9000:e9', 'PaymentCredited', 9])
      await store.appendEvent({ golemId: golem.id, type: 'DeathCompleted', at: 5_016, eventId: 'e5', data: { n: 5 } })
      expect(await next()).toEqual(['9000:e9', 'DeathCompleted', 5])
    } finally {
      await reader.cancel()
    }
    // A client that reconnects with that id is not sent the late event again.
    const again = await createApp(deps).request(`/api/v1/golems/${golem.id}/events/stream`, { headers: { 'last-event-id': '9000:e9' } })
    expect(await messages(again)).toEqual([])
  })

  it("takes the owner's current Snap token for the owner's Golems, and answers another owner's Golem as unknown", async () => {
    const { app, deps } = await withEvents(2)
    const token = await rotateSnapToken(deps.stores.snapTokens, golem.owner, deps.clock.now())
    const snap = { authorization: `Bearer ${token}`, origin: 'null' }
    const own = await app.request(`/api/v1/golems/${golem.id}/events?limit=1`, { headers: snap })
    expect(own.status).toBe(200)
    expect(((await own.json()) as { events: { eventId: string }[] }).events.map((e) => e.eventId)).toEqual(['e2'])
    const other = await app.request(`/api/v1/golems/${stranger.id}/events`, { headers: snap })
    expect(other.status).toBe(404)
    expect(await other.json()).toMatchObject({ code: 'GOLEM_NOT_FOUND', message: expect.stringMatching(/^id: .*Snap token's owner/) })
    expect((await app.request(`/api/v1/golems/${stranger.id}/events/stream`, { headers: snap })).status).toBe(404)
    // A rotated token is refused before any Golem is read.
    await rotateSnapToken(deps.stores.snapTokens, golem.owner, deps.clock.now())
    const rotated = await app.request(`/api/v1/golems/${golem.id}/events`, { headers: snap })
    expect(rotated.status).toBe(401)
    expect(await rotated.json()).toMatchObject({ code: 'INVALID_TOKEN', message: expect.stringMatching(/^authorization: /) })
  })

  it("answers the browser's preflight for the allowlisted origins only", async () => {
    const { app } = await withEvents(1)
    const preflight = (origin: string) =>
      app.request(`/api/v1/golems/${golem.id}/events`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
      })
    const allowed = await preflight('http://localhost:3003')
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://localhost:3003')
    expect(allowed.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization')
    expect((await preflight('https://evil.example')).headers.get('access-control-allow-origin')).toBeNull()
  })
})
