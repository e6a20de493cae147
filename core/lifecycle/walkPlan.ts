// Which due shards each of the minute's walks covers. Each walk reads its Golems from the chain in one
// multicall a page, so a walk per shard costs a fleet one multicall a minute per non-empty shard however
// few Golems it has. A shard whose due list fills a page walks alone, so a large fleet's shards still
// walk side by side in their own walkers; shards with less than a page due are packed together up to a
// page, so a small fleet reads the chain in one multicall a minute. A shard with nothing due is not walked.

/** A shard's due list as the heartbeat listed it at the minute's time: its first page, and whether more follow. */
export type ShardLoad = { shard: number; listed: number; more: boolean }

/** The walks, each at most a page of listed Golems unless one shard alone fills it; each shard in one walk. */
export function planWalks(loads: readonly ShardLoad[], pageSize: number): number[][] {
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new RangeError('pageSize: must be a positive integer')
  const walks: number[][] = []
  let packed: number[] = []
  let packedListed = 0
  for (const load of [...loads].sort((a, b) => a.shard - b.shard)) {
    if (load.more || load.listed >= pageSize) {
      walks.push([load.shard])
      continue
    }
    if (load.listed === 0) continue
    if (packedListed + load.listed > pageSize) {
      walks.push(packed)
      packed = []
      packedListed = 0
    }
    packed.push(load.shard)
    packedListed += load.listed
  }
  if (packed.length > 0) walks.push(packed)
  return walks
}
