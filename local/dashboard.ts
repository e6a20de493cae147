// The owner's dashboard on the local stack: the page (web/, bundled with esbuild at start), a same-origin
// proxy to the API and the indexer that adds the read key server-side (the key never reaches the page),
// the page's configuration and the fleet from the store, and the rotation of a key this stack holds, on
// the owner's signed request. The owner's acts are drafted by the API and submitted from the owner's own
// wallet account: nothing here signs or relays for the owner.
import { Hono } from 'hono'
import { build, stop as stopEsbuild } from 'esbuild'
import { join } from 'node:path'
import { isAddress, isHex, type Address } from 'viem'
import type { Delegation } from '@metamask/smart-accounts-kit'
import { decodeDelegationCaveats } from '../core/caveats/caveat.ts'
import { summarizeCaveats } from '../core/caveats/summarizeDelegation.ts'
import { parseGolemProfile, type GolemProfile } from '../core/lifecycle/profile.ts'
import { PeriodTransferEnforcerAbi } from '../core/delegations/frameworkAbi.ts'
import { DailySpendLimitEnforcerAbi } from '../contracts/artifacts/index.ts'
import type { Store } from '../core/store/index.ts'
import { loadActionGrant } from '../app/actions/actionGrantStore.ts'
import { serveApi } from '../functions/api/server.ts'
import type { StackChain } from './chain.ts'
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
  /** Rotation of the session keys this stack holds in memory, on the owner's signed request. */
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

/** The tokens the page names, by lowercase address: the local assets with their symbols and decimals. */
export function knownTokens(chain: StackChain): Record<string, { symbol: string; decimals: number }> {
  const assets = chain.deployment.assets
  return {
    [chain.usdc.toLowerCase()]: { symbol: 'USDC', decimals: 6 },
    ...(assets?.weth ? { [assets.weth.toLowerCase()]: { symbol: 'WETH', decimals: 18 } } : {}),
  }
}

/** Delegations as the page sees them: the struct with decimal salts and each caveat in words. */
function describeGrant(delegation: Delegation, chain: StackChain, now: bigint) {
  const decoded = decodeDelegationCaveats(delegation, chain.deployment, chain.deployment.environment)
  const tokens = knownTokens(chain)
  return {
    delegator: delegation.delegator,
    delegate: delegation.delegate,
    caveats: decoded.map((c, i) => ({
      type: c.type,
      enforcer: delegation.caveats[i]!.enforcer,
      words: summarizeCaveats([c], { tokens }, now),
    })),
  }
}

function fleetEntry(
  record: { golemId: string; owner: Address; status: string; phase: string; profile: string | null },
  stackChain: StackChain,
  now: bigint,
) {
  const profile: GolemProfile | undefined = record.profile ? parseGolemProfile(record.profile) : undefined
  // The owner's grant is the chain's root; an ERC-7715 Golem's leaf is its Session Account's re-delegation.
  const chain = profile?.runway.chain ?? []
  const grant = chain[chain.length - 1]
  const redelegation = chain.length > 1 ? chain[0] : undefined
  return {
    id: record.golemId,
    owner: record.owner,
    status: record.status,
    phase: record.phase,
    key: profile?.golemKey ?? null,
    bornAt: profile ? Number(profile.life.bornAt) : null,
    runwayEndsAt: profile ? Number(profile.life.runwayEndsAt) : null,
    runway: profile
      ? {
          token: profile.runway.token,
          periodAmount: profile.runway.periodAmount.toString(),
          periodSeconds: Number(profile.runway.periodDuration),
          expiresAt: Number(profile.runway.expiresAt),
          delegationHash: profile.runway.periodDelegationHash,
        }
      : null,
    renewals: (profile?.renewals ?? []).map((r) => ({
      delegationHash: r.periodDelegationHash,
      periodStart: Number(r.periodStart),
      expiresAt: Number(r.expiresAt),
    })),
    /** The owner's narrower grant, signed and waiting for the owner's transaction that disables the grants it supersedes. */
    adjustment: profile?.adjustment
      ? {
          delegationHash: profile.adjustment.periodDelegationHash,
          periodAmount: profile.adjustment.periodAmount.toString(),
          periodStart: Number(profile.adjustment.periodStart),
          expiresAt: Number(profile.adjustment.expiresAt),
        }
      : null,
    /** `permissions`: granted through the wallet's Advanced Permissions, revoked and changed in the wallet. */
    shape: redelegation ? 'permissions' : 'delegations',
    grant: grant ? describeGrant(grant, stackChain, now) : null,
    redelegation: redelegation ? describeGrant(redelegation, stackChain, now) : null,
    replicants: (profile?.replicants ?? []).map((r) => ({ hash: r.hash, ...describeGrant(r.delegation, stackChain, now) })),
    /** The owner's native-token gas grant to the key, in words. */
    gas: profile?.gas
      ? {
          periodAmount: profile.gas.periodAmount.toString(),
          periodSeconds: Number(profile.gas.periodDuration),
          delegationHash: profile.gas.periodDelegationHash,
          ...describeGrant(profile.gas.chain[0]!, stackChain, now),
        }
      : null,
  }
}

/** The action grants in force for a Golem, each with its caveats in words and, under a daily USD limit, what is left of it today. */
async function actionGrantsOf(store: Store, golemId: string, chain: StackChain, now: bigint) {
  const grant = await loadActionGrant(store, golemId)
  const limiter = chain.deployment.enforcers.dailySpendLimit.toLowerCase()
  return Promise.all(
    (grant?.delegations ?? []).map(async (e) => {
      const delegation = e.chain[0]!
      const limit = delegation.caveats.find((c) => c.enforcer.toLowerCase() === limiter)
      const left = limit
        ? await chain.publicClient.readContract({
            address: chain.deployment.enforcers.dailySpendLimit,
            abi: DailySpendLimitEnforcerAbi,
            functionName: 'remainingToday',
            args: [chain.deployment.environment.DelegationManager, e.hash, limit.terms],
          })
        : null
      return {
        hash: e.hash,
        label: e.label,
        ...describeGrant(delegation, chain, now),
        leftTodayUsd6: left ? left[0].toString() : null,
        resetsAt: left ? Number(left[1]) : null,
      }
    }),
  )
}

/** What the gas grant still allows in its current period (the enforcer's own count), or null without one. */
async function gasLeftOf(chain: StackChain, profile: GolemProfile | undefined): Promise<string | null> {
  if (!profile?.gas) return null
  const environment = chain.deployment.environment
  const [available] = await chain.publicClient.readContract({
    address: environment.caveatEnforcers.NativeTokenPeriodTransferEnforcer as Address,
    abi: PeriodTransferEnforcerAbi,
    functionName: 'getAvailableAmount',
    args: [profile.gas.periodDelegationHash, environment.DelegationManager, profile.gas.periodTerms],
  })
  return available.toString()
}

/** Where a dead Golem's money went: what the death protocol sent home, per asset, and why it died. */
async function deathOf(store: Store, golemId: string) {
  const death = await store.getDeathSettlement(golemId)
  if (!death) return null
  const settlement = death.settlement as { fundsReturned?: { asset: string; status: string; amount?: string; txHash?: string }[] }
  return {
    kind: death.kind,
    returned: (settlement.fundsReturned ?? []).map((f) => ({
      asset: f.asset,
      status: f.status,
      amount: f.amount ?? null,
      txHash: f.txHash ?? null,
    })),
  }
}

export function dashboardApp(o: DashboardOptions & { script: string }): Hono {
  const { chain, store } = o
  const app = new Hono()
  const client = chain.publicClient
  const chainNow = async () => (await client.getBlock({ blockTag: 'latest' })).timestamp
  app.get('/', (c) => c.html(PAGE))
  app.get('/app.js', (c) => c.body(o.script, 200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' }))
  app.get('/local/config', async (c) =>
    c.json({
      owner: o.owner ?? null,
      chainId: chain.deployment.chainId,
      network: `eip155:${chain.deployment.chainId}`,
      usdc: chain.usdc,
      indexer: o.indexerUrl !== undefined,
      apiUrl: o.apiUrl,
      tokens: knownTokens(chain),
      snapId: o.snapId ?? LOCAL_SNAP_ID,
    }),
  )
  app.get('/local/fleet', async (c) => {
    const owner = c.req.query('owner') ?? o.owner
    if (!owner || !isAddress(owner))
      return c.json({ code: 'OWNER_INVALID', message: 'owner: must be the owner smart account address' }, 400)
    const now = await chainNow()
    const golems = await store.findGolems({ owner })
    const entries = await Promise.all(
      golems.map(async (g) => {
        const entry = fleetEntry(g, chain, now)
        const profile = g.profile ? parseGolemProfile(g.profile) : undefined
        const gasLeft = g.status === 'dead' ? null : await gasLeftOf(chain, profile)
        return {
          ...entry,
          gas: entry.gas ? { ...entry.gas, availableInPeriod: gasLeft } : null,
          actionGrants: await actionGrantsOf(store, g.golemId, chain, now),
          death: g.status === 'dead' ? await deathOf(store, g.golemId) : null,
        }
      }),
    )
    return c.json({ owner, now: Number(now), golems: entries })
  })

  // Rotation of a key held in this stack's memory (`bardo rotate` against `npm start`): the owner's
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
    if (method !== 'GET' && method !== 'HEAD') init.body = await c.req.raw.arrayBuffer()
    const res = await fetch(`${target}${url.pathname}${url.search}`, init)
    const out = new Headers(res.headers)
    out.delete('content-encoding')
    out.delete('content-length')
    return new Response(await res.arrayBuffer(), { status: res.status, headers: out })
  }
  app.all('/api/*', proxy(o.apiUrl, true))
  // The council's list is the owner's read too. An API without a council answers 404; the page is told
  // `served: false` instead, so a stack without a council logs no failed request in the browser.
  app.get('/council/v1/proposals', async (c) => {
    const res = await proxy(o.apiUrl, true)(c)
    return res.status === 404 ? c.json({ served: false, proposals: [], next: null }) : res
  })
  if (o.indexerUrl) app.all('/graphql', proxy(o.indexerUrl, false))
  app.onError((e, c) => c.json({ code: 'DASHBOARD_ERROR', message: e.message.split('\n')[0] }, 500))
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

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Bardo: the owner's dashboard</title>
<link rel="icon" href="data:,">
</head>
<body>
<div id="app"></div>
<script type="module" src="/app.js"></script>
</body>
</html>
`
