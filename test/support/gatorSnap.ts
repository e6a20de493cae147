// MetaMask's permissions Snap as the owner's wallet for ERC-7715: @metamask/gator-permissions-snap 0.7.0
// from npm, unmodified, in the Snaps simulator (@metamask/snaps-simulation, what snaps-jest runs), for an
// EIP-7702 owner on a local chain. The owner grants in the Snap's own dialogs (optionally typing a lower
// runway amount) as an owner would. The simulator answers only accounts and chain id, so the Snap's
// other wallet calls are answered as MetaMask would (chain reads from the chain, typed data signed with
// the owner's key, the message-signing Snap's two calls with a test key), and the profile sync the Snap
// stores each grant with reaches a loopback stand-in of its authentication and storage endpoints.
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join, normalize } from 'node:path'
import { Worker } from 'node:worker_threads'
import { secp256k1 } from '@noble/curves/secp256k1'
import { sha256 } from '@noble/hashes/sha2'
import { installSnap, type SnapHandlerInterface } from '@metamask/snaps-simulation'
import { NodeThreadExecutionService } from '@metamask/snaps-controllers/node'
import { ThreadParentMessageStream } from '@metamask/post-message-stream/node'
import { bytesToHex, getAddress, toHex, type Address, type Hex, type PublicClient } from 'viem'
import { generatePrivateKey, type PrivateKeyAccount } from 'viem/accounts'

const require = createRequire(import.meta.url)
const SNAP_ROOT = dirname(require.resolve('@metamask/gator-permissions-snap/package.json'))
/** The Snap takes grant requests only from the permissions kernel Snap, which relays a site's request. */
const KERNEL = 'npm:@metamask/permissions-kernel-snap'

export type GatorWallet = {
  /**
   * The site's `wallet_requestExecutionPermissions` params, granted in the Snap's dialogs: the owner types
   * `runwayAmount` (token units, as the dialog shows them) over the runway's amount when given, then grants
   * each. Returns the Snap's answer; a refusal throws with the Snap's message.
   */
  grant(requests: unknown, o?: { runwayAmount?: string; siteOrigin?: string }): Promise<unknown>
  /** What reached the profile-sync stand-in, as `METHOD host/path`. */
  profileSync: readonly string[]
  /** Each dialog of the last grant: its content as first shown and as granted, for a test to read. */
  dialogs: readonly { shown: unknown; granted: unknown }[]
  close(): Promise<void>
}

export type GatorOwner = { address: Address; signer: PrivateKeyAccount }

export async function startGatorWallet(p: { publicClient: PublicClient; chainId: number; owner: GatorOwner }): Promise<GatorWallet> {
  const profileSync: string[] = []
  let server: Server
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
  const { publicClient, owner } = p
  async function walletCalls(request: { method: string; params?: unknown }): Promise<unknown> {
    const { method, params } = request
    if (method === 'eth_chainId') return toHex(p.chainId)
    if (method === 'eth_accounts' || method === 'eth_requestAccounts') return [owner.address]
    if (method === 'wallet_getAccountUpgradeStatus') {
      // Read from the chain as MetaMask reads it: an EIP-7702 account's code is 0xef0100 followed by its delegate.
      const { account } = params as { account: Address }
      const code = (await publicClient.getCode({ address: account })) ?? '0x'
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
    if (method.startsWith('eth_')) return publicClient.request({ method, params } as never)
    return undefined
  }

  const port = await startServer()
  const snap = await installSnap(`local:http://127.0.0.1:${port}` as never, { executionService: executionServiceFor(port) as never })
  // A call this answers with undefined goes on to the simulator; the mock's type allows undefined only when synchronous.
  snap.mockJsonRpc(walletCalls as never)
  const dialogs: { shown: unknown; granted: unknown }[] = []
  return {
    profileSync,
    dialogs,
    async grant(requests, o = {}) {
      const response = snap.request({
        origin: KERNEL,
        method: 'permissionsProvider_grantPermissions',
        params: { permissionsRequest: requests, siteOrigin: o.siteOrigin ?? 'https://bardo.local' } as never,
      })
      const count = Array.isArray(requests) ? requests.length : 0
      dialogs.length = 0
      for (let i = 0; i < count; i++) {
        let ui = await settled((await response.getInterface()) as SnapHandlerInterface)
        const shown = ui.content
        if (i === 0 && o.runwayAmount !== undefined) {
          await ui.typeInField('erc20-token-periodic-period-amount', o.runwayAmount)
          ui = await settled(await ui.waitForUpdate())
        }
        dialogs.push({ shown, granted: ui.content })
        await ui.clickElement('grant-button')
      }
      const { response: answer } = await response
      if ('error' in answer) throw new Error(`the permissions Snap refused: ${JSON.stringify(answer.error)}`)
      return (answer as { result: unknown }).result
    },
    async close() {
      await snap.close()
      server.close()
    },
  }
}

/** Finds a named element in a Snap interface's content. */
export function element(node: unknown, name: string): { type: string; props: Record<string, unknown> } | undefined {
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
export async function settled(ui: SnapHandlerInterface): Promise<SnapHandlerInterface> {
  let current = ui
  while (!element(current.content, 'grant-button') || JSON.stringify(current.content).includes('"Skeleton"')) {
    current = await current.waitForUpdate()
  }
  return current
}
