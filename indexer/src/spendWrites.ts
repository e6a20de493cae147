// Writes one resolved spend: the event row, the enforcer's per-delegation counter and the per-Golem
// period total, each with its USD value. Called from the RedeemedDelegation handler, once the redeemer
// is known.
import type { Context } from 'ponder:registry'
import { delegationSpend, golemSpend, spendEvent, type PendingSpendItem } from 'ponder:schema'
import { BaseError, ContractFunctionRevertedError, ContractFunctionZeroDataError, type Address, type Hex } from 'viem'
import { IPriceFeedAbi } from '../../contracts/artifacts/index.ts'
import { settings } from '../ponder.config.ts'
import { USD_ASSET, periodDelta, utcDay } from '../lib/spend.ts'
import { usdAtPar, usdValue } from '../lib/usd.ts'

type EventInfo = { block: { number: bigint; timestamp: bigint; hash: Hex }; transaction: { hash: Hex } }

// A feed's decimals and answer at one block, read once however many spends the block holds (a backfill
// block holds hundreds). Keyed by the block's hash, so a block that replaces it in a reorg reads again.
const feedReads = new Map<Address, Promise<readonly [number, bigint]>>()
let feedReadsBlock: Hex | undefined

function feedAt(context: Context, feed: Address, block: { number: bigint; hash: Hex }): Promise<readonly [number, bigint]> {
  if (block.hash !== feedReadsBlock) {
    feedReads.clear()
    feedReadsBlock = block.hash
  }
  let read = feedReads.get(feed)
  if (read === undefined) {
    read = Promise.all([
      context.client.readContract({ abi: IPriceFeedAbi, address: feed, functionName: 'decimals', cache: 'immutable' }),
      context.client.readContract({ abi: IPriceFeedAbi, address: feed, functionName: 'latestRoundData', blockNumber: block.number }),
    ]).then(([decimals, round]) => [decimals, round[1]] as const)
    feedReads.set(feed, read)
  }
  return read
}

/**
 * USD6 of a token amount at the spend's block, from the deployment's prices: a feed read (once per feed
 * and block), or par for a USD-pegged token without a feed; null for a token with no price.
 */
export async function usd6Of(
  context: Context,
  asset: string,
  amount: bigint,
  block: { number: bigint; hash: Hex },
): Promise<bigint | null> {
  if (asset === USD_ASSET) return amount
  const price = settings.prices[asset]
  if (price === undefined) return null
  if (price.feed === undefined) return usdAtPar(amount, price.decimals)
  const feed = price.feed
  const read = await nullWhenReverted(() => feedAt(context, feed, block))
  return read === null ? null : usdValue(amount, price.decimals, read[1], read[0])
}

/**
 * A contract read that reverts (a feed with no round yet) or hits no code (a wrong address) leaves the
 * value unknown: it must not stop the indexer. Anything else (the RPC down after Ponder's retries) is
 * Ponder's to handle.
 */
export async function nullWhenReverted<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read()
  } catch (error) {
    if (
      error instanceof BaseError &&
      error.walk((e) => e instanceof ContractFunctionRevertedError || e instanceof ContractFunctionZeroDataError) !== null
    )
      return null
    throw error
  }
}

export async function recordSpend(
  context: Context,
  event: EventInfo,
  who: { redeemer: Address; firstKey: Address },
  item: PendingSpendItem,
) {
  const { redeemer, firstKey } = who
  const enforcer = item.enforcer as Hex
  const delegationHash = item.delegationHash as Hex
  const periodStart = BigInt(item.periodStart)
  const periodEnd = item.periodEnd === null ? null : BigInt(item.periodEnd)
  const spentInPeriod = BigInt(item.spentInPeriod)
  const periodLimit = BigInt(item.periodLimit)
  const key = { enforcer, delegationHash, periodStart }

  let amount: bigint
  if (item.amount !== null) {
    amount = BigInt(item.amount)
  } else {
    // Period-transfer enforcers report the running total; items resolve in log order, so the stored
    // total is the one just before this event.
    const previous = await context.db.find(delegationSpend, key)
    amount = periodDelta(previous?.spent, spentInPeriod)
  }

  const usd6 = await usd6Of(context, item.asset, amount, event.block)

  const counter = { spent: spentInPeriod, periodLimit, periodEnd, lastBlock: event.block.number }
  await context.db
    .insert(delegationSpend)
    .values({ ...key, source: item.source, asset: item.asset, ...counter })
    .onConflictDoUpdate(counter)

  await context.db.insert(spendEvent).values({
    id: `${event.transaction.hash}-${item.logIndex}`,
    golem: redeemer,
    firstKey,
    source: item.source,
    enforcer,
    delegationHash,
    asset: item.asset,
    amount,
    usd6,
    periodStart,
    periodEnd,
    spentInPeriod,
    periodLimit,
    day: utcDay(event.block.timestamp),
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    txHash: event.transaction.hash,
    logIndex: item.logIndex,
  })

  await context.db
    .insert(golemSpend)
    .values({
      golem: redeemer,
      firstKey,
      source: item.source,
      asset: item.asset,
      periodStart,
      periodEnd,
      amount,
      usd6,
      eventCount: 1,
      lastBlock: event.block.number,
    })
    .onConflictDoUpdate((row) => ({
      amount: row.amount + amount,
      usd6: usd6 === null ? row.usd6 : (row.usd6 ?? 0n) + usd6,
      eventCount: row.eventCount + 1,
      periodEnd,
      lastBlock: event.block.number,
    }))
}
