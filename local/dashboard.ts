// The owner's dashboard on the local stack: the page (web/, bundled with esbuild at start, with this
// stack's page settings: the demo owner, the API's origin for the Snap, the workspace's Snap), a
// same-origin proxy to the API and the indexer that adds the read key server-side (the key never reaches
// the page), and the rotation of a key this stack holds, on the owner's signed request. The
// chain's settings and the fleet are the API's (GET /api/v1/dashboard/config, GET /api/v1/fleet). The owner's acts are drafted by the API and submitted from the owner's own
// wallet account: nothing here signs or relays for the owner.
import { Hono } from 'hono'
import { build, stop as stopEsbuild } from 'esbuild'
import { join } from 'node:path'
import { isHex, type Address } from 'viem'
import { dashboardPage } from '../web/src/page.ts'
import type { Store } from '../core/store/index.ts'
import { serveApi } from '../functions/api/server.ts'
import type { StackChain } from './chain.ts'
import { LocalStackError } from './errors.ts'
import { LocalRotationError, type LocalRotation } from './rotationRequest.ts'
import { RotationRequestError } from '../app/tick/rotateOnRequest.ts'

export type DashboardOptions = {
  chain: StackChain
  store: Store
  apiUrl: string
  indexerUrl: string | undefined
  readApiKey: string
  /** The owner whose fleet the page shows unless its URL names another (`?owner=0x...`). */
  owner?: Address
  port?: number
  /** The Snap the page pairs (default: the workspace's Snap as `mm-snap serve` runs it). */
  snapId?: string
  /** Rotation of the session keys this stack holds, on the owner's signed request. */
  rotation?: Pick<LocalRotation, 'rotate'>
}

/** The Portal's port: the Snap answers the Portal's origins only, and its default build names this one. */
export const PORTAL_PORT = 3003

/** The workspace's Snap as `npm run serve -w snap` (`mm-snap serve`) runs it for MetaMask Flask. */
export const LOCAL_SNAP_ID = 'local:http://localhost:8080'

export type RunningDashboard = {
  url: string
  /** Whether the page is on the Portal's port, the one origin the Snap's default build answers. */
  atPortalPort: boolean
  stop(): Promise<void>
}

const webDir = join(import.meta.dirname, '..', 'web')

/** Bundles web/src/main.ts for the browser (minified, one file); a build error stops the start. */
export async function bundleDashboard(): Promise<string> {
  try {
    const out = await build({
      entryPoints: [join(webDir, 'src', 'main.ts')],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      legalComments: 'none',
      logLevel: 'silent',
      loader: { '.css': 'text' },
    })
    return out.outputFiles[0]!.text
  } finally {
    // esbuild's service process is only needed for this one build: stopped after it, so the stack's
    // process tree is what it was before the dashboard existed.
    await stopEsbuild()
  }
}

const GOLEM_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/

export function dashboardApp(o: DashboardOptions & { script: string }): Hono {
  const app = new Hono()
  const page = dashboardPage({ owner: o.owner ?? null, apiUrl: o.apiUrl, snapId: o.snapId ?? LOCAL_SNAP_ID, readKey: 'server' })
  app.get('/', (c) => c.html(page))
  app.get('/app.js', (c) => c.body(o.script, 200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' }))
  // Rotation of a key this stack holds (`bardo rotate` against `npm start`): the owner's
  // signature of the rotation text (local/rotationRequest.ts) is the owner's consent; the stack signs the
  // renewed grant with the owner key it holds, as its ticks do.
  app.post('/local/golems/:id/rotation', async (c) => {
    const refused = (code: string, field: string, rule: string, status: 400 | 403 | 404 | 409 | 501) =>
      c.json({ code, field, rule, message: `${field}: ${rule}` }, status)
    const id = c.req.param('id')
    if (!o.rotation) return refused('NOT_AVAILABLE', 'golem', 'this stack holds no owner key to re-grant a rotated key with', 501)
    if (!GOLEM_ID.test(id)) return refused('VALIDATION_FAILED', 'golem', 'must be a Golem id (1-64 of A-Z a-z 0-9 _ -)', 400)
    const body = (await c.req.json().catch(() => ({}))) as { signature?: unknown }
    if (typeof body.signature !== 'string' || !isHex(body.signature) || body.signature.length < 4)
      return refused('VALIDATION_FAILED', 'signature', "must be the owner's hex signature of the rotation text", 400)
    try {
      return c.json(await o.rotation.rotate(id, body.signature))
    } catch (e) {
      if (e instanceof LocalRotationError) return refused(e.code, e.field, e.rule, e.status)
      if (e instanceof RotationRequestError) return refused(e.code, e.field, e.rule, e.code === 'GOLEM_NOT_FOUND' ? 404 : 409)
      // The scheduler runs the rotation: when it did not answer, or failed, the owner may try again.
      if (e instanceof LocalStackError) return c.json({ code: e.code, message: e.message }, 503)
      throw e
    }
  })

  // The API and the indexer, same origin, read key added here.
  const proxy = (target: string, withKey: boolean) => async (c: { req: { raw: Request; url: string } }) => {
    const url = new URL(c.req.url)
    const headers = new Headers(c.req.raw.headers)
    headers.delete('host')
    if (withKey) headers.set('x-api-key', o.readApiKey)
    const method = c.req.raw.method
    const init: RequestInit = { method, headers }
    const read = method === 'GET' || method === 'HEAD'
    if (!read) init.body = await c.req.raw.arrayBuffer()
    const to = `${target}${url.pathname}${url.search}`
    // A read that failed before any answer (the upstream closed a kept-alive connection as it was reused,
    // say) is asked once more on a fresh connection: it changes nothing, so asking twice is safe. A write
    // is never re-sent; its failure is the owner's to see.
    const res = await fetch(to, init).catch((e: unknown) => {
      if (!read) throw e
      return fetch(to, init)
    })
    const out = new Headers(res.headers)
    out.delete('content-encoding')
    out.delete('content-length')
    return new Response(await res.arrayBuffer(), { status: res.status, headers: out })
  }
  app.all('/api/*', proxy(o.apiUrl, true))
  // A council's proposals are the owner's read too (the page lists the owner's councils at /api/v1/councils).
  app.get('/council/v1/proposals', proxy(o.apiUrl, true))
  if (o.indexerUrl) app.all('/graphql', proxy(o.indexerUrl, false))
  app.onError((e, c) => {
    const cause = (e as { cause?: { code?: string } }).cause?.code
    const message = `${e.message.split('\n')[0]}${cause ? ` (${cause})` : ''}`
    // The page shows only a status: the stack's log says what failed.
    process.stderr.write(`dashboard: ${c.req.method} ${new URL(c.req.url).pathname}: ${message}\n`)
    return c.json({ code: 'DASHBOARD_ERROR', message }, 500)
  })
  return app
}

export async function startDashboard(o: DashboardOptions): Promise<RunningDashboard> {
  const script = await bundleDashboard()
  const app = dashboardApp({ ...o, script })
  // The Portal's port unless told otherwise, so the Snap answers the page; another port when it is taken.
  const running =
    o.port !== undefined
      ? await serveApi(app, o.port)
      : await serveApi(app, PORTAL_PORT).catch((e: NodeJS.ErrnoException) =>
          e.code === 'EADDRINUSE' ? serveApi(app, 0) : Promise.reject(e),
        )
  return { url: running.url, atPortalPort: running.port === PORTAL_PORT, stop: running.close }
}
