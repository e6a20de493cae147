// `bardo deploy` with an Alchemy Notify token registers the custom webhook through alchemy-sdk's Notify
// API and creates the watched-owners variable its query reads; `bardo onboard` adds the new Golem's owner
// to it and `bardo watch-owners` every living Golem's. Here the CLI talks to a stub of that API on
// 127.0.0.1 (the SDK's `url` setting, ALCHEMY_NOTIFY_API_URL), so nothing leaves the machine. The stub
// keeps the webhooks and variables it was given, as Alchemy does, so a second deploy finds its own.
import { randomUUID } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getAddress, pad, parseEther, parseUnits, toHex, zeroAddress, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Implementation, toMetaMaskSmartAccount } from '@metamask/smart-accounts-kit'
import { DynamoStore } from '../../adapters/store/index.ts'
import { runCli } from '../../cli/bardo.ts'
import { readCliDeployment } from '../../cli/context.ts'
import { startAnvil, type Anvil } from '../../local/anvil.ts'
import { devnetAccount, devnetActions, devnetClients } from '../../local/devnet.ts'
import { createTable, documentClient, localDynamoClient, startDynalite, type Dynalite } from '../../local/dynalite.ts'

const keyOf = (index: number): Hex => toHex(devnetAccount(index).getHdKey().privateKey!)
const TOKEN = 'alchemy-notify-test-token'
const SIGNING_KEY = 'whsec_stub_signing_key_for_tests'

type Seen = { method: string; path: string; token: string | undefined; body: Record<string, unknown> | undefined }
type StubWebhook = { id: string; webhook_url: string; webhook_type: string; network: string; query: string }

let anvil: Anvil
let dynalite: Dynalite
let store: DynamoStore
let table: string
let stub: Server
let stubUrl: string
let dir: string
const seen: Seen[] = []
const hooks: StubWebhook[] = []
/** Alchemy's webhook variables: a set of items each, additive. */
const variables = new Map<string, Set<string>>()
let created = 0
const ownerKey = generatePrivateKey()

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
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  BARDO_RPC_URL: anvil.rpcUrl,
  BARDO_DEPLOYMENT: join(dir, 'deployment.json'),
  BARDO_STATE_DIR: dir,
  BARDO_DEPLOYER_KEY: keyOf(0),
  BARDO_OPERATOR_KEY: keyOf(1),
  BARDO_OWNER_KEY: ownerKey,
  BARDO_KEYSTORE_PASSPHRASE: 'alchemy passphrase',
  BARDO_KEYSTORE_SCRYPT_N: '1024',
  BARDO_TABLE_NAME: table,
  BARDO_DYNAMODB_ENDPOINT: dynalite.endpoint,
})
const notifyEnv = (): NodeJS.ProcessEnv => ({
  ...baseEnv(),
  ALCHEMY_NOTIFY_TOKEN: TOKEN,
  ALCHEMY_APP_ID: 'app-1',
  ALCHEMY_NETWORK: 'base-sepolia',
  ALCHEMY_NOTIFY_API_URL: stubUrl,
  BARDO_API_URL: 'https://api.bardo.example',
})
const deployArgs = ['--json', 'deploy', '--phase-table-owner', devnetAccount(4).address, '--deploy-framework', '--local-assets']
const deployment = () => JSON.parse(readFileSync(join(dir, 'deployment.json'), 'utf8')) as Record<string, unknown>
/** The variable `bardo deploy` names for this chain and VitalityOracle. */
const variableName = () => `bardo_owners_${anvil.chainId}_${(deployment().vitalityOracle as string).slice(2).toLowerCase()}`
const topicOf = (a: Address) => pad(a.toLowerCase() as Hex, { size: 32 })
const watched = () => [...(variables.get(variableName()) ?? [])]
const keystores = () => (existsSync(join(dir, 'keys')) ? readdirSync(join(dir, 'keys')) : [])

beforeAll(async () => {
  ;[anvil, dynalite] = await Promise.all([startAnvil(), startDynalite()])
  table = `bardo-${randomUUID().slice(0, 8)}`
  const dynamo = localDynamoClient(dynalite.endpoint)
  await createTable(dynamo, table)
  store = new DynamoStore({ client: documentClient(dynamo), tableName: table })
  // The store client the CLI builds reads the AWS SDK's own environment: placeholders dynalite ignores.
  process.env.AWS_REGION = 'us-east-1'
  process.env.AWS_ACCESS_KEY_ID = 'local'
  process.env.AWS_SECRET_ACCESS_KEY = 'local'
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
      const variable = /^\/graphql\/variables\/([^/]+)$/.exec(url.pathname)
      if (variable && req.method === 'POST') {
        const name = decodeURIComponent(variable[1]!)
        const items = body?.items as string[] | undefined
        if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(name) || !Array.isArray(items) || items.length > 10_000)
          return reply(400, { message: 'Invalid input' })
        const set = variables.get(name) ?? new Set<string>()
        for (const item of items) set.add(item.toLowerCase())
        variables.set(name, set)
        return reply(201, {})
      }
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
  await Promise.all([anvil?.stop(), dynalite?.stop()])
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

  it('with the token, creates the watched-owners variable and registers a custom webhook for the custody events', async () => {
    const r = await bardo(notifyEnv(), ...deployArgs)
    expect(r.code, r.stderr).toBe(0)
    const d = deployment() as { vitalityOracle: string; environment: { DelegationManager: string } }
    // The variable the query reads exists first, holding only the zero address until an owner is onboarded.
    const paths = seen.map((s) => s.path)
    expect(paths.indexOf(`/graphql/variables/${variableName()}`)).toBeLessThan(paths.indexOf('/create-webhook'))
    expect(watched()).toEqual([topicOf(zeroAddress)])
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
    expect(query).toContain(`query ($${variableName()}: [Bytes32!]!)`)
    expect(JSON.parse(r.stdout).alchemyWebhook).toMatchObject({ id: 'wh_1', status: 'created', ownersVariable: variableName() })
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
    expect(seen.slice(before).map((s) => s.path)).toEqual([
      '/team-webhooks',
      `/graphql/variables/${variableName()}`,
      '/dashboard-webhook-graphql-query',
    ])
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

describe('the watched owners as Golems are onboarded', () => {
  const strategy = () => join(dir, 'STRATEGY.md')
  let owner: Address

  beforeAll(async () => {
    // The owner's MetaMask smart account (the owner's key is local here), funded with test USDC and ETH.
    const clients = devnetClients(anvil.rpcUrl, anvil.chainId)
    const d = readCliDeployment(join(dir, 'deployment.json'), anvil.chainId)
    const signer = privateKeyToAccount(ownerKey)
    const smartAccount = await toMetaMaskSmartAccount({
      client: clients.publicClient as never,
      implementation: Implementation.Hybrid,
      deployParams: [signer.address, [], [], []],
      deploySalt: '0x',
      signer: { account: signer },
      environment: d.environment,
    })
    const { factory, factoryData } = await smartAccount.getFactoryArgs()
    const wait = async (hash: Promise<Hex>) => clients.publicClient.waitForTransactionReceipt({ hash: await hash })
    await wait(clients.deployer.sendTransaction({ to: factory!, data: factoryData! }))
    await devnetActions(clients, { ...d, assets: d.assets! }).mintUsdc(smartAccount.address, parseUnits('1000', 6))
    await wait(clients.deployer.sendTransaction({ to: smartAccount.address, value: parseEther('2') }))
    await wait(clients.deployer.sendTransaction({ to: signer.address, value: parseEther('1') }))
    writeFileSync(strategy(), readFileSync('examples/STRATEGY.md', 'utf8'))
    owner = smartAccount.address
  }, 120_000)

  it('an onboarding Alchemy refuses stops before a key is made or anything is signed, sent or written', async () => {
    const r = await bardo(
      { ...notifyEnv(), ALCHEMY_NOTIFY_TOKEN: 'wrong-token' },
      'onboard',
      '--golem',
      'refused',
      '--strategy',
      strategy(),
    )
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`ALCHEMY_NOTIFY_TOKEN: Alchemy Notify refused adding to variable ${variableName()} (status 401)`)
    expect(r.stderr).not.toContain('wrong-token')
    expect(await store.getGolem('refused')).toBeNull()
    expect(keystores()).toEqual([])
    expect(watched()).not.toContain(topicOf(owner))
  })

  it('refuses a malformed ALCHEMY_NOTIFY_API_URL, naming it, before anything is sent', async () => {
    const before = seen.length
    const r = await bardo(
      { ...notifyEnv(), ALCHEMY_NOTIFY_API_URL: 'ftp://alchemy' },
      'onboard',
      '--golem',
      'bad-url',
      '--strategy',
      strategy(),
    )
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('ALCHEMY_NOTIFY_API_URL: must be an http or https URL, got "ftp://alchemy"')
    expect(seen.length).toBe(before)
    expect(await store.getGolem('bad-url')).toBeNull()
  })

  it("with the token, onboarding adds the Golem's owner to the variable", async () => {
    const r = await bardo(notifyEnv(), '--json', 'onboard', '--golem', 'watched', '--strategy', strategy())
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({ golemId: 'watched', owner })
    expect(r.stderr).toContain(`owner         ${owner} watched by the Alchemy webhook (variable ${variableName()})`)
    expect(watched()).toEqual([topicOf(zeroAddress), topicOf(owner)])
  })

  it('watch-owners adds the owner of every living Golem (one onboarded without the token, say), and is idempotent', async () => {
    variables.get(variableName())!.delete(topicOf(owner))
    const r = await bardo(notifyEnv(), '--json', 'watch-owners')
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({ ownersVariable: variableName(), owners: [owner] })
    expect(watched()).toEqual([topicOf(zeroAddress), topicOf(owner)])
    expect((await bardo(notifyEnv(), 'watch-owners')).code).toBe(0)
    expect(watched()).toHaveLength(2)
  })

  it('watch-owners without ALCHEMY_NOTIFY_TOKEN is refused, naming it, before anything is sent', async () => {
    const before = seen.length
    const r = await bardo(baseEnv(), 'watch-owners')
    expect(r.code).toBe(1)
    expect(r.stderr).toContain("ALCHEMY_NOTIFY_TOKEN: must be the Alchemy Notify auth token (watch-owners adds to the webhook's variable)")
    expect(seen.length).toBe(before)
  })
})
