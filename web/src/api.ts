// Reads and owner actions through the dashboard's own origin: /api/* reaches the Bardo API (with the read
// key the local server adds, or the one a deployed page's owner entered: readKey.ts), /graphql the indexer. The API is read with
// hono/client's hc, typed from the API app itself (a type-only import: nothing of the server is bundled).
import { hc, type ClientResponse } from 'hono/client'
import { readKeyHeaders } from './readKey.ts'
import type { SuccessStatusCode } from 'hono/utils/http-status'
import type { AppType } from '../../functions/api/app.ts'
import type { TypedData } from './wallet.ts'

export type Caveat = { type: string; enforcer: string; words: string }
export type Grant = { delegator: string; delegate: string; caveats: Caveat[] }
export type FleetGolem = {
  id: string
  owner: string
  status: string
  phase: string
  key: string | null
  bornAt: number | null
  runwayEndsAt: number | null
  runway: { token: string; periodAmount: string; periodSeconds: number; expiresAt: number; delegationHash: string } | null
  /** The owner's renewals waiting behind the runway grant, each starting where the one before it stops paying. */
  renewals: { delegationHash: string; periodStart: number; expiresAt: number }[]
  /** The owner's narrower grant, waiting for the owner's transaction that disables the grants it supersedes. */
  adjustment: { delegationHash: string; periodAmount: string; periodStart: number; expiresAt: number } | null
  /** `permissions`: granted through the wallet's Advanced Permissions (revoked and changed in the wallet). */
  shape: 'delegations' | 'permissions'
  /** The owner's grant (the root). */
  grant: Grant | null
  /** An ERC-7715 Golem's Session Account re-delegation to its key. */
  redelegation: Grant | null
  /** The Replicants this Golem spawned: each one's record (null for one signed by hand), its status and phase. */
  replicants: (Grant & { hash: string; golemId: string | null; status: string | null; phase: string | null })[]
  /** A Replicant's parent Golem, or null. */
  parent: string | null
  /** The owner's native-token gas grant to the key (wei per period). */
  gas: (Grant & { periodAmount: string; periodSeconds: number; delegationHash: string; availableInPeriod: string | null }) | null
  /** The action grants in force (swap, approve, ...), each with its caveats in words. */
  actionGrants: (Grant & { hash: string; label: string; leftTodayUsd6: string | null; resetsAt: number | null })[]
  /** Once dead: why (the kind of death and, for a grant's end, whether the owner revoked it), and what the death protocol sent home to the owner, per asset. */
  death: {
    kind: string
    cause: 'OwnerRevocation' | 'NaturalExpiry' | null
    returned: { asset: string; status: string; amount: string | null; txHash: string | null }[]
  } | null
}
/** A token the page names: its symbol and decimals, by lowercase address. */
export type TokenInfo = { symbol: string; decimals: number }
/** What the API says of the chain (GET /api/v1/dashboard/config). */
export type ChainConfig = Omit<Config, 'owner' | 'apiUrl' | 'snapId' | 'readKey'>

export type Config = {
  owner: string | null
  chainId: number
  network: `${string}:${string}`
  usdc: `0x${string}`
  indexer: boolean
  /** The API's own origin, for the Snap (the page itself reads through its server's proxy). */
  apiUrl: string
  /** The Bardo Snap the page pairs: `local:http://localhost:8080` while `mm-snap serve` runs it. */
  snapId: string
  /** The tokens the page names in their units: the deployment's known assets. */
  tokens: Record<string, TokenInfo>
  /** Who adds the read key to the page's API reads: the page's server, or the owner who enters it here. */
  readKey: 'server' | 'owner'
}
export class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The API's error code and the field it names, when it answered with its error body. */
    readonly code?: string,
    readonly field?: string,
  ) {
    super(message)
  }
}

/** The body of a 2xx answer; any other answer throws a RequestError with the API's code and the field it names. */
async function bodyOf<T>(res: Response, path: string): Promise<T> {
  const body = (await res.json().catch(() => ({}))) as T & { code?: string; message?: string; details?: { field?: unknown } }
  if (!res.ok) {
    const field = typeof body.details?.field === 'string' ? body.details.field : undefined
    throw new RequestError(res.status, `${path}: ${res.status} ${body.code ?? ''} ${body.message ?? ''}`.trim(), body.code, field)
  }
  return body
}

export async function getJson<T>(path: string, init?: RequestInit): Promise<T> {
  // The API's reads carry the owner's read key where the owner entered one (a deployed page).
  const api = path.startsWith('/api/') || path.startsWith('/council/')
  const headers = api ? { ...readKeyHeaders(), ...(init?.headers as Record<string, string> | undefined) } : init?.headers
  return bodyOf<T>(await fetch(path, { ...init, ...(headers ? { headers } : {}) }), path)
}

export const postJson = <T>(path: string, body: unknown = {}) =>
  getJson<T>(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

/** One call the Golem made through its actions or approvals delegation, as the indexer decoded it (golem_action). */
export type Action = {
  kind: 'swap' | 'deposit' | 'withdraw' | 'redeem' | 'approve' | 'bridge' | 'provideLiquidity' | 'removeLiquidity' | 'collect' | 'other'
  target: string
  counterparty: string | null
  tokens: string[]
  amounts: string[]
  usd6: string | null
  caveats: { enforcer: string; name: string | null }[]
  timestamp: string
  txHash: string
}

/** The API, through this origin. */
export const api = hc<AppType>('/', { headers: readKeyHeaders })

/** What a 2xx answer of an hc call carries. */
type Success<R> = R extends ClientResponse<infer T, infer S, infer _F> ? (S extends SuccessStatusCode ? T : never) : never

/** An hc call's 2xx body; any other answer throws a RequestError as getJson does. */
export async function answer<R extends ClientResponse<unknown, number, string>>(call: Promise<R>): Promise<Success<R>> {
  const res = await call
  return bodyOf<Success<R>>(res as Response, res.url ? new URL(res.url).pathname : 'api')
}

const golem = api.api.v1.golems[':id']
type Read<F extends (...args: never[]) => Promise<ClientResponse<unknown, number, string>>> = Success<Awaited<ReturnType<F>>>

type Health = Read<(typeof golem)['permission-health']['$get']>
type Phases = Read<typeof golem.phases.$get>
type Spend = Read<typeof golem.spend.$get>
export type Redemption = Read<typeof golem.redemptions.$get>['redemptions'][number]
type Payment = Read<typeof golem.payments.$get>['payments'][number]
/** One custody event (GET /api/v1/golems/:id/events): what the tick, the API and the owner's acts recorded. */
export type CustodyEvent = Read<typeof golem.events.$get>['events'][number]
/** What the Golem's life costs (GET /api/v1/golems/:id/metabolism); amounts are decimal strings. */
type Metabolism = Read<typeof golem.metabolism.$get>

export type GolemView = {
  health: Health
  phases: Phases | null
  spend: Spend | null
  redemptions: Redemption[]
  payments: Payment[]
  /** The newest custody events, newest first. */
  events: CustodyEvent[]
  actions: Action[]
  /** Null where the deployment prices no runtime (501) or the read failed over. */
  metabolism: Metabolism | null
}

async function graphql<T>(query: string, variables: Record<string, unknown>): Promise<T> {
  const body = await postJson<{ data?: T; errors?: { message: string }[] }>('/graphql', { query, variables })
  if (body.data === undefined || body.errors !== undefined)
    throw new RequestError(502, `/graphql: ${body.errors?.[0]?.message ?? 'no data'}`)
  return body.data
}

/** How many of the newest actions one poll reads. */
export const ACTIONS_READ = 50

// A key's Golem is named in the indexer by its first key, which never changes, so it is asked for once per key.
const firstKeys = new Map<string, string>()

/**
 * The Golem's actions of the last 7 days from the indexer's GraphQL (the API has no actions route), by
 * its first key so a rotation keeps the history; empty when the indexer is not there or not caught up.
 */
export async function loadActions(key: string, since: number): Promise<Action[]> {
  const address = key.toLowerCase()
  let firstKey = firstKeys.get(address)
  if (firstKey === undefined) {
    const found = await graphql<{ golem: { firstKey: string } | null }>('query($a: String!) { golem(address: $a) { firstKey } }', {
      a: address,
    })
    firstKey = found.golem?.firstKey ?? address
    if (found.golem !== null) firstKeys.set(address, firstKey)
  }
  const data = await graphql<{ golemActions: { items: Action[] } }>(
    `query($key: String!, $since: BigInt!, $limit: Int!) {
      golemActions(where: { firstKey: $key, timestamp_gte: $since }, orderBy: "timestamp", orderDirection: "desc", limit: $limit) {
        items { kind target counterparty tokens amounts usd6 caveats timestamp txHash }
      }
    }`,
    { key: firstKey, since: String(since), limit: ACTIONS_READ },
  )
  return data.golemActions.items
}

/** One poll of a Golem's panels; history from the indexer may be briefly unavailable (503) and shows as empty. */
export async function loadGolem(id: string, key?: string | null, now?: number): Promise<GolemView> {
  // No credential from the page: the dashboard's server adds the read key.
  const golemRead = { param: { id: encodeURIComponent(id) }, header: {} }
  const optional = <T>(p: Promise<T>) =>
    p.catch((e: unknown) => (e instanceof RequestError && (e.status === 503 || e.status === 501) ? null : Promise.reject(e)))
  const actions =
    key && now !== undefined ? loadActions(key, now - 7 * 86_400).catch(() => [] as Action[]) : Promise.resolve([] as Action[])
  const [health, phases, spend, redemptions, payments, metabolism, events] = await Promise.all([
    answer(golem['permission-health'].$get(golemRead)),
    optional(answer(golem.phases.$get({ ...golemRead, query: {} }))),
    optional(answer(golem.spend.$get({ ...golemRead, query: {} }))),
    optional(answer(golem.redemptions.$get({ ...golemRead, query: {} }))),
    answer(golem.payments.$get({ ...golemRead, query: {} })),
    optional(answer(golem.metabolism.$get(golemRead))),
    answer(golem.events.$get({ ...golemRead, query: { limit: '20' } })),
  ])
  return {
    health,
    phases,
    spend,
    redemptions: redemptions?.redemptions ?? [],
    payments: payments.payments,
    events: events.events,
    actions: await actions,
    metabolism,
  }
}

export type Draft<T> = T & { typedData: TypedData }
