// Reads and owner actions through the dashboard's own origin: /api/* reaches the Bardo API (the local
// server adds the read key), /local/* the local stack's fleet, drafts and relay.
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
  grant: Grant | null
  replicants: (Grant & { hash: string })[]
}
export type Config = { owner: string | null; chainId: number; network: `${string}:${string}`; usdc: `0x${string}`; indexer: boolean }
export type Health = {
  health: 'healthy' | 'low' | 'critical' | 'revoked' | 'dead'
  reason: string
  remaining_today: string
  days_remaining: number
  last_redemption_at: number
  total_remaining: string
  grant_ends_at: number
  runway_ends_at: number
  renewal: { reason: string; seconds_left: number; days_left: number } | null
}
export type Phases = {
  current: { registered: boolean; phase: string; survivalScore: number }
  transitions: { from: string; to: string; survivalScore: number | null; kind: string; timestamp: number; transactionHash: string }[]
}
export type Spend = { current: { spent: string; limit: string; remaining: string; periodStart: number; periodSeconds: number } }
export type Redemption = {
  transfers: { token: string | null; amount: string }[]
  usd6: string | null
  transactionHash: string
  timestamp: number
}
export type Payment = {
  kind: 'extend' | 'feed'
  payer: string
  amount: string
  seconds: string
  transactionHash: string | null
  creditedAt: number
}

export class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

export async function getJson<T>(path: string, init?: RequestInit): Promise<T> {
  const res = await fetch(path, init)
  const body = (await res.json().catch(() => ({}))) as T & { code?: string; message?: string }
  if (!res.ok) throw new RequestError(res.status, `${path}: ${res.status} ${body.code ?? ''} ${body.message ?? ''}`.trim())
  return body
}

export const postJson = <T>(path: string, body: unknown = {}) =>
  getJson<T>(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

export type GolemView = { health: Health; phases: Phases | null; spend: Spend | null; redemptions: Redemption[]; payments: Payment[] }

/** One poll of a Golem's panels; history from the indexer may be briefly unavailable (503) and shows as empty. */
export async function loadGolem(id: string): Promise<GolemView> {
  const base = `/api/v1/golems/${encodeURIComponent(id)}`
  const optional = <T>(p: Promise<T>) => p.catch((e: unknown) => (e instanceof RequestError && e.status === 503 ? null : Promise.reject(e)))
  const [health, phases, spend, redemptions, payments] = await Promise.all([
    getJson<Health>(`${base}/permission-health`),
    optional(getJson<Phases>(`${base}/phases`)),
    optional(getJson<Spend>(`${base}/spend`)),
    optional(getJson<{ redemptions: Redemption[] }>(`${base}/redemptions`)),
    getJson<{ payments: Payment[] }>(`${base}/payments`),
  ])
  return { health, phases, spend, redemptions: redemptions?.redemptions ?? [], payments: payments.payments }
}

export type Draft<T> = T & { typedData: TypedData }
