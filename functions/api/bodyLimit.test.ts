// Every request body has a size limit: 413 with a JSON error naming the limit, before any route reads it.
import { afterEach, describe, expect, it } from 'vitest'
import { createApp, MAX_BODY_BYTES } from './app.ts'
import { serveApi, type RunningApi } from './server.ts'
import { sampleGolem, testApiDeps } from './testing.ts'

let running: RunningApi | undefined
afterEach(async () => {
  await running?.close()
  running = undefined
})

const extendBody = (padding: number) => JSON.stringify({ golemId: 'atlas', hours: 1, note: 'x'.repeat(padding) })

describe('request body limit', () => {
  it('refuses a body over the limit with 413 and the limit in the JSON error (Content-Length known)', async () => {
    let handled = 0
    const route = {
      handle: async () => {
        handled++
        return new Response('{}')
      },
    }
    const deps = testApiDeps({ golems: [sampleGolem()], overrides: { payments: { extend: route, feed: route } } })
    const app = createApp(deps)
    const res = await app.request('/api/v1/extend', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: extendBody(MAX_BODY_BYTES),
    })
    expect(res.status).toBe(413)
    expect(await res.json()).toEqual({
      code: 'PAYLOAD_TOO_LARGE',
      message: `body: must be at most ${MAX_BODY_BYTES} bytes`,
      details: { limitBytes: MAX_BODY_BYTES },
    })
    // The paid route never ran: nothing was asked for, taken or credited.
    expect(handled).toBe(0)
  })

  it('stops reading a streamed 50 MB body without Content-Length at the limit', async () => {
    running = await serveApi(createApp(testApiDeps({ golems: [sampleGolem()] })))
    const chunk = new Uint8Array(1024 * 1024).fill(0x20)
    let sent = 0
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 50) return controller.close()
        sent++
        controller.enqueue(chunk)
      },
    })
    const res = await fetch(`${running.url}/api/v1/feed`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit)
    expect(res.status).toBe(413)
    expect(await res.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { limitBytes: MAX_BODY_BYTES } })
    expect(sent).toBeLessThan(50)
  })

  it('lets a body under the limit through to validation', async () => {
    const app = createApp(testApiDeps({ golems: [sampleGolem()] }))
    const res = await app.request('/api/v1/extend', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ golemId: 'atlas', hours: 0 }),
    })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ code: 'VALIDATION_FAILED' })
  })

  it('applies to every route, the Clade routes included', async () => {
    const app = createApp(testApiDeps({ golems: [sampleGolem()] }))
    const res = await app.request('/clade/v1/challenge', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'x'.repeat(MAX_BODY_BYTES + 1),
    })
    expect(res.status).toBe(413)
  })
})
