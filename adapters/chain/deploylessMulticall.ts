// Many view calls at one block in one eth_call, with nothing deployed: the call sets the runtime code of
// contracts/src/reads/DeploylessMulticall.sol at an unused address through its state override (geth's
// third eth_call parameter, which anvil, reth, Erigon, Nethermind and the hosted providers take) and calls
// its `aggregate` there. Not a creation, the way viem's deployless multicall is: nodes hold a creation to
// 49,152 bytes of code (EIP-3860) and 24,576 of returned code (EIP-170) even inside an eth_call, and a
// heartbeat page of 200 Golems sends ~270 KB and reads back more, so a creation would take about six
// requests a page. It needs only the client's `request`, so the tick, the walk and the API read the same
// way whatever client they hold.
import {
  decodeFunctionResult,
  encodeFunctionData,
  numberToHex,
  type AbiStateMutability,
  type Address,
  type Client,
  type ContractFunctionParameters,
  type Hex,
  type MulticallContracts,
  type MulticallResults,
  type Narrow,
} from 'viem'
import { DeploylessMulticallAbi, DeploylessMulticallRuntimeBytecode } from '../../contracts/artifacts/generated/index.ts'
import { decodeRevertData } from './decodeChainError.ts'

/**
 * Where the multicall's code is set for the call: an address with no key and no deployment (the first 20
 * bytes of keccak256("bardo.deploylessMulticall")), so the override shadows nothing.
 */
export const DEPLOYLESS_MULTICALL_ADDRESS: Address = '0x81e7f12175274D71fF5a6c584BcD6a99c534c8Fa'

/**
 * Encoded calls per request. A 200-Golem heartbeat page is about 270 KB, one request; larger batches are
 * split and sent at once, each well inside hosted providers' request-body limits.
 */
export const MAX_MULTICALL_CALLDATA_BYTES = 512 * 1024

/**
 * `etherBalance()`: not a function of any contract, the multicall's own read of an account's ether
 * balance (sent as a call with empty calldata). `etherBalance(account)` names the read.
 */
export const etherBalanceAbi = [
  { type: 'function', name: 'etherBalance', stateMutability: 'view', inputs: [], outputs: [{ name: '', type: 'uint256' }] },
] as const

export const etherBalance = (account: Address) => ({ address: account, abi: etherBalanceAbi, functionName: 'etherBalance' }) as const

export type DeploylessMulticallParameters<contracts extends readonly unknown[], allowFailure extends boolean> = {
  contracts: MulticallContracts<Narrow<contracts>, { mutability: AbiStateMutability }>
  /** With false, the first failed read throws (a ChainReadError naming it); with true, each result says. */
  allowFailure?: allowFailure | boolean
  /** The block every read sees; by default the latest, which a read split in several requests may not share. */
  blockNumber?: bigint
  /** Encoded calls per request; the reads are split in requests of at most this much, sent at once. */
  maxCalldataBytes?: number
}

/** A read of a batch that failed: its revert data (when any) is `data`, which decodeChainError names. */
export class ChainReadError extends Error {
  override name = 'ChainReadError'
  constructor(
    readonly read: { address: Address; functionName: string },
    readonly data: Hex,
    cause?: unknown,
  ) {
    const revert = data === '0x' ? undefined : decodeRevertData(data)
    const why = revert ? `${revert.name}(${revert.args.map(String).join(', ')})` : data === '0x' ? 'no data' : data
    super(`${read.functionName} at ${read.address} failed: ${why}`, cause === undefined ? undefined : { cause })
  }
}

type Read = { address: Address; abi: ContractFunctionParameters['abi']; functionName: string; args?: readonly unknown[] }

/** A read's answer, decoded by the read's ABI; an answer that does not decode is a ChainReadError naming the read. */
export function decodeRead(read: Read, data: Hex): unknown {
  try {
    return decodeFunctionResult({ ...read, data } as never)
  } catch (error) {
    throw new ChainReadError(read, data, error)
  }
}
type Outcome = { status: 'success'; result: unknown } | { status: 'failure'; error: Error }

export async function deploylessMulticall<const contracts extends readonly unknown[], allowFailure extends boolean = true>(
  client: Pick<Client, 'request'>,
  parameters: DeploylessMulticallParameters<contracts, allowFailure>,
): Promise<MulticallResults<Narrow<contracts>, allowFailure>> {
  const reads = parameters.contracts as unknown as readonly Read[]
  const allowFailure = parameters.allowFailure ?? true
  const calls = reads.map((r) => ({
    target: r.address,
    callData: r.abi === etherBalanceAbi ? ('0x' as Hex) : encodeFunctionData(r as ContractFunctionParameters),
  }))
  const chunks = splitByCalldata(calls, parameters.maxCalldataBytes ?? MAX_MULTICALL_CALLDATA_BYTES)
  const block = parameters.blockNumber === undefined ? 'latest' : numberToHex(parameters.blockNumber)
  const answers = (await Promise.all(chunks.map((chunk) => runChunk(client, chunk, block)))).flat()
  const outcomes = reads.map((read, i): Outcome => {
    const answer = answers[i]!
    try {
      if (!answer.success) throw new ChainReadError(read, answer.returnData)
      return { status: 'success', result: decodeRead(read, answer.returnData) }
    } catch (error) {
      return { status: 'failure', error: error as ChainReadError }
    }
  })
  if (allowFailure) return outcomes as MulticallResults<Narrow<contracts>, allowFailure>
  return outcomes.map((o) => {
    if (o.status === 'failure') throw o.error
    return o.result
  }) as MulticallResults<Narrow<contracts>, allowFailure>
}

type Call = { target: Address; callData: Hex }

/** A call's share of the encoded calldata: its offset, target, calldata offset and length, and the calldata in words. */
const encodedBytes = (call: Call) => 128 + Math.ceil((call.callData.length - 2) / 64) * 32

/** Consecutive calls grouped so each group's encoding stays within the limit (a call too large alone goes alone). */
function splitByCalldata(calls: readonly Call[], maxBytes: number): Call[][] {
  const chunks: Call[][] = []
  let size = 0
  for (const call of calls) {
    const bytes = encodedBytes(call)
    if (chunks.length === 0 || size + bytes > maxBytes) {
      chunks.push([])
      size = 0
    }
    chunks.at(-1)!.push(call)
    size += bytes
  }
  return chunks
}

async function runChunk(client: Pick<Client, 'request'>, calls: readonly Call[], block: Hex | 'latest') {
  if (calls.length === 0) return []
  const data = encodeFunctionData({ abi: DeploylessMulticallAbi, functionName: 'aggregate', args: [calls] })
  const answer = await client.request({
    method: 'eth_call',
    params: [
      { to: DEPLOYLESS_MULTICALL_ADDRESS, data },
      block,
      { [DEPLOYLESS_MULTICALL_ADDRESS]: { code: DeploylessMulticallRuntimeBytecode } },
    ],
  })
  // Code at the address always answers, if only an empty list: no data means the node ran the call
  // without the override, and a node that cannot read this way must be named, not read as empty.
  if (answer === '0x')
    throw new Error('deployless multicall: the node answered no data; the RPC endpoint must take eth_call state overrides')
  return decodeFunctionResult({ abi: DeploylessMulticallAbi, functionName: 'aggregate', data: answer })
}
