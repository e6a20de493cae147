// Reads, once, what the constitution check needs: chain time, each approved asset's price (its feed in
// the Golem's grant, or a vault's share price through its priced underlying asset), the owner's holdings
// of each, and the Golem's policy ledger (its PolicySpend and PolicyViolation events since birth).
import { erc20Abi, erc4626Abi, type Address, type PublicClient } from 'viem'
import { IPriceFeedAbi } from '../../contracts/artifacts/index.ts'
import type { GrantedAction } from '../../core/actions/index.ts'
import type { TokenFeed } from '../../core/caveats/types.ts'
import { BardoError } from '../../core/errors.ts'
import type { GolemProfile } from '../../core/lifecycle/profile.ts'
import { constitutionHash, policyLedgerOf, usdOf, type AssetPrice, type Constitution, type PolicyState } from '../../core/policy/index.ts'
import type { Store } from '../../core/store/index.ts'

export type PolicyObservation = { nowMs: number; state: PolicyState; prices: ReadonlyMap<string, AssetPrice> }

const PAGE = 500
const MAX_PAGES = 40

export async function readPolicyState(
  deps: { client: PublicClient; store: Pick<Store, 'listEvents'> },
  p: { golemId: string; owner: Address; profile: GolemProfile; constitution: Constitution; grants: readonly GrantedAction[] },
): Promise<PolicyObservation> {
  const { client } = deps
  const assets = [p.constitution.baseAsset, ...p.constitution.assets.map((a) => a.address)]
  const feeds = new Map<string, TokenFeed>()
  for (const g of p.grants)
    for (const c of g.caveats)
      if (c.type === 'maxSlippage' || c.type === 'dailySpendLimit') for (const f of c.feeds) feeds.set(f.token.toLowerCase(), f)

  const feedPrice = async (f: TokenFeed): Promise<AssetPrice> => {
    const [round, decimals] = await Promise.all([
      client.readContract({ address: f.feed, abi: IPriceFeedAbi, functionName: 'latestRoundData' }),
      client.readContract({ address: f.feed, abi: IPriceFeedAbi, functionName: 'decimals' }),
    ])
    const answer = (round as readonly bigint[])[1]!
    return { decimals: f.decimals, usdPerToken: answer < 0n ? 0n : (answer * 1_000_000n) / 10n ** BigInt(decimals) }
  }
  const [block, priced, balances, events] = await Promise.all([
    client.getBlock(),
    Promise.all(
      assets.map(async (asset): Promise<readonly [string, AssetPrice]> => {
        const feed = feeds.get(asset.toLowerCase())
        if (feed) return [asset.toLowerCase(), await feedPrice(feed)]
        return [asset.toLowerCase(), await vaultPrice(asset)]
      }),
    ),
    Promise.all(assets.map((asset) => client.readContract({ address: asset, abi: erc20Abi, functionName: 'balanceOf', args: [p.owner] }))),
    readEvents(),
  ])
  const prices = new Map(priced)
  const holdingsUsd = new Map(assets.map((a, i) => [a.toLowerCase(), usdOf(prices, a, balances[i]!)]))
  const portfolioUsd = [...holdingsUsd.values()].reduce((x, y) => x + y, 0n)
  const nowMs = Number(block.timestamp) * 1000
  const ledger = policyLedgerOf(events, { sessionKey: p.profile.golemKey, nowMs, constitutionHash: constitutionHash(p.constitution) })
  return { nowMs, prices, state: { holdingsUsd, portfolioUsd, ...ledger } }

  async function vaultPrice(vault: Address): Promise<AssetPrice> {
    const unpriced = () =>
      new BardoError(
        'POLICY_UNPRICED_ASSET',
        `constitution.assets: ${vault} has no price feed in the Golem's grant and is not an ERC-4626 vault of a priced asset`,
        { details: { field: 'constitution.assets', asset: vault } },
      )
    const underlying = await client.readContract({ address: vault, abi: erc4626Abi, functionName: 'asset' }).catch(() => undefined)
    const feed = underlying && feeds.get(underlying.toLowerCase())
    if (!underlying || !feed) throw unpriced()
    const decimals = await client.readContract({ address: vault, abi: erc20Abi, functionName: 'decimals' })
    const [perShare, price] = await Promise.all([
      client.readContract({ address: vault, abi: erc4626Abi, functionName: 'convertToAssets', args: [10n ** BigInt(decimals)] }),
      feedPrice(feed),
    ])
    return { decimals, usdPerToken: usdOf(new Map([[underlying.toLowerCase(), price]]), underlying, perShare), underlying }
  }

  async function readEvents() {
    const out = []
    let cursor: string | null = null
    for (let page = 0; page < MAX_PAGES; page++) {
      const r = await deps.store.listEvents({
        golemId: p.golemId,
        limit: PAGE,
        cursor,
        order: 'asc',
        since: Number(p.profile.life.bornAt) * 1000,
      })
      out.push(...r.events)
      cursor = r.cursor
      if (cursor === null) break
    }
    return out
  }
}
