// /v1 routes for dashboards and the Bardo HTTP API. Read-only; addresses and hashes are answered
// lower-case; bigint columns are decimal strings; lists are pages { items, nextCursor }.
import { db, publicClients } from 'ponder:api'
import {
  delegation,
  delegationStatusChange,
  dreamCycle,
  golem,
  golemAction,
  golemDeath,
  golemSpend,
  phaseTransition,
  redemption,
  spendEvent,
} from 'ponder:schema'
import { Hono } from 'hono'
import { and, asc, count, desc, eq, gt, gte, inArray, lt, lte, max, min, or, sum } from 'ponder'
import type { Address, PublicClient } from 'viem'
import { encodeCursor } from '../../lib/cursor.ts'
import { grantTimeline } from '../../lib/grants.ts'
import { groupRedemptions } from '../../lib/redemptions.ts'
import { remainingReads } from '../../lib/remaining.ts'
import { settings } from '../../ponder.config.ts'
import { dayLabel, utcDay } from '../../lib/spend.ts'
import {
  BadParam,
  addressParam,
  blockParam,
  cursorParam,
  dayParam,
  errorResponse,
  hashParam,
  json,
  limitParam,
  optionalAddress,
} from './params.ts'

export const routes = new Hono()

routes.onError((error, c) => errorResponse(c, error))

/**
 * The Golem a key belongs to: its first key (stable across rotations) and every key of its life, newest
 * first, so a dashboard that asks with any key, old or current, gets the whole life across rotations.
 */
async function identity(address: Address): Promise<{ firstKey: Address; keys: Address[] }> {
  const row = (await db.select({ firstKey: golem.firstKey }).from(golem).where(eq(golem.address, address)))[0]
  const firstKey = (row?.firstKey ?? address) as Address
  const rows = await db
    .select({ address: golem.address, rotatedFrom: golem.rotatedFrom, rotatedTo: golem.rotatedTo })
    .from(golem)
    .where(eq(golem.firstKey, firstKey))
  return { firstKey, keys: rows.length === 0 ? [address] : newestFirst(rows) }
}

/** Orders a Golem's keys from the current one back along its rotations. */
function newestFirst(rows: { address: string; rotatedFrom: string | null; rotatedTo: string | null }[]): Address[] {
  const byAddress = new Map(rows.map((r) => [r.address, r]))
  const keys: Address[] = []
  let next = rows.find((r) => r.rotatedTo === null || !byAddress.has(r.rotatedTo)) ?? rows[0]
  while (next !== undefined && !keys.includes(next.address as Address)) {
    keys.push(next.address as Address)
    next = next.rotatedFrom === null ? undefined : byAddress.get(next.rotatedFrom)
  }
  // Keys off the chain (never expected) still belong to the Golem.
  for (const r of rows) if (!keys.includes(r.address as Address)) keys.push(r.address as Address)
  return keys
}

function page<T>(rows: T[], limit: number, position: (row: T) => { blockNumber: bigint; logIndex: number }) {
  const items = rows.slice(0, limit)
  const last = items[items.length - 1]
  return { items, nextCursor: rows.length > limit && last !== undefined ? encodeCursor(position(last)) : null }
}

routes.get('/golems', async (c) => {
  const limit = limitParam(c.req.query('limit'))
  const filters: ReturnType<typeof eq>[] = []
  const phase = c.req.query('phase')
  if (phase !== undefined) {
    if (!/^[0-4]$/.test(phase)) throw new BadParam('phase', 'must be 0 to 4')
    filters.push(eq(golem.phase, Number(phase)))
  }
  const registered = c.req.query('registered')
  if (registered !== undefined) filters.push(eq(golem.registered, registered === 'true'))
  const rows = await db
    .select()
    .from(golem)
    .where(and(...filters))
    .orderBy(asc(golem.address))
    .limit(limit)
  return json(c, { items: rows })
})

routes.get('/golems/:address', async (c) => {
  const address = addressParam(c.req.param('address'), 'address')
  const row = (await db.select().from(golem).where(eq(golem.address, address)))[0]
  if (row === undefined) return c.json({ code: 'GOLEM_NOT_FOUND', message: `address: no Golem ${address} indexed` }, 404)
  const { firstKey, keys } = await identity(address)
  const current = keys[0] === address ? row : (await db.select().from(golem).where(eq(golem.address, keys[0]!)))[0]
  const death = (await db.select().from(golemDeath).where(eq(golemDeath.firstKey, firstKey)))[0] ?? null
  return json(c, { golem: row, firstKey, lineage: keys, current, death })
})

// Phase history of the whole Golem across its key rotations (unless ?lineage=false); oldest first, ?order=desc for newest first.
routes.get('/golems/:address/phases', async (c) => {
  const address = addressParam(c.req.param('address'), 'address')
  const limit = limitParam(c.req.query('limit'))
  const cursor = cursorParam(c.req.query('cursor'))
  const order = c.req.query('order') ?? 'asc'
  if (order !== 'asc' && order !== 'desc') throw new BadParam('order', 'must be asc or desc')
  const { firstKey, keys } = c.req.query('lineage') === 'false' ? { firstKey: undefined, keys: [address] } : await identity(address)
  const beyond = order === 'asc' ? gt : lt
  const sort = order === 'asc' ? asc : desc
  const rows = await db
    .select()
    .from(phaseTransition)
    .where(
      and(
        firstKey === undefined ? eq(phaseTransition.golem, address) : eq(phaseTransition.firstKey, firstKey),
        cursor === undefined
          ? undefined
          : or(
              beyond(phaseTransition.blockNumber, cursor.blockNumber),
              and(eq(phaseTransition.blockNumber, cursor.blockNumber), beyond(phaseTransition.logIndex, cursor.logIndex)),
            ),
      ),
    )
    .orderBy(sort(phaseTransition.blockNumber), sort(phaseTransition.logIndex))
    .limit(limit + 1)
  return json(c, { golem: address, firstKey: firstKey ?? address, keys, ...page(rows, limit, (r) => r) })
})

routes.get('/golems/:address/dreams', async (c) => {
  const address = addressParam(c.req.param('address'), 'address')
  const { keys } = await identity(address)
  const rows = await db
    .select()
    .from(dreamCycle)
    .where(inArray(dreamCycle.golem, keys))
    .orderBy(desc(dreamCycle.startedAt))
    .limit(limitParam(c.req.query('limit')))
  return json(c, { golem: address, items: rows })
})

// Redemptions by every key of the Golem's life, one item per transaction, newest first.
routes.get('/golems/:address/redemptions', async (c) => {
  const address = addressParam(c.req.param('address'), 'address')
  const { firstKey, keys } = await identity(address)
  const limit = limitParam(c.req.query('limit'))
  const before = cursorParam(c.req.query('cursor'))
  const firstLog = min(redemption.logIndex)
  const txs = await db
    .select({ txHash: redemption.txHash, blockNumber: redemption.blockNumber, firstLog })
    .from(redemption)
    .where(
      and(
        inArray(redemption.redeemer, keys),
        // A transaction's logs are contiguous, so cutting at its first log never splits another one.
        before === undefined
          ? undefined
          : or(
              lt(redemption.blockNumber, before.blockNumber),
              and(eq(redemption.blockNumber, before.blockNumber), lt(redemption.logIndex, before.logIndex)),
            ),
      ),
    )
    .groupBy(redemption.txHash, redemption.blockNumber)
    .orderBy(desc(redemption.blockNumber), desc(firstLog))
    .limit(limit + 1)
  const { items: pageTxs, nextCursor } = page(txs, limit, (t) => ({ blockNumber: t.blockNumber, logIndex: t.firstLog ?? 0 }))
  const hashes = pageTxs.map((t) => t.txHash)
  if (hashes.length === 0) return json(c, { golem: address, firstKey, keys, items: [], nextCursor })
  const [rows, spends] = await Promise.all([
    db
      .select()
      .from(redemption)
      .where(and(inArray(redemption.redeemer, keys), inArray(redemption.txHash, hashes))),
    db
      .select()
      .from(spendEvent)
      .where(and(inArray(spendEvent.golem, keys), inArray(spendEvent.txHash, hashes))),
  ])
  const grouped = groupRedemptions(rows, spends)
  const order = new Map<string, number>(hashes.map((h, i) => [h, i]))
  grouped.sort((a, b) => order.get(a.txHash)! - order.get(b.txHash)!)
  return json(c, { golem: address, firstKey, keys, items: grouped, nextCursor })
})

// The Golem's actions (swaps, deposits, approvals...) by every key of its life, newest first; ?sinceBlock bounds them.
routes.get('/golems/:address/actions', async (c) => {
  const address = addressParam(c.req.param('address'), 'address')
  const { firstKey, keys } = await identity(address)
  const sinceBlock = blockParam(c.req.query('sinceBlock'), 'sinceBlock')
  const rows = await db
    .select()
    .from(golemAction)
    .where(and(inArray(golemAction.golem, keys), sinceBlock === undefined ? undefined : gte(golemAction.blockNumber, sinceBlock)))
    .orderBy(desc(golemAction.blockNumber), desc(golemAction.contextIndex), desc(golemAction.callIndex))
    .limit(limitParam(c.req.query('limit')))
  return json(c, { golem: address, firstKey, keys, items: rows })
})

// Spend of the whole Golem by UTC day, source and asset, with USD6; ?from and ?to are YYYY-MM-DD (default: the last 30 days).
routes.get('/golems/:address/spend/daily', async (c) => {
  const address = addressParam(c.req.param('address'), 'address')
  const { firstKey } = await identity(address)
  const to = dayParam(c.req.query('to'), 'to', utcDay(BigInt(Math.floor(Date.now() / 1000))))
  const from = dayParam(c.req.query('from'), 'from', to - 29)
  if (from > to) throw new BadParam('from', 'must not be after to')
  if (to - from > 366) throw new BadParam('from', 'must be at most 366 days before to')
  const rows = await db
    .select({
      day: spendEvent.day,
      source: spendEvent.source,
      asset: spendEvent.asset,
      amount: sum(spendEvent.amount),
      usd6: sum(spendEvent.usd6),
      events: count(),
    })
    .from(spendEvent)
    .where(and(eq(spendEvent.firstKey, firstKey), gte(spendEvent.day, from), lte(spendEvent.day, to)))
    .groupBy(spendEvent.day, spendEvent.source, spendEvent.asset)
    .orderBy(asc(spendEvent.day), asc(spendEvent.source), asc(spendEvent.asset))
  const items = rows.map((r) => ({
    date: dayLabel(r.day),
    day: r.day,
    source: r.source,
    asset: r.asset,
    amount: r.amount ?? '0',
    usd6: r.usd6,
    events: r.events,
  }))
  return json(c, { golem: address, firstKey, from: dayLabel(from), to: dayLabel(to), items })
})

// Per-period totals of the whole Golem as the enforcers count them (UTC day, Replicant lifetime,
// period-transfer window), summed over its keys, newest period first.
routes.get('/golems/:address/spend/periods', async (c) => {
  const address = addressParam(c.req.param('address'), 'address')
  const { firstKey } = await identity(address)
  const source = c.req.query('source')
  const asset = c.req.query('asset')
  const rows = await db
    .select({
      source: golemSpend.source,
      asset: golemSpend.asset,
      periodStart: golemSpend.periodStart,
      periodEnd: max(golemSpend.periodEnd),
      amount: sum(golemSpend.amount),
      usd6: sum(golemSpend.usd6),
      eventCount: sum(golemSpend.eventCount),
      lastBlock: max(golemSpend.lastBlock),
    })
    .from(golemSpend)
    .where(
      and(
        eq(golemSpend.firstKey, firstKey),
        source === undefined ? undefined : eq(golemSpend.source, source as never),
        asset === undefined ? undefined : eq(golemSpend.asset, asset.toLowerCase()),
      ),
    )
    .groupBy(golemSpend.source, golemSpend.asset, golemSpend.periodStart)
    .orderBy(desc(golemSpend.periodStart), asc(golemSpend.source), asc(golemSpend.asset))
    .limit(limitParam(c.req.query('limit')))
  const items = rows.map((r) => ({ ...r, golem: address, firstKey, amount: r.amount ?? '0', eventCount: Number(r.eventCount ?? 0) }))
  return json(c, { golem: address, firstKey, items })
})

// The Golem's grants across its keys, oldest first: the first grant, renewals, and which one is active.
routes.get('/golems/:address/grants', async (c) => {
  const address = addressParam(c.req.param('address'), 'address')
  const { firstKey, keys } = await identity(address)
  const rows = await db.select().from(delegation).where(eq(delegation.firstKey, firstKey))
  return json(c, { golem: address, firstKey, keys, items: grantTimeline(rows) })
})

// Deaths, newest first: one record per first key.
routes.get('/deaths', async (c) => {
  const rows = await db
    .select()
    .from(golemDeath)
    .orderBy(desc(golemDeath.blockNumber))
    .limit(limitParam(c.req.query('limit')))
  return json(c, { items: rows })
})

// Raw RedeemedDelegation rows (one per delegation of a chain), newest first.
routes.get('/redemptions', async (c) => {
  const redeemer = optionalAddress(c.req.query('redeemer'), 'redeemer')
  const rootDelegator = optionalAddress(c.req.query('rootDelegator'), 'rootDelegator')
  const hash = c.req.query('delegationHash')
  const limit = limitParam(c.req.query('limit'))
  const before = cursorParam(c.req.query('cursor'))
  const beforeBlock = blockParam(c.req.query('beforeBlock'), 'beforeBlock')
  const rows = await db
    .select()
    .from(redemption)
    .where(
      and(
        redeemer === undefined ? undefined : eq(redemption.redeemer, redeemer),
        rootDelegator === undefined ? undefined : eq(redemption.rootDelegator, rootDelegator),
        hash === undefined ? undefined : eq(redemption.delegationHash, hashParam(hash, 'delegationHash')),
        beforeBlock === undefined ? undefined : lt(redemption.blockNumber, beforeBlock),
        before === undefined
          ? undefined
          : or(
              lt(redemption.blockNumber, before.blockNumber),
              and(eq(redemption.blockNumber, before.blockNumber), lt(redemption.logIndex, before.logIndex)),
            ),
      ),
    )
    .orderBy(desc(redemption.blockNumber), desc(redemption.logIndex))
    .limit(limit + 1)
  return json(
    c,
    page(rows, limit, (r) => r),
  )
})

routes.get('/delegations/:hash', async (c) => {
  const hash = hashParam(c.req.param('hash'), 'hash')
  const row = (await db.select().from(delegation).where(eq(delegation.hash, hash)))[0]
  if (row === undefined) return c.json({ code: 'DELEGATION_NOT_FOUND', message: `hash: no delegation ${hash} indexed` }, 404)
  const statusChanges = await db
    .select()
    .from(delegationStatusChange)
    .where(eq(delegationStatusChange.delegationHash, hash))
    .orderBy(asc(delegationStatusChange.blockNumber))
  return json(c, { delegation: row, statusChanges })
})

// What the delegation still allows now, from its enforcers' own views (remainingToday, remaining,
// timeRemaining, getAvailableAmount), read at the chain's latest block: no client has to guess.
routes.get('/delegations/:hash/remaining', async (c) => {
  const hash = hashParam(c.req.param('hash'), 'hash')
  const row = (await db.select().from(delegation).where(eq(delegation.hash, hash)))[0]
  if (row === undefined) return c.json({ code: 'DELEGATION_NOT_FOUND', message: `hash: no delegation ${hash} indexed` }, 404)
  const client = (publicClients as Record<string, PublicClient>)[settings.chainName]!
  const block = await client.getBlock()
  const reads = remainingReads(row.caveats, settings.enforcerNames, settings.addresses.delegationManager, hash)
  const views = await Promise.all(
    reads.map(async (read) =>
      read.shape(await client.readContract({ ...read.request, blockNumber: block.number } as Parameters<PublicClient['readContract']>[0])),
    ),
  )
  return json(c, { delegationHash: hash, enabled: row.enabled, blockNumber: block.number, timestamp: block.timestamp, views })
})
