// Writes one resolved spend: the event row, the enforcer's per-delegation counter and the per-Golem
// period total. Called from the RedeemedDelegation handler, once the redeemer is known.
import type { Context } from 'ponder:registry'
import { delegationSpend, golemSpend, spendEvent, type PendingSpendItem } from 'ponder:schema'
import type { Address, Hex } from 'viem'
import { periodDelta, utcDay } from '../lib/spend.ts'

type EventInfo = { block: { number: bigint; timestamp: bigint }; transaction: { hash: Hex } }

export async function recordSpend(context: Context, event: EventInfo, redeemer: Address, item: PendingSpendItem) {
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

  const counter = { spent: spentInPeriod, periodLimit, periodEnd, lastBlock: event.block.number }
  await context.db
    .insert(delegationSpend)
    .values({ ...key, source: item.source, asset: item.asset, ...counter })
    .onConflictDoUpdate(counter)

  await context.db.insert(spendEvent).values({
    id: `${event.transaction.hash}-${item.logIndex}`,
    golem: redeemer,
    source: item.source,
    enforcer,
    delegationHash,
    asset: item.asset,
    amount,
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
      source: item.source,
      asset: item.asset,
      periodStart,
      periodEnd,
      amount,
      eventCount: 1,
      lastBlock: event.block.number,
    })
    .onConflictDoUpdate((row) => ({
      amount: row.amount + amount,
      eventCount: row.eventCount + 1,
      periodEnd,
      lastBlock: event.block.number,
    }))
}
