// A JSON-RPC proxy for tests and benchmarks: a node:http server on 127.0.0.1 that forwards every request
// to a node (anvil) and, decided per request by a seeded PRNG, injects a fault instead:
//   drop          the socket is destroyed before anything is forwarded (the node never sees it)
//   delay         forwarded normally after a pause (delayMs)
//   fail          answered with HTTP 500, or with a JSON-RPC error, without forwarding
//   loseResponse  forwarded (an eth_sendRawTransaction lands!) but the socket is destroyed before the
//                 answer: the nasty case for exactly-once, the client cannot tell sent from not sent
// With no faults configured it is a counting proxy: `stats` tallies every JSON-RPC call by method.
import { createServer, request as httpRequest, Agent, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

export const FAULT_KINDS = ['drop', 'delay', 'fail', 'loseResponse'] as const
export type FaultKind = (typeof FAULT_KINDS)[number]
export type FaultRates = Partial<Record<FaultKind, number>>

export type RpcFaultProxyOptions = {
  /** Where requests go (anvil's URL). */
  target: string
  /** PRNG seed: the same seed and the same request order give the same faults. */
  seed?: number
  /** Probability of each fault per HTTP request; the sum must be <= 1. */
  faults?: FaultRates
  /** Per-method overrides (the method of a single call, or of a batch's first call). */
  methodFaults?: Record<string, FaultRates>
  /** Range of the injected pause, ms. Default [50, 500]. */
  delayMs?: readonly [number, number]
  /** Methods that are never faulted (the test driver's own evm_* calls, say). */
  exempt?: readonly string[]
  /**
   * Faults forced on the first requests of a method, in order, before the rates apply: makes sure a
   * run meets the case it is about (e.g. `{ eth_sendRawTransaction: ['loseResponse'] }`).
   */
  scripted?: Record<string, readonly FaultKind[]>
}

export type RpcProxyStats = {
  /** HTTP requests received. */
  requests: number
  /** JSON-RPC calls received (a batch counts each of its calls). */
  calls: number
  /** HTTP requests that got a fault (delay included). */
  faulted: number
  byKind: Record<FaultKind | 'ok', number>
  /** Calls per method. */
  byMethod: Record<string, number>
  /**
   * Each method's latest call, by its place in the count of calls (the first call is 1): which came after
   * which, whenever a test looks (a count read after a call cannot tell what came before it).
   */
  lastCall: Record<string, number>
  /** Faults per method and kind, e.g. `eth_sendRawTransaction:loseResponse`. */
  faultsByMethod: Record<string, number>
}

export type RpcFaultProxy = {
  url: string
  readonly stats: RpcProxyStats
  /** Changes the fault rates from now on (e.g. none while a test sets up, faults while it runs). */
  setFaults(faults: FaultRates, methodFaults?: Record<string, FaultRates>): void
  resetStats(): void
  stop(): Promise<void>
}

/** mulberry32: a tiny seeded PRNG, good enough to pick faults reproducibly. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const emptyStats = (): RpcProxyStats => ({
  requests: 0,
  calls: 0,
  faulted: 0,
  byKind: { ok: 0, drop: 0, delay: 0, fail: 0, loseResponse: 0 },
  byMethod: {},
  lastCall: {},
  faultsByMethod: {},
})

function checkRates(rates: FaultRates, field: string): void {
  let sum = 0
  for (const [kind, p] of Object.entries(rates)) {
    if (!(FAULT_KINDS as readonly string[]).includes(kind))
      throw new Error(`${field}.${kind}: not a fault kind (${FAULT_KINDS.join(', ')})`)
    if (typeof p !== 'number' || !(p >= 0 && p <= 1)) throw new Error(`${field}.${kind}: must be a probability in [0, 1]`)
    sum += p
  }
  if (sum > 1 + 1e-9) throw new Error(`${field}: probabilities must sum to at most 1, got ${sum}`)
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}

function methodsOf(body: Buffer): string[] {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as unknown
    const calls = Array.isArray(parsed) ? parsed : [parsed]
    return calls.map((c) =>
      c && typeof c === 'object' && typeof (c as { method?: unknown }).method === 'string' ? (c as { method: string }).method : '?',
    )
  } catch {
    return ['?']
  }
}

export async function startRpcFaultProxy(options: RpcFaultProxyOptions): Promise<RpcFaultProxy> {
  const target = new URL(options.target)
  const random = seededRandom(options.seed ?? 1)
  const [minDelay, maxDelay] = options.delayMs ?? [50, 500]
  const exempt = new Set(options.exempt ?? [])
  const scripted = new Map(Object.entries(options.scripted ?? {}).map(([m, kinds]) => [m, [...kinds]]))
  let faults: FaultRates = {}
  let methodFaults: Record<string, FaultRates> = {}
  const setFaults = (f: FaultRates, m: Record<string, FaultRates> = {}) => {
    checkRates(f, 'faults')
    for (const [method, rates] of Object.entries(m)) checkRates(rates, `methodFaults.${method}`)
    faults = { ...f }
    methodFaults = { ...m }
  }
  setFaults(options.faults ?? {}, options.methodFaults ?? {})
  let stats = emptyStats()
  const agent = new Agent({ keepAlive: true, maxSockets: 64 })
  const sockets = new Set<Socket>()

  const pick = (method: string): FaultKind | 'ok' => {
    // One draw per request whatever the rates, so changing one method's rates keeps the others' sequence.
    const r = random()
    const forced = scripted.get(method)?.shift()
    if (forced) return forced
    if (exempt.has(method)) return 'ok'
    const rates = methodFaults[method] ?? faults
    let acc = 0
    for (const kind of FAULT_KINDS) {
      acc += rates[kind] ?? 0
      if (r < acc) return kind
    }
    return 'ok'
  }

  const forward = (body: Buffer): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: target.pathname || '/',
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': body.length },
        },
        (res) => {
          readBody(res).then(
            (b) =>
              resolve({
                status: res.statusCode ?? 502,
                headers: { 'content-type': res.headers['content-type'] ?? 'application/json' },
                body: b,
              }),
            reject,
          )
        },
      )
      req.on('error', reject)
      req.end(body)
    })

  const reply = (res: ServerResponse, status: number, headers: Record<string, string>, body: Buffer | string) => {
    res.writeHead(status, headers)
    res.end(body)
  }

  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req)
      const methods = methodsOf(body)
      const method = methods[0] ?? '?'
      stats.requests += 1
      for (const m of methods) {
        stats.calls += 1
        stats.byMethod[m] = (stats.byMethod[m] ?? 0) + 1
        stats.lastCall[m] = stats.calls
      }
      const kind = pick(method)
      stats.byKind[kind] += 1
      if (kind !== 'ok') {
        stats.faulted += 1
        stats.faultsByMethod[`${method}:${kind}`] = (stats.faultsByMethod[`${method}:${kind}`] ?? 0) + 1
      }
      if (kind === 'drop') return req.socket.destroy()
      if (kind === 'fail') {
        // Half plain HTTP errors, half JSON-RPC errors: clients take different paths for each.
        if (random() < 0.5) return reply(res, 500, { 'content-type': 'text/plain' }, 'injected fault: internal server error')
        const parsed = JSON.parse(body.toString('utf8')) as { id?: unknown } | { id?: unknown }[]
        const error = (id: unknown) => ({
          jsonrpc: '2.0',
          id: id ?? null,
          error: { code: -32603, message: 'injected fault: internal error' },
        })
        return reply(
          res,
          200,
          { 'content-type': 'application/json' },
          JSON.stringify(Array.isArray(parsed) ? parsed.map((c) => error(c.id)) : error(parsed.id)),
        )
      }
      if (kind === 'delay') await new Promise((r) => setTimeout(r, minDelay + Math.floor(random() * (maxDelay - minDelay + 1))))
      const answer = await forward(body)
      if (kind === 'loseResponse') return req.socket.destroy()
      reply(res, answer.status, answer.headers, answer.body)
    })().catch(() => {
      if (!res.headersSent) reply(res, 502, { 'content-type': 'text/plain' }, 'proxy: upstream unreachable')
    })
  })
  server.on('connection', (s: Socket) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  let stopped: Promise<void> | undefined
  return {
    url: `http://127.0.0.1:${port}`,
    get stats() {
      return stats
    },
    setFaults,
    resetStats() {
      stats = emptyStats()
    },
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        agent.destroy()
        server.close(() => resolve())
      })
      return stopped
    },
  }
}
