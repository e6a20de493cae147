// Groups RedeemedDelegation rows (one per delegation of a redeemed chain) and the spend the enforcers
// recorded into one entry per transaction, the unit a dashboard or the HTTP API calls "a redemption".

export type RedemptionRow = {
  rootDelegator: string
  redeemer: string
  delegationHash: string
  delegator: string
  delegate: string
  blockNumber: bigint
  timestamp: bigint
  txHash: string
  logIndex: number
}

export type SpendRow = {
  source: string
  asset: string
  amount: bigint
  delegationHash: string
  txHash: string
  logIndex: number
}

export type GroupedRedemption = {
  txHash: string
  blockNumber: bigint
  timestamp: bigint
  redeemer: string
  rootDelegator: string
  /** The leaf delegation (the DelegationManager emits the leaf of each chain first). */
  delegationHash: string
  delegations: { hash: string; delegator: string; delegate: string; rootDelegator: string }[]
  /** USD6 value the Bardo USD enforcers recorded, counted once (see largestPerDelegation); null if none. */
  usd6: bigint | null
  /** Token amounts the framework's period enforcers recorded, by asset (0x0...0 is native ETH). */
  transfers: { asset: string; amount: bigint }[]
}

/**
 * Several caveats in one chain can value the same executions (a parent's and a child's spend caps both
 * run on a Replicant's redemption), so amounts are summed per delegation and the largest is taken. A
 * batch that redeems different delegations in one transaction is therefore counted by its largest part.
 */
function largestPerDelegation(spends: SpendRow[]): bigint | null {
  const perDelegation = new Map<string, bigint>()
  for (const s of spends) perDelegation.set(`${s.source}:${s.delegationHash}`, (perDelegation.get(`${s.source}:${s.delegationHash}`) ?? 0n) + s.amount)
  let best: bigint | null = null
  for (const v of perDelegation.values()) if (best === null || v > best) best = v
  return best
}

/** `rows` in any order; output in the order of each transaction's first row in `rows`. */
export function groupRedemptions(rows: RedemptionRow[], spends: SpendRow[]): GroupedRedemption[] {
  const byTx = new Map<string, RedemptionRow[]>()
  for (const row of rows) {
    const list = byTx.get(row.txHash)
    if (list === undefined) byTx.set(row.txHash, [row])
    else list.push(row)
  }
  const spendByTx = new Map<string, SpendRow[]>()
  for (const s of spends) {
    const list = spendByTx.get(s.txHash)
    if (list === undefined) spendByTx.set(s.txHash, [s])
    else list.push(s)
  }
  return [...byTx.entries()].map(([txHash, list]) => {
    const ordered = [...list].sort((a, b) => a.logIndex - b.logIndex)
    const first = ordered[0]!
    const txSpends = spendByTx.get(txHash) ?? []
    const usd = txSpends.filter((s) => s.asset === 'usd')
    const assets = [...new Set(txSpends.filter((s) => s.asset !== 'usd').map((s) => s.asset))].sort()
    return {
      txHash,
      blockNumber: first.blockNumber,
      timestamp: first.timestamp,
      redeemer: first.redeemer,
      rootDelegator: first.rootDelegator,
      delegationHash: first.delegationHash,
      delegations: ordered.map((r) => ({ hash: r.delegationHash, delegator: r.delegator, delegate: r.delegate, rootDelegator: r.rootDelegator })),
      usd6: largestPerDelegation(usd),
      transfers: assets.map((asset) => ({ asset, amount: largestPerDelegation(txSpends.filter((s) => s.asset === asset)) ?? 0n })),
    }
  })
}
