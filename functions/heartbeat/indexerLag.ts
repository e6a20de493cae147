// How far the indexer is behind the chain, for the IndexerLag alarm: the chain head the heartbeat read
// minus the block Ponder's /status reports for this chain. Null when the indexer cannot say (down, no
// such chain yet): a missing data point leaves the alarm alone, while a dead indexer is the
// IndexerErrors alarm's and the load balancer's to report.
export type IndexerStatus = Record<string, { id?: number; block?: { number?: number } | null }>

export function indexerLagBlocks(status: unknown, chainId: number, head: bigint): bigint | null {
  if (!status || typeof status !== 'object') return null
  const chains = Object.values(status as IndexerStatus)
  const chain = chains.find((c) => c?.id === chainId) ?? (chains.length === 1 ? chains[0] : undefined)
  const indexed = chain?.block?.number
  if (typeof indexed !== 'number' || !Number.isSafeInteger(indexed)) return null
  const lag = head - BigInt(indexed)
  return lag > 0n ? lag : 0n
}

export async function readIndexerLag(o: {
  indexerUrl: string
  chainId: number
  head: bigint
  fetch?: typeof fetch
  timeoutMs?: number
}): Promise<bigint | null> {
  const url = `${o.indexerUrl.replace(/\/+$/, '')}/status`
  try {
    const res = await (o.fetch ?? fetch)(url, { signal: AbortSignal.timeout(o.timeoutMs ?? 2_000) })
    if (!res.ok) return null
    return indexerLagBlocks(await res.json(), o.chainId, o.head)
  } catch {
    return null
  }
}
