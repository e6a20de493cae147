// Enforcer events that record spend. They run in the redemption's hooks, before the DelegationManager
// emits RedeemedDelegation, and the USD enforcers do not name the redeemer; so each spend waits in
// pending_spend (keyed by delegation hash) until delegations.ts resolves it.
import { ponder, type Context } from 'ponder:registry'
import { actionClass, delegation, golem, pendingSpend, replicant, type PendingSpendItem } from 'ponder:schema'
import type { Address, Hex } from 'viem'
import { settings } from '../ponder.config.ts'
import { NATIVE_ASSET, USD_ASSET, dayPeriod, transferPeriod } from '../lib/spend.ts'

const manager = settings.addresses.delegationManager.toLowerCase()

/** Enforcers serve any DelegationManager; only ours emits the RedeemedDelegation that resolves a spend. */
function isOurManager(address: string): boolean {
  return address.toLowerCase() === manager
}

/**
 * The framework's period enforcers serve every MetaMask user on a public chain; keep their events only
 * when a known Golem redeemed or the delegation is already indexed, so foreign delegations leave no rows.
 */
async function isBardoTransfer(context: Context, redeemer: Address, delegationHash: Hex): Promise<boolean> {
  if (settings.indexAllDelegations) return true
  if ((await context.db.find(golem, { address: redeemer })) !== null) return true
  return (await context.db.find(delegation, { hash: delegationHash })) !== null
}

async function enqueue(context: Context, txHash: Hex, item: Omit<PendingSpendItem, 'txHash'>) {
  const pending = { ...item, txHash }
  await context.db
    .insert(pendingSpend)
    .values({ delegationHash: item.delegationHash as Hex, items: [pending] })
    .onConflictDoUpdate((row) => ({ items: [...row.items, pending] }))
}

ponder.on('DailySpendLimitEnforcer:SpendRecorded', async ({ event, context }) => {
  const { delegationManager, delegationHash, day, amountUsd, spentTodayUsd, dailyLimitUsd } = event.args
  if (!isOurManager(delegationManager)) return
  const { periodStart, periodEnd } = dayPeriod(day)
  await enqueue(context, event.transaction.hash, {
    source: 'daily-spend-limit',
    enforcer: event.log.address,
    delegationHash,
    asset: USD_ASSET,
    amount: amountUsd.toString(),
    periodStart: periodStart.toString(),
    periodEnd: periodEnd.toString(),
    spentInPeriod: spentTodayUsd.toString(),
    periodLimit: dailyLimitUsd.toString(),
    logIndex: event.log.logIndex,
  })
})

ponder.on('ReplicantBudgetEnforcer:ReplicantActivated', async ({ event, context }) => {
  const { delegationManager, delegationHash, activatedAt, expiresAt } = event.args
  if (!isOurManager(delegationManager)) return
  await context.db
    .insert(replicant)
    .values({
      enforcer: event.log.address,
      delegationHash,
      activatedAt,
      expiresAt,
      spentUsd: 0n,
      activatedBlock: event.block.number,
    })
    .onConflictDoNothing()
})

ponder.on('ReplicantBudgetEnforcer:ReplicantSpend', async ({ event, context }) => {
  const { delegationManager, delegationHash, amountUsd, spentUsd, maxBudgetUsd } = event.args
  if (!isOurManager(delegationManager)) return
  const key = { enforcer: event.log.address, delegationHash }
  const row = await context.db.find(replicant, key)
  if (row !== null) await context.db.update(replicant, key).set({ spentUsd, maxBudgetUsd })
  // A Replicant's period is its whole lifespan, from activation to expiry.
  await enqueue(context, event.transaction.hash, {
    source: 'replicant-budget',
    enforcer: event.log.address,
    delegationHash,
    asset: USD_ASSET,
    amount: amountUsd.toString(),
    periodStart: (row?.activatedAt ?? 0n).toString(),
    periodEnd: row === null ? null : row.expiresAt.toString(),
    spentInPeriod: spentUsd.toString(),
    periodLimit: maxBudgetUsd.toString(),
    logIndex: event.log.logIndex,
  })
})

ponder.on('ERC20PeriodTransferEnforcer:TransferredInPeriod', async ({ event, context }) => {
  const {
    sender,
    redeemer,
    delegationHash,
    token,
    periodAmount,
    periodDuration,
    startDate,
    transferredInCurrentPeriod,
    transferTimestamp,
  } = event.args
  if (!isOurManager(sender) || !(await isBardoTransfer(context, redeemer, delegationHash))) return
  const { periodStart, periodEnd } = transferPeriod(startDate, periodDuration, transferTimestamp)
  await enqueue(context, event.transaction.hash, {
    source: 'erc20-period',
    enforcer: event.log.address,
    delegationHash,
    asset: token.toLowerCase(),
    amount: null,
    periodStart: periodStart.toString(),
    periodEnd: periodEnd.toString(),
    spentInPeriod: transferredInCurrentPeriod.toString(),
    periodLimit: periodAmount.toString(),
    logIndex: event.log.logIndex,
  })
})

ponder.on('NativeTokenPeriodTransferEnforcer:TransferredInPeriod', async ({ event, context }) => {
  const { sender, redeemer, delegationHash, periodAmount, periodDuration, startDate, transferredInCurrentPeriod, transferTimestamp } =
    event.args
  if (!isOurManager(sender) || !(await isBardoTransfer(context, redeemer, delegationHash))) return
  const { periodStart, periodEnd } = transferPeriod(startDate, periodDuration, transferTimestamp)
  await enqueue(context, event.transaction.hash, {
    source: 'native-period',
    enforcer: event.log.address,
    delegationHash,
    asset: NATIVE_ASSET,
    amount: null,
    periodStart: periodStart.toString(),
    periodEnd: periodEnd.toString(),
    spentInPeriod: transferredInCurrentPeriod.toString(),
    periodLimit: periodAmount.toString(),
    logIndex: event.log.logIndex,
  })
})

ponder.on('GolemPhaseEnforcer:ActionClassSet', async ({ event, context }) => {
  const values = { classMask: event.args.classMask, blockNumber: event.block.number }
  await context.db
    .insert(actionClass)
    .values({ enforcer: event.log.address, selector: event.args.selector, ...values })
    .onConflictDoUpdate(values)
})
