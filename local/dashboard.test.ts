// The local dashboard's proxy to the API: a read whose connection the API side dropped before answering
// is asked once more (it changes nothing); a write is never sent twice, and its failure is answered as
// the dashboard's own error, naming the cause.
import { once } from 'node:events'
import { createServer, type Server, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { InMemoryStore } from '../adapters/store/index.ts'
import type { StackChain } from './chain.ts'
import { dashboardApp } from './dashboard.ts'

let server: Server | undefined
afterEach(async () => {
  server?.close()
  server = undefined
  vi.restoreAllMocks()
})

/** An HTTP upstream that drops the first `drops` connections as soon as a request arrives, then answers 200. */
async function droppingUpstream(drops: number): Promise<{ url: string; requests: string[] }> {
  const requests: string[] = []
  let connections = 0
  server = createServer((socket: Socket) => {
    const n = connections++
    socket.once('data', (data) => {
      requests.push(data.toString().split('\r\n')[0]!)
      if (n < drops) return socket.destroy()
      const body = '{"golems":[]}'
      socket.end(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`)
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests }
}

const app = (apiUrl: string) =>
  dashboardApp({
    chain: {} as StackChain,
    store: new InMemoryStore(),
    apiUrl,
    indexerUrl: undefined,
    readApiKey: 'local-read-key',
    script: '',
  })

describe('the dashboard proxy', () => {
  it('asks again once for a read whose connection was dropped before any answer', async () => {
    const upstream = await droppingUpstream(1)
    const res = await app(upstream.url).request('/api/v1/fleet?owner=0x00000000000000000000000000000000000000aa')
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ golems: [] })
    expect(upstream.requests).toEqual([
      'GET /api/v1/fleet?owner=0x00000000000000000000000000000000000000aa HTTP/1.1',
      'GET /api/v1/fleet?owner=0x00000000000000000000000000000000000000aa HTTP/1.1',
    ])
  })

  it('answers a read dropped twice as its own error, naming the cause, after two tries only', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    const upstream = await droppingUpstream(2)
    const res = await app(upstream.url).request('/api/v1/fleet')
    expect(res.status).toBe(500)
    expect(await res.json()).toMatchObject({ code: 'DASHBOARD_ERROR', message: expect.stringMatching(/fetch failed/) })
    expect(upstream.requests).toHaveLength(2)
    expect(String(stderr.mock.calls.at(-1)?.[0])).toMatch(/^dashboard: GET \/api\/v1\/fleet: fetch failed/)
  })

  it('never sends a write twice: a dropped POST is answered as the error it was', async () => {
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    const upstream = await droppingUpstream(1)
    const res = await app(upstream.url).request('/api/v1/golems/g/revocation', { method: 'POST', body: '{}' })
    expect(res.status).toBe(500)
    expect(upstream.requests).toEqual(['POST /api/v1/golems/g/revocation HTTP/1.1'])
  })
})
