// `bardo deploy` with an Alchemy Notify token registers the custom webhook through alchemy-sdk's Notify
// API; here the SDK talks to a stub of that API on 127.0.0.1 (its `url` setting), so nothing leaves the
// machine. The stub keeps the webhooks it was given, as Alchemy does, so a second deploy finds its own.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getAddress, toHex, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../../cli/bardo.ts'
import { startAnvil, type Anvil } from '../../local/anvil.ts'
import { devnetAccount } from '../../local/devnet.ts'

const keyOf = (index: number): Hex => toHex(devnetAccount(index).getHdKey().privateKey!)
const TOKEN = 'alchemy-notify-test-token'
const SIGNING_KEY = 'whsec_stub_signing_key_for_tests'

type Seen = { method: string; path: string; token: string | undefined; body: Record<string, unknown> | undefined }
type StubWebhook = { id: string; webhook_url: string; webhook_type: string; network: string; query: string }

let anvil: Anvil
let stub: Server
let stubUrl: string
let dir: string
const seen: Seen[] = []
const hooks: StubWebhook[] = []
let created = 0

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let data = ''
    req.on('data', (c: Buffer) => (data += c.toString()))
    req.on('end', () => resolve(data))
  })
}

const raw = (h: StubWebhook) => ({
  id: h.id,
  network: h.network,
  webhook_type: h.webhook_type,
  webhook_url: h.webhook_url,
  is_active: true,
  time_created: 1_764_000_000_000,
  signing_key: SIGNING_KEY,
  version: 'V2',
  app_id: 'app-1',
})

async function bardo(env: NodeJS.ProcessEnv, ...argv: string[]) {
  let stdout = ''
  let stderr = ''
  const code = await runCli(argv, { env, stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } })
  return { code, stdout, stderr }
}

const baseEnv = (): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  DO_NOT_TRACK: '1',
  BARDO_RPC_URL: anvil.rpcUrl,
  BARDO_DEPLOYMENT: join(dir, 'deployment.json'),
  BARDO_STATE_DIR: dir,
  BARDO_DEPLOYER_KEY: keyOf(0),
  BARDO_OPERATOR_KEY: keyOf(1),
})
const notifyEnv = (): NodeJS.ProcessEnv => ({
  ...baseEnv(),
  ALCHEMY_NOTIFY_TOKEN: TOKEN,
  ALCHEMY_APP_ID: 'app-1',
  ALCHEMY_NETWORK: 'base-sepolia',
  ALCHEMY_NOTIFY_API_URL: stubUrl,
  BARDO_API_URL: 'https://api.bardo.example',
})
const deployArgs = ['--json', 'deploy', '--phase-table-owner', devnetAccount(4).address, '--deploy-framework']
const deployment = () => JSON.parse(readFileSync(join(dir, 'deployment.json'), 'utf8')) as Record<string, unknown>

beforeAll(async () => {
  anvil = await startAnvil()
  dir = mkdtempSync(join(tmpdir(), 'bardo-alchemy-'))
  stub = createServer((req, res) => {
    void readBody(req).then((text) => {
      const url = new URL(req.url ?? '/', 'http://stub')
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined
      seen.push({ method: req.method ?? '', path: url.pathname, token: req.headers['x-alchemy-token'] as string | undefined, body })
      const reply = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' })
        res.end(JSON.stringify(json))
      }
      if (req.headers['x-alchemy-token'] !== TOKEN) return reply(401, { message: 'Unauthenticated' })
      if (url.pathname === '/team-webhooks') return reply(200, { data: hooks.map(raw) })
      if (url.pathname === '/dashboard-webhook-graphql-query') {
        const h = hooks.find((x) => x.id === url.searchParams.get('webhook_id'))
        return h ? reply(200, { data: { graphql_query: h.query } }) : reply(404, { message: 'not found' })
      }
      if (url.pathname === '/create-webhook' && req.method === 'POST') {
        const h: StubWebhook = {
          id: `wh_${++created}`,
          webhook_url: body!.webhook_url as string,
          webhook_type: body!.webhook_type as string,
          network: body!.network as string,
          query: (body!.graphql_query as { query: string }).query,
        }
        hooks.push(h)
        return reply(200, { data: raw(h) })
      }
      if (url.pathname === '/delete-webhook' && req.method === 'DELETE') {
        const i = hooks.findIndex((x) => x.id === url.searchParams.get('webhook_id'))
        if (i >= 0) hooks.splice(i, 1)
        return reply(200, {})
      }
      return reply(404, { message: `no ${url.pathname}` })
    })
  })
  await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve))
  stubUrl = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`
}, 120_000)

afterAll(async () => {
  await anvil?.stop()
  await new Promise((resolve) => stub?.close(resolve))
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('bardo deploy and Alchemy Notify', () => {
  it('without ALCHEMY_NOTIFY_TOKEN registers nothing', async () => {
    const r = await bardo(baseEnv(), ...deployArgs)
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).not.toHaveProperty('alchemyWebhook')
    expect(seen).toEqual([])
  })

  it("with the token, registers a custom webhook for the DelegationManager's and VitalityOracle's logs", async () => {
    const r = await bardo(notifyEnv(), ...deployArgs)
    expect(r.code, r.stderr).toBe(0)
    const d = deployment() as { vitalityOracle: string; environment: { DelegationManager: string } }
    const create = seen.find((s) => s.path === '/create-webhook')!
    expect(create.token).toBe(TOKEN)
    expect(create.body).toMatchObject({
      webhook_type: 'GRAPHQL',
      webhook_url: 'https://api.bardo.example/api/v1/webhooks/alchemy',
      app_id: 'app-1',
      network: 'BASE_SEPOLIA',
      graphql_query: { skip_empty_messages: true },
    })
    const query = (create.body!.graphql_query as { query: string }).query
    expect(query).toContain(getAddress(d.environment.DelegationManager))
    expect(query).toContain(getAddress(d.vitalityOracle))
    expect(JSON.parse(r.stdout).alchemyWebhook).toMatchObject({ id: 'wh_1', status: 'created' })
    // The signing key goes to a file only its owner reads, never to the output.
    const keyFile = join(dir, 'alchemy-webhook-signing-key')
    expect(readFileSync(keyFile, 'utf8').trim()).toBe(SIGNING_KEY)
    expect(statSync(keyFile).mode & 0o777).toBe(0o600)
    expect(r.stdout + r.stderr).not.toContain(SIGNING_KEY)
  })

  it('a second deploy keeps the webhook already pointed at the API with the same query', async () => {
    const before = seen.length
    const r = await bardo(notifyEnv(), ...deployArgs)
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout).alchemyWebhook).toMatchObject({ id: 'wh_1', status: 'kept' })
    expect(seen.slice(before).map((s) => s.path)).toEqual(['/team-webhooks', '/dashboard-webhook-graphql-query'])
    expect(hooks).toHaveLength(1)
  })

  it('a webhook at the same URL watching other contracts is replaced', async () => {
    hooks[0]!.query = '{ block { logs(filter: { addresses: ["0x0000000000000000000000000000000000000001"] }) { data } } }'
    const r = await bardo(notifyEnv(), ...deployArgs)
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout).alchemyWebhook).toMatchObject({ id: 'wh_2', status: 'replaced' })
    expect(hooks.map((h) => h.id)).toEqual(['wh_2'])
  })

  it('refuses a missing app id or a non-public API URL before calling Alchemy, naming the variable', async () => {
    const before = seen.length
    const noApp = await bardo({ ...notifyEnv(), ALCHEMY_APP_ID: '' }, ...deployArgs)
    expect(noApp.code).toBe(1)
    expect(noApp.stderr).toContain('ALCHEMY_APP_ID: must name the Alchemy app')
    const local = await bardo({ ...notifyEnv(), BARDO_API_URL: 'http://127.0.0.1:3000' }, ...deployArgs)
    expect(local.code).toBe(1)
    expect(local.stderr).toContain("BARDO_API_URL: must be the API's public https URL")
    expect(seen.length).toBe(before)
  })

  it('a refused token is reported by variable, without the token', async () => {
    const r = await bardo({ ...notifyEnv(), ALCHEMY_NOTIFY_TOKEN: 'wrong-token' }, ...deployArgs)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('ALCHEMY_NOTIFY_TOKEN: Alchemy Notify refused listing the webhooks')
    expect(r.stderr).not.toContain('wrong-token')
  })
})
