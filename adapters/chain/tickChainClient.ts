// The chain client a tick needs: viem's bare client extended with only the public actions a tick calls.
// viem's public client binds every public action (ENS, filters, watchers, simulation, signature checks),
// and a bundler keeps them all, about 300 KB minified; a Lambda that ticks carries only these. The type
// is the public client's own methods, picked (estimateGas narrowed to a call from an address), so a full
// public client (the tests', the local stack's) still fits and the compiler refuses a tick that calls
// anything else until it is added here. Its batched reads are deploylessMulticall.ts, over `request`.
import {
  createClient,
  encodeFunctionData,
  numberToHex,
  type Address,
  type BaseError,
  type Chain,
  type Client,
  type Hex,
  type PublicClient,
  type Transport,
} from 'viem'
import { estimateFeesPerGas, getBlock, getTransaction, getTransactionCount, getTransactionReceipt, sendRawTransaction } from 'viem/actions'
import { decodeRead } from './deploylessMulticall.ts'
import { formatTransactionRequest, getEstimateGasError } from 'viem/utils'

/** The public actions a tick calls: its reads, its gas and fee estimates, its broadcast and receipts. */
export type TickChainAction =
  | 'estimateFeesPerGas'
  | 'estimateGas'
  | 'getBalance'
  | 'getBlock'
  | 'getTransaction'
  | 'getTransactionCount'
  | 'getTransactionReceipt'
  | 'readContract'
  | 'sendRawTransaction'

/** A gas estimate for a call from an address the tick names (a Golem key, the operator): never a local account. */
export type TickGasEstimate = { account: Address; to: Address; data?: Hex; value?: bigint }

export type TickChainActions = Pick<PublicClient, Exclude<TickChainAction, 'estimateGas'>> & {
  estimateGas(args: TickGasEstimate): Promise<bigint>
}

/**
 * `eth_estimateGas` from an address, failing with viem's own EstimateGasExecutionError (so a revert
 * decodes as before). viem's estimateGas first fills the transaction as a wallet would
 * (prepareTransactionRequest), which a call from a named address does not need and which is 12 KB of a
 * tick's bundle.
 */
export async function estimateGasFrom(client: Client<Transport, Chain | undefined>, args: TickGasEstimate): Promise<bigint> {
  const request = formatTransactionRequest({ from: args.account, to: args.to, data: args.data, value: args.value })
  try {
    return BigInt(await client.request({ method: 'eth_estimateGas', params: [request] }))
  } catch (error) {
    throw getEstimateGasError(error as BaseError, {
      account: { address: args.account, type: 'json-rpc' },
      chain: client.chain,
      to: args.to,
      data: args.data,
      value: args.value,
    })
  }
}

type BlockParameter = { blockNumber?: bigint | undefined; blockTag?: string | undefined }
type ContractRead = { address: Address; abi: readonly unknown[]; functionName: string; args?: readonly unknown[] } & BlockParameter
const blockOf = (p: BlockParameter) => (p.blockNumber === undefined ? (p.blockTag ?? 'latest') : numberToHex(p.blockNumber)) as Hex

/**
 * A view's answer, decoded: one `eth_call` to the contract. viem's readContract goes through its `call`
 * action, which carries the deployless-call bytecodes, offchain lookups (CCIP-read) and call batching a
 * tick never uses: about 40 KB of a tick's bundle with getBalance's multicall path. A revert fails with
 * the node's error, whose revert data decodeChainError names; an answer that does not decode (no code at
 * the address) is a ChainReadError naming the read.
 */
export async function readContractOf(client: Client<Transport, Chain | undefined>, read: ContractRead): Promise<unknown> {
  const data = encodeFunctionData(read as Parameters<typeof encodeFunctionData>[0])
  const answer = await client.request({ method: 'eth_call', params: [{ to: read.address, data }, blockOf(read)] })
  return decodeRead(read as Parameters<typeof decodeRead>[0], answer)
}

/** An account's ether balance: `eth_getBalance`, without viem's getBalance and its multicall path. */
export async function balanceOf(
  client: Client<Transport, Chain | undefined>,
  args: { address: Address } & BlockParameter,
): Promise<bigint> {
  return BigInt(await client.request({ method: 'eth_getBalance', params: [args.address, blockOf(args)] }))
}

export type TickChainClient = Client<Transport, Chain | undefined> & TickChainActions

/** Binds the tick's actions to a client, as viem's publicActions binds all of them. */
export function tickChainActions(client: Client<Transport, Chain | undefined>): TickChainActions {
  return {
    estimateFeesPerGas: (args) => estimateFeesPerGas(client, args),
    estimateGas: (args) => estimateGasFrom(client, args),
    getBalance: (args) => balanceOf(client, args),
    getBlock: (args) => getBlock(client, args),
    getTransaction: (args) => getTransaction(client, args),
    getTransactionCount: (args) => getTransactionCount(client, args),
    getTransactionReceipt: (args) => getTransactionReceipt(client, args),
    readContract: ((args: ContractRead) => readContractOf(client, args)) as PublicClient['readContract'],
    sendRawTransaction: (args) => sendRawTransaction(client, args),
  }
}

export function createTickChainClient(parameters: { transport: Transport; chain?: Chain }): TickChainClient {
  // Not `extend`: viem requires an extension's estimateGas to take every estimateGas parameter.
  const client = createClient(parameters)
  return Object.assign(client, tickChainActions(client))
}
