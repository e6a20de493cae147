// Coordination Council executions: the EntryPoint's UserOperationEvent for a named council (its
// proposal from the nonce key, success, gas, the transaction), joined to the redemption the council made
// through the DelegationManager in the same operation, or to the revert reason when its call was refused.
import { ponder, type Context } from 'ponder:registry'
import { councilExecution, councilPending } from 'ponder:schema'
import type { Address, Hex } from 'viem'
import { settings } from '../ponder.config.ts'
import { councilPendingKey, councilProposalOf, isCouncil } from '../lib/council.ts'

const councils = new Set(settings.councils)

/** Called by the DelegationManager's RedeemedDelegation handler: a redemption whose redeemer is a council. */
export async function recordCouncilRedemption(
  context: Context,
  event: { args: { rootDelegator: Address; redeemer: Address; delegation: { delegate: Address } }; transaction: { hash: Hex } },
  delegationHash: Hex,
): Promise<void> {
  if (!isCouncil(councils, event.args.redeemer)) return
  // A chain of several links emits one event per link; the council's own is the leaf, delegated to it.
  if (event.args.delegation.delegate.toLowerCase() !== event.args.redeemer.toLowerCase()) return
  const id = councilPendingKey(event.transaction.hash, event.args.redeemer)
  const values = { delegationHash, rootDelegator: event.args.rootDelegator.toLowerCase() as Hex }
  await context.db
    .insert(councilPending)
    .values({ id, ...values })
    .onConflictDoUpdate(values)
}

ponder.on('EntryPoint:UserOperationRevertReason', async ({ event, context }) => {
  if (!isCouncil(councils, event.args.sender)) return
  const id = councilPendingKey(event.transaction.hash, event.args.sender)
  await context.db
    .insert(councilPending)
    .values({ id, revertReason: event.args.revertReason })
    .onConflictDoUpdate({ revertReason: event.args.revertReason })
})

ponder.on('EntryPoint:UserOperationEvent', async ({ event, context }) => {
  const { userOpHash, sender, nonce, success, actualGasCost } = event.args
  if (!isCouncil(councils, sender)) return
  const id = councilPendingKey(event.transaction.hash, sender)
  const pending = await context.db.find(councilPending, { id })
  if (pending !== null) await context.db.delete(councilPending, { id })
  const { proposalId, deadline } = councilProposalOf(nonce)
  await context.db
    .insert(councilExecution)
    .values({
      userOpHash,
      council: sender.toLowerCase() as Hex,
      proposalId,
      deadline,
      nonce,
      success,
      revertReason: pending?.revertReason ?? null,
      delegationHash: success ? (pending?.delegationHash ?? null) : null,
      rootDelegator: success ? (pending?.rootDelegator ?? null) : null,
      actualGasCost,
      blockNumber: event.block.number,
      timestamp: event.block.timestamp,
      txHash: event.transaction.hash,
      logIndex: event.log.logIndex,
    })
    .onConflictDoNothing()
})
