// The transaction that revoked a Golem's grant, and when, from the chain's logs: the owner's
// disableDelegation of a delegation in the grant's chain (the DelegationManager's DisabledDelegation), or,
// for a grant made through the wallet's Advanced Permissions, the owner's NonceEnforcer increment that
// used up the grant's nonce (UsedNonce). Asked only once a read finds the grant disabled, over the blocks
// from the deployment's start to the block that read was at.
import { getAbiItem, type Address, type Hex, type PublicClient } from 'viem'
import { RevocationEventsAbi } from '../../core/delegations/frameworkAbi.ts'
import type { GolemReadRequest } from '../../core/lifecycle/observation.ts'

export type GrantRevocation = { at: bigint; txHash: Hex; blockNumber: bigint }

const disabledDelegation = getAbiItem({ abi: RevocationEventsAbi, name: 'DisabledDelegation' })
const usedNonce = getAbiItem({ abi: RevocationEventsAbi, name: 'UsedNonce' })

type Located = { blockNumber: bigint; logIndex: number; transactionHash: Hex }
const order = (a: Located, b: Located) =>
  a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1

/**
 * The revocation in force at `toBlock`: the newest DisabledDelegation of the chain's delegations (one
 * re-enabled and disabled again counts from its last disabling), or the first increment at or past the
 * grant's nonce, whichever came first. Null when the logs show neither (a node still indexing them).
 */
export async function findRevocation(
  client: Pick<PublicClient, 'getLogs' | 'getBlock'>,
  delegationManager: Address,
  request: Pick<GolemReadRequest, 'chainHashes' | 'nonce'>,
  blocks: { fromBlock: bigint; toBlock: bigint },
): Promise<GrantRevocation | null> {
  const nonce = request.nonce
  const [disabled, used] = await Promise.all([
    client.getLogs({
      address: delegationManager,
      event: disabledDelegation,
      args: { delegationHash: [...request.chainHashes] },
      ...blocks,
    }),
    nonce
      ? client.getLogs({ address: nonce.enforcer, event: usedNonce, args: { delegationManager, delegator: nonce.delegator }, ...blocks })
      : Promise.resolve([]),
  ])
  const located = (logs: readonly { blockNumber: bigint | null; logIndex: number | null; transactionHash: Hex | null }[]) =>
    logs.filter((l): l is Located => l.blockNumber !== null && l.logIndex !== null && l.transactionHash !== null).sort(order)
  const lastDisabled = located(disabled).at(-1)
  const firstIncrement = located(used.filter((l) => nonce !== undefined && l.args.nonce !== undefined && l.args.nonce >= nonce.value))[0]
  const revocation = [lastDisabled, firstIncrement].filter((l) => l !== undefined).sort(order)[0]
  if (!revocation) return null
  const block = await client.getBlock({ blockNumber: revocation.blockNumber })
  return { at: block.timestamp, txHash: revocation.transactionHash, blockNumber: revocation.blockNumber }
}
