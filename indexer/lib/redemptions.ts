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
  /** The amount in USD6 (itself for USD sources; null for a token without a price). */
  usd6?: bigint | null
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
  /**
   * USD6 value, counted once (see largestPerDelegation): what the Bardo USD enforcers recorded, else the
   * sum of the priced transfers; null when neither is known (a transfer in a token without a price).
   */
  usd6: bigint | null
  /** Token amounts the framework's period enforcers recorded, by asset (0x0...0 is native ETH), with their USD6 value. */
  transfers: { asset: string; amount: bigint; usd6: bigint | null }[]
}

/**
 * Several caveats in one chain can value the same executions (a parent's and a child's spend caps both
 * run on a Replicant's redemption), so amounts are summed per delegation and the largest is taken. A
 * batch that redeems different delegations in one transaction is therefore counted by its largest part.
 */
function largestPerDelegation(spends: SpendRow[], value: (s: SpendRow) => bigint = (s) => s.amount): bigint | null {
  const perDelegation = new Map<string, bigint>()
  for (const s of spends)
    perDelegation.set(`${s.source}:${s.delegationHash}`, (perDelegation.get(`${s.source}:${s.delegationHash}`) ?? 0n) + value(s))
  let best: bigint | null = null
  for (const v of perDelegation.values()) if (best === null || v > best) best = v
  return best
}

/** A transfer's USD6, or null when any of its spend rows has no price. */
function transferUsd6(spends: SpendRow[]): bigint | null {
  if (spends.some((s) => s.usd6 === undefined || s.usd6 === null)) return null
  return largestPerDelegation(spends, (s) => s.usd6 ?? 0n)
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
    const transfers = assets.map((asset) => {
      const rows = txSpends.filter((s) => s.asset === asset)
      return { asset, amount: largestPerDelegation(rows) ?? 0n, usd6: transferUsd6(rows) }
    })
    // The USD enforcers' own count wins: they price every execution, not only the runway's token.
    const priced = transfers.every((t) => t.usd6 !== null) && transfers.length > 0 ? transfers.reduce((sum, t) => sum + t.usd6!, 0n) : null
    return {
      txHash,
      blockNumber: first.blockNumber,
      timestamp: first.timestamp,
      redeemer: first.redeemer,
      rootDelegator: first.rootDelegator,
      delegationHash: first.delegationHash,
      delegations: ordered.map((r) => ({
        hash: r.delegationHash,
        delegator: r.delegator,
        delegate: r.delegate,
        rootDelegator: r.rootDelegator,
      })),
      usd6: largestPerDelegation(usd) ?? priced,
      transfers,
    }
  })
}
