// A Golem's actions: on the RedeemedDelegation of a context's leaf delegation, the calls that context
// carried are decoded from the transaction's redeemDelegations calldata and written to golem_action,
// with the vault's asset, the USD value (the spend rows' valuation) and the names of the caveats that
// bound them. The runway and the gas allowance are not actions (they are the spend tables' business).
import type { Context } from 'ponder:registry'
import { golemAction } from 'ponder:schema'
import { parseAbi, type Address, type Hex } from 'viem'
import { settings } from '../ponder.config.ts'
import { chainEnforcers, decodeAction, decodeRedemptionCalldata, isActionChain, type RedeemedContext } from '../lib/actions.ts'
import { createDelegationHasher, type DelegationStruct } from '../lib/delegationHash.ts'
import { UNCONFIGURED } from '../lib/settings.ts'
import { nullWhenReverted, usd6Of } from './spendWrites.ts'

type ActionEvent = {
  block: { number: bigint; timestamp: bigint; hash: Hex }
  transaction: { hash: Hex; input: Hex; to: Address | null }
}

const vaultAbi = parseAbi(['function asset() view returns (address)', 'function convertToAssets(uint256 shares) view returns (uint256)'])
const periodEnforcers = [settings.addresses.enforcers.erc20PeriodTransfer, settings.addresses.enforcers.nativeTokenPeriodTransfer].filter(
  (a) => a !== UNCONFIGURED,
)
const hashOf = createDelegationHasher()

// A transaction's contexts, decoded once however many RedeemedDelegation events it emits.
let decodedTx: { hash: Hex; contexts: { context: RedeemedContext; leaf: Hex }[] } | undefined

function contextsOf(tx: ActionEvent['transaction']): { context: RedeemedContext; leaf: Hex }[] {
  if (decodedTx?.hash === tx.hash) return decodedTx.contexts
  // Only a redemption sent to the DelegationManager itself can be read from its input (a smart account's
  // wrapped call is not decoded).
  const direct = tx.to !== null && tx.to.toLowerCase() === settings.addresses.delegationManager.toLowerCase()
  const contexts = direct ? (decodeRedemptionCalldata(tx.input) ?? []) : []
  decodedTx = {
    hash: tx.hash,
    contexts: contexts.filter((c) => c.chain.length > 0).map((context) => ({ context, leaf: hashOf(context.chain[0]!) })),
  }
  return decodedTx.contexts
}

export async function recordActions(
  context: Context,
  event: ActionEvent,
  who: { hash: Hex; delegation: DelegationStruct; redeemer: Address; firstKey: Address },
) {
  // The runway's and the gas allowance's own delegations (most redemptions) need no decoding.
  if (!isActionChain([who.delegation], periodEnforcers)) return
  for (const { context: redeemed, leaf } of contextsOf(event.transaction)) {
    if (leaf !== who.hash || !isActionChain(redeemed.chain, periodEnforcers)) continue
    const caveats = chainEnforcers(redeemed.chain).map((enforcer) => ({
      enforcer: enforcer.toLowerCase(),
      name: settings.caveatNames[enforcer.toLowerCase()] ?? null,
    }))
    for (const [callIndex, execution] of redeemed.executions.entries()) {
      const action = decodeAction(execution)
      const tokens: string[] = action.tokens.map((t) => t.toLowerCase())
      let usd6: bigint | null = null
      const valued = action.valued
      if (valued !== null && 'token' in valued) {
        usd6 = await usd6Of(context, valued.token.toLowerCase(), valued.amount, event.block)
      } else if (valued !== null) {
        const asset = await nullWhenReverted(() =>
          context.client.readContract({ abi: vaultAbi, address: valued.vault, functionName: 'asset', cache: 'immutable' }),
        )
        if (asset !== null) {
          if ('assets' in valued) tokens.unshift(asset.toLowerCase())
          const assets =
            'assets' in valued
              ? valued.assets
              : await nullWhenReverted(() =>
                  context.client.readContract({
                    abi: vaultAbi,
                    address: valued.vault,
                    functionName: 'convertToAssets',
                    args: [valued.shares],
                    blockNumber: event.block.number,
                  }),
                )
          if (assets !== null) usd6 = await usd6Of(context, asset.toLowerCase(), assets, event.block)
        }
      }
      await context.db
        .insert(golemAction)
        .values({
          id: `${event.transaction.hash}-${redeemed.index}-${callIndex}`,
          golem: who.redeemer,
          firstKey: who.firstKey,
          kind: action.kind,
          selector: action.selector,
          target: execution.target.toLowerCase() as Hex,
          counterparty: action.counterparty === null ? null : (action.counterparty.toLowerCase() as Hex),
          tokens,
          amounts: action.amounts.map(String),
          value: execution.value,
          usd6,
          delegationHash: who.hash,
          caveats,
          blockNumber: event.block.number,
          timestamp: event.block.timestamp,
          txHash: event.transaction.hash,
          contextIndex: redeemed.index,
          callIndex,
        })
        // The same leaf redeemed twice in one transaction writes both contexts on its first event.
        .onConflictDoNothing()
    }
  }
}
