// The figures both a benchmark's own table and the closing goal lines (bench/goals.ts) read, so they
// state one number: the ERC-7715 chain's baseline row, and an idle Golem-minute's cost.

/** The wallet's ERC-7715 grant redeemed directly by its delegate: the ERC-7715 chain's baseline (a gas row). */
export const WALLET_GRANT_ALONE = "ERC-7715 wallet grant alone, redeemed by its delegate (MetaMask's own)"

/** Permission health against bare Hono, in the same run: at least this much of its throughput, p99 at most this much of its. */
export const API_GOAL = { minRpsRatio: 0.9, maxP99Ratio: 1.2 } as const

/** Goal 3, as the API bench prints it and the goal line judges it. */
export const apiGoalMet = (r: { rpsRatio: number; p99Ratio: number }): boolean =>
  r.rpsRatio >= API_GOAL.minRpsRatio && r.p99Ratio <= API_GOAL.maxP99Ratio

/** The indexer's backfill with Bardo's handlers: at least this share of an empty-handler app's events a second. */
export const BACKFILL_GOAL = 0.9

/** The heartbeat goals are judged on the real store (dynalite) at this many Golems. */
export const GOAL_GOLEMS = 1_000

/** What an idle Golem-minute is read from: the heartbeat bench's goal targets and its rows. */
export type IdleRows = {
  goalIdleInvocations: number
  goalIdleStoreRequests: number
  rows: readonly { store: string; golems: number; idle: { invocations: number; store: { requestsPerTick: number } | null } }[]
}

/** An idle Golem-minute's cost in the goal row (dynalite, 1,000 Golems; else the largest dynalite row). */
export function idleGolemMinute(
  result: IdleRows,
): { golems: number; store: string; invocations: number; requests: number; pass: boolean } | undefined {
  const dynalite = result.rows.filter((r) => r.store === 'dynalite' && r.idle.store !== null)
  const row = dynalite.find((r) => r.golems === GOAL_GOLEMS) ?? dynalite.at(-1)
  if (!row) return undefined
  const invocations = row.idle.invocations / row.golems
  const requests = row.idle.store!.requestsPerTick
  const pass = invocations <= result.goalIdleInvocations && requests <= result.goalIdleStoreRequests
  return { golems: row.golems, store: row.store, invocations, requests, pass }
}

/**
 * Where a busy tick's time went: CPU milliseconds per tick in the chain's process and in the bench's own
 * (ticks, heartbeat, the AWS SDK and the store emulator), and the most ticks a minute this machine's
 * cores could run at that cost, were both kept busy all the time. Null where the chain's time is unknown.
 */
export function busyTickCpu(
  busy: { ticks: number; cpu: { chainMs: number | null; benchMs: number } },
  cores: number,
): { chainMs: number; benchMs: number; ceilingPerMinute: number } | null {
  if (busy.cpu.chainMs === null || busy.ticks === 0) return null
  const chainMs = busy.cpu.chainMs / busy.ticks
  const benchMs = busy.cpu.benchMs / busy.ticks
  return { chainMs, benchMs, ceilingPerMinute: (cores * 60_000) / (chainMs + benchMs) }
}
