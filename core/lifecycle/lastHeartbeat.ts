// When the heartbeat last looked at a Golem, as the API and the Snap report it ("Last heartbeat"). A
// Golem with nothing to do is observed every minute and not ticked, so its own record keeps the time of
// its last tick; the heartbeat's walk of its due shard says it was observed since. Pure.
import type { GolemRecord } from '../store/records.ts'

/**
 * Store time (ms) of the Golem's last heartbeat: the later of its last tick and the last walk of its due
 * shard, the walk counting only when the Golem was due at it (so it was observed, and ticked had it had
 * work). A dead Golem's is its last tick. Null before either.
 */
export function lastHeartbeatAt(
  record: Pick<GolemRecord, 'status' | 'nextTickAt' | 'lastTick'>,
  shardWalkedAt: number | null,
): number | null {
  const ticked = record.lastTick?.at ?? null
  if (record.status === 'dead' || shardWalkedAt === null || shardWalkedAt < record.nextTickAt) return ticked
  return ticked === null || shardWalkedAt > ticked ? shardWalkedAt : ticked
}
