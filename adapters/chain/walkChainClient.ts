// The chain client the heartbeat and the shard walker need: viem's bare client extended with the two
// public actions they call (the minute's block, the node's priority fee); the page's reads are a
// deployless multicall over the client's own `request` (deploylessMulticall.ts). viem's
// public client binds every public action and a bundler keeps them all; these two Lambdas carry only
// these. The type is the public client's own methods, picked, so a full public client (the tests', the
// local stack's) still fits and the compiler refuses a walk that calls anything else until it is added here.
import { createClient, type Chain, type Client, type PublicClient, type Transport } from 'viem'
import { estimateMaxPriorityFeePerGas, getBlock } from 'viem/actions'

/** The public actions the heartbeat and the walker call, and the client's `request` their reads go through. */
export type WalkChainAction = 'estimateMaxPriorityFeePerGas' | 'getBlock' | 'request'

export type WalkChainActions = Pick<PublicClient, WalkChainAction>

export type WalkChainClient = Client<Transport, Chain | undefined> & WalkChainActions

/** Binds the walk's actions to a client, as viem's publicActions binds all of them. */
export function walkChainActions(client: Client<Transport, Chain | undefined>): Omit<WalkChainActions, 'request'> {
  return {
    estimateMaxPriorityFeePerGas: (args) => estimateMaxPriorityFeePerGas(client, args),
    getBlock: (args) => getBlock(client, args),
  }
}

export function createWalkChainClient(parameters: { transport: Transport; chain?: Chain }): WalkChainClient {
  const client = createClient(parameters)
  return Object.assign(client, walkChainActions(client))
}
