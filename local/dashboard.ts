// The owner's dashboard on the local stack: the page (web/, bundled with esbuild at start), a same-origin
// proxy to the API and the indexer that adds the read key server-side (the key never reaches the page),
// and the local-only helpers a wallet needs on a chain without a bundler: the fleet from the store,
// drafts for the owner to sign (a revocation user operation, a superseding grant), a relay that submits
// the owner-signed user operation to the EntryPoint from a funded devnet account, and the rotation of a
// key this stack holds, on the owner's signed request.
import { Hono } from 'hono'
import { build, stop as stopEsbuild } from 'esbuild'
import { join } from 'node:path'
import { createWalletClient, http, isAddress, isHex, pad, toHex, type Address, type Hex } from 'viem'
import { entryPoint07Abi, toPackedUserOperation, type UserOperation } from 'viem/account-abstraction'
import { Implementation, toMetaMaskSmartAccount, type Delegation } from '@metamask/smart-accounts-kit'
import { SIGNABLE_USER_OP_TYPED_DATA } from '@metamask/smart-accounts-kit/utils'
import { decodeDelegationCaveats } from '../core/caveats/caveat.ts'
import { summarizeCaveats } from '../core/caveats/summarizeDelegation.ts'
import { parseGolemProfile, type GolemProfile } from '../core/lifecycle/profile.ts'
import { renewalWindow } from '../core/lifecycle/renewal.ts'
import { adjustmentStart, supersededGrants } from '../core/lifecycle/adjustment.ts'
import { planRevocation } from '../core/custody/revocationPlan.ts'
import { latestGrant } from '../core/lifecycle/grantInForce.ts'
import { revocationOf } from '../app/revocation.ts'
import type { Store } from '../core/store/index.ts'
import { buildGolemDelegation } from '../core/delegations/buildGolemDelegation.ts'
import { DelegationTree } from '../core/delegations/tree.ts'
import { serveApi } from '../functions/api/server.ts'
import type { StackChain } from './chain.ts'
import { devnetAccount, localChain } from './devnet.ts'
import { unsignedUserOperation } from './ownerActions.ts'
import { delegationDomainOf, delegationTypedData } from '../core/delegations/typedData.ts'
import { LocalStackError } from './errors.ts'
import { LocalRotationError, type LocalRotation } from './rotationRequest.ts'
import { RotationRequestError } from '../app/tick/rotateOnRequest.ts'

/** Anvil's test account that pays the gas for owner-signed user operations (no other part uses it). */
export const RELAYER_ACCOUNT_INDEX = 6

export type DashboardOptions = {
  chain: StackChain
  store: Store
  apiUrl: string
  indexerUrl: string | undefined
  readApiKey: string
  /** The owner whose fleet the page shows unless its URL names another (`?owner=0x...`). */
  owner?: Address
  port?: number
  /** Rotation of the session keys this stack holds in memory, on the owner's signed request. */
  rotation?: Pick<LocalRotation, 'rotate'>
}

export type RunningDashboard = { url: string; stop(): Promise<void> }

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

const json = (v: unknown) => JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x))) as unknown

/** Delegations as the page sees them: the struct with decimal salts and each caveat in words. */
function describeGrant(delegation: Delegation, chain: StackChain, now: bigint) {
  const decoded = decodeDelegationCaveats(delegation, chain.deployment, chain.deployment.environment)
  const tokens = { [chain.usdc.toLowerCase()]: { symbol: 'USDC', decimals: 6 } }
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
  }
}

/** Hex fields of a user operation as JSON carries them; the relay parses them back. */
type UserOperationJson = Record<
  | 'sender'
  | 'nonce'
  | 'callData'
  | 'callGasLimit'
  | 'verificationGasLimit'
  | 'preVerificationGas'
  | 'maxFeePerGas'
  | 'maxPriorityFeePerGas',
  string
>

function parseUserOperation(raw: unknown): UserOperation<'0.7'> {
  const o = (raw ?? {}) as Partial<UserOperationJson>
  const big = (name: keyof UserOperationJson) => {
    const v = o[name]
    if (typeof v !== 'string' || !/^\d+$/.test(v))
      throw new LocalStackError('DASHBOARD_REQUEST', `userOperation.${name}: must be a decimal string`)
    return BigInt(v)
  }
  if (typeof o.sender !== 'string' || !isAddress(o.sender))
    throw new LocalStackError('DASHBOARD_REQUEST', 'userOperation.sender: must be an address')
  if (typeof o.callData !== 'string' || !isHex(o.callData))
    throw new LocalStackError('DASHBOARD_REQUEST', 'userOperation.callData: must be hex')
  return {
    sender: o.sender,
    nonce: big('nonce'),
    callData: o.callData,
    callGasLimit: big('callGasLimit'),
    verificationGasLimit: big('verificationGasLimit'),
    preVerificationGas: big('preVerificationGas'),
    maxFeePerGas: big('maxFeePerGas'),
    maxPriorityFeePerGas: big('maxPriorityFeePerGas'),
    signature: '0x',
  }
}

export function dashboardApp(o: DashboardOptions & { script: string }): Hono {
  const { chain, store } = o
  const app = new Hono()
  const client = chain.publicClient
  const environment = chain.deployment.environment
  const relayer = createWalletClient({
    account: devnetAccount(RELAYER_ACCOUNT_INDEX),
    chain: localChain(chain.rpcUrl, chain.deployment.chainId),
    transport: http(chain.rpcUrl),
  })
  // One relay at a time: the relayer is one account, and anvil may hold a transaction that overtakes its predecessor.
  let relaying: Promise<unknown> = Promise.resolve()
  const chainNow = async () => (await client.getBlock({ blockTag: 'latest' })).timestamp
  const golemOf = async (id: string) => {
    const record = await store.getGolem(id)
    if (!record?.profile) throw new LocalStackError('DASHBOARD_REQUEST', `golem: no Golem '${id}' with a profile in this stack`)
    return { record, profile: parseGolemProfile(record.profile) }
  }

  /**
   * One user operation from the owner's smart account making `calls`, unsigned, with the EIP-712 typed
   * data (PackedUserOperation under the account's domain) the owner signs in the wallet.
   */
  const ownerOperation = async (owner: Address, calls: readonly { to: Address; data: Hex }[]) => {
    const account = await toMetaMaskSmartAccount({
      client: client as never,
      implementation: Implementation.Hybrid,
      address: owner,
      environment,
    })
    const userOperation = await unsignedUserOperation(client, {
      sender: owner,
      nonce: await account.getNonce(),
      callData: await account.encodeCalls(calls.map((call) => ({ to: call.to, value: 0n, data: call.data }))),
    })
    const packed = toPackedUserOperation(userOperation)
    const typedData = {
      domain: { chainId: chain.deployment.chainId, name: 'HybridDeleGator', version: '1', verifyingContract: owner },
      types: SIGNABLE_USER_OP_TYPED_DATA,
      primaryType: 'PackedUserOperation',
      message: { ...packed, entryPoint: environment.EntryPoint },
    }
    return { userOperation: json(userOperation), typedData: json(typedData) }
  }

  app.get('/', (c) => c.html(PAGE))
  app.get('/app.js', (c) => c.body(o.script, 200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' }))
  app.get('/local/config', async (c) =>
    c.json({
      owner: o.owner ?? null,
      chainId: chain.deployment.chainId,
      network: `eip155:${chain.deployment.chainId}`,
      usdc: chain.usdc,
      indexer: o.indexerUrl !== undefined,
    }),
  )
  app.get('/local/fleet', async (c) => {
    const owner = c.req.query('owner') ?? o.owner
    if (!owner || !isAddress(owner))
      return c.json({ code: 'OWNER_INVALID', message: 'owner: must be the owner smart account address' }, 400)
    const now = await chainNow()
    const golems = await store.findGolems({ owner })
    return c.json({ owner, now: Number(now), golems: golems.map((g) => fleetEntry(g, chain, now)) })
  })

  // Revocation: every grant the owner signed for the Golem (app/revocation.ts), disabled in one user
  // operation from the owner's smart account that the owner signs in the wallet (EIP-712
  // PackedUserOperation under the account's domain).
  app.post('/local/revoke-draft', async (c) => {
    const body = (await c.req.json().catch(() => ({}))) as { golems?: unknown }
    const ids = body.golems
    if (!Array.isArray(ids) || ids.length === 0 || ids.length > 50 || !ids.every((id) => typeof id === 'string' && GOLEM_ID.test(id)))
      return c.json({ code: 'VALIDATION_FAILED', message: 'golems: must be a list of 1-50 Golem ids' }, 400)
    const plans = []
    for (const id of ids as string[])
      plans.push(await revocationOf({ store, client, delegationManager: environment.DelegationManager }, id))
    const owner = plans[0]!.owner
    const other = plans.find((p) => p.owner.toLowerCase() !== owner.toLowerCase())
    if (other)
      return c.json({ code: 'VALIDATION_FAILED', message: `golems: ${other.golemId} has another owner than ${plans[0]!.golemId}` }, 400)
    const calls = plans.flatMap((p) => p.calls)
    if (calls.length === 0) return c.json({ code: 'NOTHING_TO_REVOKE', message: 'golems: every grant is disabled already' }, 409)
    return c.json({
      ...(await ownerOperation(owner, calls)),
      grants: calls.map((call) => ({ delegationHash: call.hash, kind: call.kind, label: call.label })),
    })
  })

  app.post('/local/relay', async (c) => {
    // Anvil's account 6 is a well-known key: on a real chain the owner's wallet or a bundler submits.
    if (!chain.devnet)
      return c.json({ code: 'NOT_AVAILABLE', message: 'relay: the local devnet only; submit the user operation through a bundler' }, 501)
    const body = (await c.req.json().catch(() => ({}))) as { userOperation?: unknown; signature?: unknown }
    let userOperation: UserOperation<'0.7'>
    try {
      userOperation = parseUserOperation(body.userOperation)
      if (typeof body.signature !== 'string' || !isHex(body.signature))
        throw new LocalStackError('DASHBOARD_REQUEST', 'signature: must be hex')
      userOperation = { ...userOperation, signature: body.signature }
    } catch (e) {
      return c.json({ code: 'RELAY_REFUSED', message: (e as Error).message }, 400)
    }
    const submit = async () => {
      const hash = await relayer.writeContract({
        address: environment.EntryPoint,
        abi: entryPoint07Abi,
        functionName: 'handleOps',
        args: [[toPackedUserOperation(userOperation)], relayer.account.address],
      })
      return client.waitForTransactionReceipt({ hash })
    }
    const run = relaying.then(submit, submit)
    relaying = run.catch(() => undefined)
    try {
      const receipt = await run
      // handleOps succeeds even when the inner call reverts; the EntryPoint says so in UserOperationEvent.
      const failed = receipt.logs.some(
        (l) =>
          l.address.toLowerCase() === environment.EntryPoint.toLowerCase() &&
          l.topics[0] === '0x49628fd1471006c1482da88028e9ce4dbb080b815c9b0344d39e5a8e6ec1419f' &&
          BigInt(`0x${l.data.slice(2 + 64, 2 + 128)}`) === 0n,
      )
      if (receipt.status !== 'success' || failed)
        return c.json({ code: 'USER_OPERATION_REVERTED', message: `user operation in ${receipt.transactionHash} reverted` }, 422)
      return c.json({ txHash: receipt.transactionHash })
    } catch (e) {
      return c.json({ code: 'RELAY_REFUSED', message: (e as Error).message.split('\n')[0] }, 422)
    }
  })

  // Renewal: the superseding grant (same runway, a higher salt, one more life window from the later of
  // now and the old end, on the old grant's period grid), unsigned; the owner signs it as EIP-712
  // Delegation typed data and the page posts it to the API's renewal route.
  app.post('/local/golems/:id/renewal-draft', async (c) => {
    const { record, profile } = await golemOf(c.req.param('id'))
    const now = await chainNow()
    const latest = latestGrant(profile)
    const old = latest.chain[0]!
    // One more life, in whole periods, from where the newest grant stops paying.
    const window = renewalWindow(profile, now, profile.life.runwayTotalSeconds)
    const end = window.endTime
    const tree = new DelegationTree({ environment, deployment: chain.deployment, now: () => now })
    const grant = buildGolemDelegation({
      tree,
      owner: record.owner,
      golem: profile.golemKey,
      bardo: [{ type: 'golemPhase', golem: profile.golemKey, startTime: now, endTime: end }],
      runway: {
        token: profile.runway.token,
        // Nothing wider than the grant it follows.
        periodAmount: latest.periodAmount,
        periodDuration: Number(profile.runway.periodDuration),
        // Where the newest grant stops paying: never two of the owner's runway grants in one period.
        startDate: Number(window.startDate),
      },
      salt: pad(toHex(BigInt(old.salt) + 1n), { size: 32 }) as Hex,
    })
    if (!grant.runway) throw new LocalStackError('DASHBOARD_REQUEST', 'renewal: the grant has no runway delegation')
    const delegation = grant.runway.delegation
    const typedData = delegationTypedData(delegation, delegationDomainOf(chain.deployment))
    return c.json({ delegation: json({ ...delegation, signature: '0x' }), typedData: json(typedData), expiresAt: Number(end) })
  })

  // Adjustment: the owner lowers the period amount or ends the grant earlier without revoking it. The
  // draft is the narrower grant (a higher salt, from the next boundary of the runway's grid) and the one
  // user operation that disables every grant it supersedes; the owner signs both in the wallet, the page
  // posts the grant to the API's adjustment route and then the operation to the relay.
  app.post('/local/golems/:id/adjustment-draft', async (c) => {
    const { record, profile } = await golemOf(c.req.param('id'))
    const body = (await c.req.json().catch(() => ({}))) as { periodAmount?: unknown; endsAt?: unknown }
    const refuse = (field: string, rule: string) =>
      c.json({ code: 'VALIDATION_FAILED', message: `${field}: ${rule}`, details: { field, rule } }, 400)
    if (profile.runway.chain.length !== 1) return refuse('golem', "an ERC-7715 grant is adjusted in the owner's wallet")
    const now = await chainNow()
    const start = adjustmentStart(profile, now)
    const end = latestGrant(profile).expiresAt
    let periodAmount = profile.runway.periodAmount
    if (body.periodAmount !== undefined) {
      if (typeof body.periodAmount !== 'string' || !/^[0-9]{1,30}$/.test(body.periodAmount))
        return refuse('periodAmount', "must be a whole number of the runway token's base units, as a decimal string")
      periodAmount = BigInt(body.periodAmount)
      if (periodAmount <= 0n || periodAmount > profile.runway.periodAmount)
        return refuse('periodAmount', `must be above 0 and at most the current period amount ${profile.runway.periodAmount}`)
    }
    let endsAt = end
    if (body.endsAt !== undefined) {
      if (typeof body.endsAt !== 'number' || !Number.isSafeInteger(body.endsAt)) return refuse('endsAt', 'must be a unix time in seconds')
      endsAt = BigInt(body.endsAt)
      if (endsAt < start || endsAt > end)
        return refuse('endsAt', `must be between ${start} (the adjusted grant's first period) and the current end ${end}`)
    }
    if (periodAmount === profile.runway.periodAmount && endsAt === end)
      return refuse('periodAmount', 'must lower the period amount or the end (endsAt): an adjustment narrows the grant')
    const newest = profile.adjustment ?? latestGrant(profile)
    const tree = new DelegationTree({ environment, deployment: chain.deployment, now: () => now })
    const grant = buildGolemDelegation({
      tree,
      owner: record.owner,
      golem: profile.golemKey,
      bardo: [{ type: 'golemPhase', golem: profile.golemKey, startTime: now, endTime: endsAt }],
      runway: {
        token: profile.runway.token,
        periodAmount,
        periodDuration: Number(profile.runway.periodDuration),
        startDate: Number(start),
      },
      salt: pad(toHex(BigInt(newest.chain[0]!.salt) + 1n), { size: 32 }) as Hex,
    })
    if (!grant.runway) throw new LocalStackError('DASHBOARD_REQUEST', 'adjustment: the grant has no runway delegation')
    const delegation = grant.runway.delegation
    const superseded = planRevocation({
      owner: record.owner,
      delegationManager: environment.DelegationManager,
      grants: supersededGrants(profile),
      disabled: new Set(),
    })
    return c.json({
      delegation: json({ ...delegation, signature: '0x' }),
      typedData: json(delegationTypedData(delegation, delegationDomainOf(chain.deployment))),
      disable: { ...(await ownerOperation(record.owner, superseded.calls)), grants: superseded.calls.map((call) => call.hash) },
      periodAmount: periodAmount.toString(),
      periodStart: Number(start),
      expiresAt: Number(endsAt),
    })
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
  const running = await serveApi(dashboardApp({ ...o, script }), o.port ?? 0)
  return { url: running.url, stop: running.close }
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
