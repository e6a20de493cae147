// Small clients for the indexer's three read APIs, and a poller: tests wait for the rows they expect
// instead of trusting /ready (which only says the backfill finished, not that a new block is indexed).
import { BardoError } from '../core/errors.ts'

export async function pollUntil<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000)
  let lastError: unknown
  while (Date.now() < deadline) {
    try {
      const value = await probe()
      if (value !== undefined) return value
    } catch (error) {
      lastError = error // the server may still be starting
    }
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 200))
  }
  throw new BardoError('POLL_TIMEOUT', `${what}: not seen within ${options.timeoutMs ?? 60_000} ms`, {
    details: lastError === undefined ? {} : { lastError: String(lastError) },
  })
}

/**
 * Waits until the indexer has committed `blockNumber` (its checkpoint in /status). Ponder writes the
 * checkpoint last in each block's transaction, so every row of that block is visible once it moves:
 * with PGlite the API shares the indexer's single connection and can otherwise read a block half-written.
 */
export async function waitForIndexed(baseUrl: string, blockNumber: bigint | number, timeoutMs = 60_000): Promise<void> {
  await pollUntil(
    `indexer at block ${blockNumber}`,
    async () => {
      const status = (await (await fetch(`${baseUrl}/status`)).json()) as Record<string, { block: { number: number } }>
      return Object.values(status).some((chain) => chain.block.number >= Number(blockNumber)) ? true : undefined
    },
    { timeoutMs },
  )
}

export async function getJson<T = any>(url: string): Promise<{ status: number; body: T }> {
  const res = await fetch(url)
  return { status: res.status, body: (await res.json()) as T }
}

/** POST /graphql; throws on GraphQL errors. */
export async function graphqlQuery<T = any>(baseUrl: string, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const res = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  })
  const body = (await res.json()) as { data?: T; errors?: { message: string }[] }
  if (body.errors !== undefined && body.errors.length > 0) throw new Error(`graphql: ${body.errors.map((e) => e.message).join('; ')}`)
  return body.data as T
}

/**
 * SQL over HTTP, the wire format @ponder/client uses: GET /sql/db?sql=<superjson of {sql, params}>.
 * Only read-only statements are accepted by the server.
 */
export async function sqlQuery<Row = Record<string, unknown>>(baseUrl: string, sql: string, params: unknown[] = []): Promise<Row[]> {
  const query = encodeURIComponent(JSON.stringify({ json: { sql, params, typings: [] } }))
  const res = await fetch(`${baseUrl}/sql/db?sql=${query}`)
  if (!res.ok) throw new Error(`sql over http: ${res.status} ${await res.text()}`)
  return ((await res.json()) as { rows: Row[] }).rows
}
