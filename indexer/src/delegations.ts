// DelegationManager: delegations, their enable/disable history, redemptions, and the spend events that
// were waiting for their redemption to say who redeemed (see spend.ts).
import { ponder, type Context } from 'ponder:registry'
import { delegation, delegationStatusChange, golem, pendingSpend, redemption } from 'ponder:schema'
import type { Address, Hex } from 'viem'
import { settings } from '../ponder.config.ts'
import { createDelegationHasher, type DelegationStruct } from '../lib/delegationHash.ts'
import { bardoEnforcerSet, hasBardoCaveat } from '../lib/relevance.ts'
import { UNCONFIGURED } from '../lib/settings.ts'
import { firstKeyOf } from './firstKey.ts'
import { recordActions } from './actions.ts'
import { recordCouncilRedemption } from './council.ts'
import { recordSpend } from './spendWrites.ts'

const bardoEnforcers = bardoEnforcerSet(settings.bardoEnforcers, UNCONFIGURED)
const delegationHash = createDelegationHasher()

/** Is this delegation Bardo's? Cheap checks first; the database checks hit Ponder's in-memory cache. */
async function isRelevant(context: Context, d: DelegationStruct, hash: Hex, redeemer?: Address): Promise<boolean> {
  if (settings.indexAllDelegations || hasBardoCaveat(d.caveats, bardoEnforcers)) return true
  for (const party of redeemer === undefined ? [d.delegate, d.delegator] : [redeemer, d.delegate, d.delegator]) {
    if ((await context.db.find(golem, { address: party })) !== null) return true
  }
  return (await context.db.find(delegation, { hash })) !== null
}

/** The Golem a delegation grants to: its delegate's first key when the delegate is a known Golem key. */
async function grantee(context: Context, delegate: Address): Promise<Address | null> {
  return (await context.db.find(golem, { address: delegate }))?.firstKey ?? null
}

function delegationRow(d: DelegationStruct, hash: Hex, blockNumber: bigint, firstKey: Address | null) {
  return {
    hash,
    delegator: d.delegator,
    delegate: d.delegate,
    firstKey,
    authority: d.authority,
    salt: d.salt,
    caveats: d.caveats.map((c) => ({ enforcer: c.enforcer, terms: c.terms, args: c.args })),
    enabled: true,
    firstSeenBlock: blockNumber,
    redemptionCount: 0,
  }
}

ponder.on('DelegationManager:RedeemedDelegation', async ({ event, context }) => {
  const { rootDelegator, redeemer, delegation: d } = event.args
  const hash = delegationHash(d)
  const pending = await context.db.find(pendingSpend, { delegationHash: hash })
  const items = pending?.items.filter((item) => item.txHash === event.transaction.hash) ?? []
  if (pending !== null && pending.items.length > 0) await context.db.update(pendingSpend, { delegationHash: hash }).set({ items: [] })
  await recordCouncilRedemption(context, event, hash)
  if (!(await isRelevant(context, d, hash, redeemer))) return

  await context.db
    .insert(delegation)
    .values({
      ...delegationRow(d, hash, event.block.number, await grantee(context, d.delegate)),
      redemptionCount: 1,
      lastRedeemedBlock: event.block.number,
    })
    .onConflictDoUpdate((row) => ({ redemptionCount: row.redemptionCount + 1, lastRedeemedBlock: event.block.number }))
  const firstKey = await firstKeyOf(context, redeemer)
  await context.db.insert(redemption).values({
    id: `${event.transaction.hash}-${event.log.logIndex}`,
    rootDelegator,
    redeemer,
    firstKey,
    delegationHash: hash,
    delegator: d.delegator,
    delegate: d.delegate,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    txHash: event.transaction.hash,
    logIndex: event.log.logIndex,
  })
  for (const item of items) await recordSpend(context, event, { redeemer, firstKey }, item)
  await recordActions(context, event, { hash, delegation: d, redeemer, firstKey })
})

async function statusChanged(
  context: Context,
  event: {
    args: { delegationHash: Hex; delegation: DelegationStruct }
    block: { number: bigint; timestamp: bigint }
    transaction: { hash: Hex }
    log: { logIndex: number }
  },
  enabled: boolean,
) {
  const { delegationHash: hash, delegation: d } = event.args
  if (!(await isRelevant(context, d, hash))) return
  const status = { enabled, statusBlock: event.block.number, statusTx: event.transaction.hash }
  await context.db
    .insert(delegation)
    .values({ ...delegationRow(d, hash, event.block.number, await grantee(context, d.delegate)), ...status })
    .onConflictDoUpdate(status)
  await context.db.insert(delegationStatusChange).values({
    id: `${event.transaction.hash}-${event.log.logIndex}`,
    delegationHash: hash,
    enabled,
    delegator: d.delegator,
    delegate: d.delegate,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    txHash: event.transaction.hash,
  })
}

ponder.on('DelegationManager:DisabledDelegation', async ({ event, context }) => statusChanged(context, event, false))
ponder.on('DelegationManager:EnabledDelegation', async ({ event, context }) => statusChanged(context, event, true))
