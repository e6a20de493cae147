// The owner's side of ERC-7715 with MetaMask's own permissions Snap: @metamask/gator-permissions-snap
// 0.7.0 from npm, unmodified, runs in the Snaps simulator and grants Bardo's runway request for an
// EIP-7702 owner on the anvil devnet. The owner lowers the runway amount in the Snap's dialog; Bardo
// reads what was granted (readGrantedRunway), re-delegates it to the Golem's key and redeems it
// through the real DelegationManager; the owner's NonceEnforcer increment then revokes it.
//
// The simulator is @metamask/snaps-simulation, which is what snaps-jest runs, driven from vitest: jest
// would need its own TypeScript and ESM transform to load the anvil harness (local/devnet.ts), and this
// way the Snap and the chain share one test process. The simulator answers only accounts and chain id,
// so the test answers the Snap's other wallet calls as MetaMask would (chain reads go to anvil, typed
// data is signed with the owner's key, the message-signing Snap's two calls are answered with a test
// key), and the profile sync the Snap stores each grant with reaches a loopback stand-in of its
// authentication and storage endpoints.
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join, normalize } from 'node:path'
import { Worker } from 'node:worker_threads'
import { secp256k1 } from '@noble/curves/secp256k1'
import { sha256 } from '@noble/hashes/sha2'
import { NonceEnforcer } from '@metamask/delegation-abis'
import { installSnap, type SnapHandlerInterface } from '@metamask/snaps-simulation'
import { NodeThreadExecutionService } from '@metamask/snaps-controllers/node'
import { ThreadParentMessageStream } from '@metamask/post-message-stream/node'
import { bytesToHex, getAddress, toHex, type Address, type Hex } from 'viem'
import { generatePrivateKey, type PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildRunwayRedelegation } from '../../core/delegations/index.ts'
import { readGrantedRunway, toErc7715Request, type GrantedRunway, type PermissionPlan } from '../../core/permissions/index.ts'
import { WALLET_PERIOD_PRESETS } from '../../core/permissions/erc7715.ts'
import { startDevnet, type Devnet, type OwnerAccount } from '../../local/devnet.ts'
import {
  USDC,
  chainNow,
  compileLocalPlan,
  keySigner,
  newGolem,
  newKey,
  newTree,
  redeem,
  redeemRefused,
  transferCall,
  usdcBalance,
  waitOk,
  walletFor,
} from '../chain/harness.ts'

const require = createRequire(import.meta.url)
const SNAP_ROOT = dirname(require.resolve('@metamask/gator-permissions-snap/package.json'))
/** The Snap takes grant requests only from the permissions kernel Snap, which relays a site's request. */
const KERNEL = 'npm:@metamask/permissions-kernel-snap'
const DAY = 86_400

let devnet: Devnet
let owner: OwnerAccount
let session: { privateKey: Hex; account: PrivateKeyAccount }
let golem: PrivateKeyAccount
let plan: PermissionPlan
let server: Server
let snap: Awaited<ReturnType<typeof installSnap>>
/** What reached the profile-sync stand-in, as `METHOD host/path`. */
const profileSync: string[] = []

/** Serves the Snap's npm folder (as snaps-jest's server does) and stands in for profile sync's endpoints. */
async function startServer(): Promise<number> {
  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const [, host, ...rest] = url.pathname.split('/')
    if (host?.endsWith('.api.cx.metamask.io')) {
      const path = `/${rest.join('/')}`
      profileSync.push(`${req.method} ${host}${path}`)
      await body(req)
      // The Snap encrypts each grant (scrypt) for seconds before its PUT: a kept-alive socket would be closed by then.
      res.setHeader('connection', 'close')
      const json = (value: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value))
      if (path === '/api/v2/nonce')
        return json({ nonce: 'bardo-test-nonce', identifier: url.searchParams.get('identifier'), expires_in: 3600 })
      if (path === '/api/v2/srp/login')
        return json({
          token: 'bardo-test-login',
          expires_in: 3600,
          profile: { identifier_id: 'bardo-identifier', metametrics_id: 'bardo-metrics', profile_id: 'bardo-profile' },
        })
      if (path === '/oauth2/token') return json({ access_token: 'bardo-test-access', expires_in: 3600 })
      if (path.startsWith('/api/v1/userstorage/')) return req.method === 'GET' ? res.writeHead(404).end('{}') : json({})
      return res.writeHead(404).end('{}')
    }
    const file = normalize(join(SNAP_ROOT, url.pathname))
    if (!file.startsWith(SNAP_ROOT)) return res.writeHead(403).end()
    try {
      res.writeHead(200).end(await readFile(file))
    } catch {
      res.writeHead(404).end()
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as { port: number }).port
}

const body = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let text = ''
    req.on('data', (d: Buffer) => {
      text += d.toString()
    })
    req.on('end', () => resolve(text))
  })

/**
 * The simulator's own execution service, with one line run in the Snap's worker before the Snap's
 * environment: `fetch` to MetaMask's profile-sync hosts goes to the loopback stand-in instead.
 */
function executionServiceFor(port: number) {
  const environment = require.resolve('@metamask/snaps-execution-environments/node-thread')
  const preload = `
    const realFetch = globalThis.fetch;
    globalThis.fetch = (input, init) => {
      const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
      if (!url.hostname.endsWith('.api.cx.metamask.io')) return realFetch(input, init);
      return realFetch('http://127.0.0.1:${port}/' + url.hostname + url.pathname + url.search, init);
    };
    require(${JSON.stringify(environment)});
  `
  return class LoopbackProfileSyncExecutionService extends NodeThreadExecutionService {
    protected override async initEnvStream(snapId: string) {
      this.setSnapStatus(snapId, 'initializing')
      const worker = new Worker(preload, { eval: true, stdout: true, stderr: true })
      worker.stdout.on('data', () => undefined)
      worker.stderr.on('data', () => undefined)
      const stream = new ThreadParentMessageStream({ thread: worker })
      return { worker, stream }
    }
  }
}

/** The message-signing Snap's key (MetaMask derives it from the owner's secret recovery phrase). */
const messageKey = generatePrivateKey()

/** The wallet calls the Snap makes that the simulator does not answer, answered as MetaMask would. */
function answerWalletCalls() {
  // A call this answers with undefined goes on to the simulator; the mock's type allows undefined only when synchronous.
  snap.mockJsonRpc(walletCalls as never)
}

async function walletCalls(request: { method: string; params?: unknown }): Promise<unknown> {
  const { method, params } = request
  if (method === 'eth_chainId') return toHex(devnet.chain.id)
  if (method === 'eth_accounts' || method === 'eth_requestAccounts') return [owner.address]
  if (method === 'wallet_getAccountUpgradeStatus') {
    // Read from the chain as MetaMask reads it: an EIP-7702 account's code is 0xef0100 followed by its delegate.
    const { account } = params as { account: Address }
    const code = (await devnet.publicClient.getCode({ address: account })) ?? '0x'
    const upgraded = code.startsWith('0xef0100')
    return { account, isUpgraded: upgraded, upgradedAddress: upgraded ? getAddress(`0x${code.slice(8)}`) : null }
  }
  if (method === 'eth_signTypedData_v4') {
    const [, data] = params as [Hex, string | Record<string, never>]
    const typed = typeof data === 'string' ? JSON.parse(data) : data
    const { EIP712Domain: _domain, ...types } = typed.types
    return owner.signer.signTypedData({ domain: typed.domain, types, primaryType: typed.primaryType, message: typed.message })
  }
  if (method === 'wallet_invokeSnap') {
    const { snapId, request: inner } = params as { snapId: string; request: { method: string; params?: { message?: string } } }
    if (snapId !== 'npm:@metamask/message-signing-snap') return undefined
    if (inner.method === 'getPublicKey') return bytesToHex(secp256k1.getPublicKey(messageKey.slice(2), true))
    if (inner.method === 'signMessage')
      return bytesToHex(
        secp256k1.sign(sha256(new TextEncoder().encode(inner.params?.message ?? '')), messageKey.slice(2)).toCompactRawBytes(),
      )
    return undefined
  }
  if (method.startsWith('eth_')) return devnet.publicClient.request({ method, params } as never)
  return undefined
}

/** Finds a named element in a Snap interface's content. */
function element(node: unknown, name: string): { type: string; props: Record<string, unknown> } | undefined {
  if (!node || typeof node !== 'object') return undefined
  const n = node as { type?: string; props?: { name?: string } }
  if (n.type !== undefined && n.props?.name === name) return n as { type: string; props: Record<string, unknown> }
  for (const child of Object.values(node)) {
    const found = element(child, name)
    if (found) return found
  }
  return undefined
}

/** Waits until the Snap has filled its dialog in (it shows skeletons while it reads the chain). */
async function settled(ui: SnapHandlerInterface): Promise<SnapHandlerInterface> {
  let current = ui
  while (!element(current.content, 'grant-button') || JSON.stringify(current.content).includes('"Skeleton"')) {
    current = await current.waitForUpdate()
  }
  return current
}

beforeAll(async () => {
  const port = await startServer()
  devnet = await startDevnet()
  owner = await devnet.createWalletOwner()
  session = await newKey(devnet)
  golem = await newGolem(devnet)
  plan = compileLocalPlan(devnet, {
    text: '---\nbudget: $25/day\nrunway_days: 30\n---\nRunway only.',
    owner: owner.address,
    sessionKey: session.account.address,
    now: await chainNow(devnet),
  })
  snap = await installSnap(`local:http://127.0.0.1:${port}` as never, { executionService: executionServiceFor(port) as never })
  answerWalletCalls()
}, 120_000)

afterAll(async () => {
  await snap?.close()
  await devnet?.stop()
  server?.close()
})

describe("MetaMask's permissions Snap 0.7.0 grants Bardo's runway for a 7702 owner", () => {
  let granted: GrantedRunway
  let chain: Awaited<ReturnType<ReturnType<typeof buildRunwayRedelegation>['chain']>>

  it('the owner lowers the runway amount in the dialog and grants; Bardo reads the lowered amount, the daily preset and the nonce', async () => {
    const response = snap.request({
      origin: KERNEL,
      method: 'permissionsProvider_grantPermissions',
      params: { permissionsRequest: toErc7715Request(plan), siteOrigin: 'https://bardo.local' } as never,
    })
    // The runway's dialog: the owner types 10 (USDC a day) over the requested 25.
    let ui = await settled((await response.getInterface()) as SnapHandlerInterface)
    expect(element(ui.content, 'erc20-token-periodic-period-amount')?.props).toMatchObject({ value: '25' })
    await ui.typeInField('erc20-token-periodic-period-amount', '10')
    ui = await settled(await ui.waitForUpdate())
    expect(element(ui.content, 'erc20-token-periodic-period-amount')?.props).toMatchObject({ value: '10' })
    await ui.clickElement('grant-button')
    // The gas's dialog: granted as asked.
    ui = await settled((await response.getInterface()) as SnapHandlerInterface)
    await ui.clickElement('grant-button')
    const { response: answer } = await response
    expect(answer).not.toHaveProperty('error')
    const result = (answer as { result: unknown }).result

    granted = readGrantedRunway({
      granted: result,
      request: toErc7715Request(plan),
      environment: devnet.deployment.environment,
      now: Number(await chainNow(devnet)),
      minimumLifeSeconds: 7 * DAY,
    })
    expect(granted.runway).toMatchObject({
      token: getAddress(devnet.deployment.assets.usdc),
      periodAmount: USDC(10),
      periodDuration: WALLET_PERIOD_PRESETS.daily,
      delegator: owner.address,
      delegate: session.account.address,
      nonce: 0n,
      // The expiry rule is not adjustable: the Snap granted the plan's.
      expiry: plan.expiry,
    })
    expect(granted.gas).toMatchObject({
      token: null,
      periodAmount: plan.dailyGasCap,
      periodDuration: WALLET_PERIOD_PRESETS.daily,
      nonce: 0n,
    })
    // The Snap stored the grant with profile sync (signed in through the message-signing Snap's key).
    expect(profileSync).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^GET authentication\.api\.cx\.metamask\.io\/api\/v2\/nonce$/),
        expect.stringMatching(/^POST authentication\.api\.cx\.metamask\.io\/api\/v2\/srp\/login$/),
        expect.stringMatching(/^POST oidc\.api\.cx\.metamask\.io\/oauth2\/token$/),
        expect.stringMatching(/^PUT user-storage\.api\.cx\.metamask\.io\/api\/v1\/userstorage\//),
      ]),
    )
  })

  it("Bardo re-delegates the granted context to the Golem's key; it moves USDC within the lowered amount, and more is refused", async () => {
    const now = await chainNow(devnet)
    const tree = newTree(devnet, now)
    const r = buildRunwayRedelegation({
      tree,
      permission: { context: granted.runway.chain },
      executionKey: golem.address,
      bardo: [
        {
          type: 'golemPhase',
          golem: golem.address,
          startTime: BigInt(plan.startTime),
          endTime: BigInt((granted.runway.expiry ?? plan.expiry) - 1),
        },
      ],
    })
    await tree.sign(r.child.hash, keySigner(devnet, session.privateKey))
    chain = r.chain()
    expect(chain).toHaveLength(2)
    const { usdc } = devnet.deployment.assets
    const before = await usdcBalance(devnet, owner.address)
    await redeem(devnet, golem, chain, [transferCall(usdc, golem.address, USDC(6))])
    expect(await usdcBalance(devnet, golem.address)).toBe(USDC(6))
    expect(await usdcBalance(devnet, owner.address)).toBe(before - USDC(6))
    // 6 + 5 is over the 10 the owner granted, though under the 25 Bardo asked for.
    const e = await redeemRefused(devnet, golem, chain, [transferCall(usdc, golem.address, USDC(5))])
    expect(e).toMatchObject({ name: 'Error', args: ['ERC20PeriodTransferEnforcer:transfer-amount-exceeded'] })
    await redeem(devnet, golem, chain, [transferCall(usdc, golem.address, USDC(4))])
    expect(await usdcBalance(devnet, golem.address)).toBe(USDC(10))
  })

  it('the owner increments its NonceEnforcer nonce from its own account; the next redemption is refused', async () => {
    const { NonceEnforcer: nonceEnforcer } = devnet.deployment.environment.caveatEnforcers
    const manager = devnet.deployment.environment.DelegationManager
    await waitOk(
      devnet,
      walletFor(devnet, owner.signer).writeContract({
        address: nonceEnforcer!,
        abi: NonceEnforcer,
        functionName: 'incrementNonce',
        args: [manager],
      }),
    )
    // A new day, so the period transfer would allow it: the nonce alone refuses.
    await devnet.increaseTime(DAY)
    const e = await redeemRefused(devnet, golem, chain, [transferCall(devnet.deployment.assets.usdc, golem.address, USDC(1))])
    expect(e).toMatchObject({ name: 'Error', args: ['NonceEnforcer:invalid-nonce'] })
  })
})
