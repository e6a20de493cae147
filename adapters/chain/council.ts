// The council's chain edge: read each seat's standing from the VitalityOracle, pre-check the action as
// the council would redeem it, submit the k-signed user operation to EntryPoint.handleOps, and find
// out afterwards whether a proposal's user operation ran.
import {
  BaseError,
  decodeErrorResult,
  decodeEventLog,
  type Account,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem'
import { entryPoint07Abi, getUserOperationHash, toPackedUserOperation } from 'viem/account-abstraction'
import * as artifacts from '../../contracts/artifacts/index.ts'
import type { CouncilMember, MemberStanding } from '../../core/council/membership.ts'
import { checkCouncilProposal, type CouncilProposal } from '../../core/council/proposal.ts'
import type { CouncilExecutionFinding } from '../../core/council/reconcile.ts'
import { encodeRedemptions } from '../../core/delegations/redeem.ts'
import type { GolemStatus } from '../../core/store/records.ts'
import { decodeChainError, decodeRevertData, type DecodedChainError } from './decodeChainError.ts'

/** What custody knows of a seat's Golem; undefined when it has no record. */
export type CustodyStanding = (golemId: string) => Promise<{ lifecycle: GolemStatus; currentKey: Address } | undefined>

/** Each seat's standing, keyed by lowercase signer: the oracle's view of the signer key and custody's of the Golem. */
export async function readCouncilStandings(p: {
  publicClient: PublicClient
  vitalityOracle: Address
  members: readonly CouncilMember[]
  custody: CustodyStanding
}): Promise<Map<string, MemberStanding>> {
  const out = new Map<string, MemberStanding>()
  await Promise.all(
    p.members.map(async (m) => {
      const [state, custody] = await Promise.all([
        p.publicClient.readContract({
          address: p.vitalityOracle,
          abi: artifacts.VitalityOracleAbi,
          functionName: 'getState',
          args: [m.signer],
        }),
        p.custody(m.golemId),
      ])
      if (!custody) return
      out.set(m.signer.toLowerCase(), {
        registered: state.registered,
        dead: state.dead,
        phase: state.phase,
        lifecycle: custody.lifecycle,
        currentKey: custody.currentKey,
      })
    }),
  )
  return out
}

/**
 * Runs the council's redemption as an eth_call from the council's account: a refusal by a caveat comes
 * back named before anything is signed on-chain or any nonce is spent.
 */
export async function precheckCouncilAction(publicClient: PublicClient, proposal: CouncilProposal): Promise<DecodedChainError | undefined> {
  const data = encodeRedemptions([{ chain: [proposal.delegation], executions: [proposal.action] }])
  try {
    await publicClient.call({ account: proposal.council, to: proposal.delegationManager, data })
    return undefined
  } catch (error) {
    const decoded = decodeChainError(error)
    if (decoded) return decoded
    throw error
  }
}

export type CouncilSubmission =
  | { status: 'executed'; txHash: Hex; userOpHash: Hex; blockNumber: bigint }
  /** The user operation ran and its call reverted (its nonce is spent; it can never run again). */
  | { status: 'reverted'; txHash: Hex; userOpHash: Hex; blockNumber: bigint; refusal: DecodedChainError | undefined }
  /** The EntryPoint refused the operation before running it (signatures, nonce): nothing was sent. */
  | { status: 'rejected'; reason: string }

/** Submits the proposal with its aggregated signature through EntryPoint.handleOps from `submitter`. */
export async function submitCouncilProposal(p: {
  publicClient: PublicClient
  submitter: WalletClient<Transport, Chain, Account>
  proposal: CouncilProposal
  signature: Hex
}): Promise<CouncilSubmission> {
  const { proposal } = p
  // Never send an operation that is not the action the proposal states.
  checkCouncilProposal(proposal)
  const op = { ...proposal.userOperation, signature: p.signature }
  const userOpHash = getUserOperationHash({
    userOperation: op,
    entryPointAddress: proposal.entryPoint,
    entryPointVersion: '0.7',
    chainId: proposal.chainId,
  })
  const args = [[toPackedUserOperation(op)], p.submitter.account.address] as const
  try {
    await p.publicClient.simulateContract({
      account: p.submitter.account,
      address: proposal.entryPoint,
      abi: entryPoint07Abi,
      functionName: 'handleOps',
      args,
    })
  } catch (error) {
    return { status: 'rejected', reason: failedOpReason(error) }
  }
  const txHash = await p.submitter.writeContract({ address: proposal.entryPoint, abi: entryPoint07Abi, functionName: 'handleOps', args })
  const receipt = await p.publicClient.waitForTransactionReceipt({ hash: txHash })
  if (receipt.status !== 'success') return { status: 'rejected', reason: `handleOps ${txHash} reverted` }
  let success = false
  let refusal: DecodedChainError | undefined
  for (const log of receipt.logs) {
    if (log.address.toLowerCase() !== proposal.entryPoint.toLowerCase()) continue
    try {
      const event = decodeEventLog({ abi: entryPoint07Abi, data: log.data, topics: log.topics })
      if (event.eventName === 'UserOperationEvent' && event.args.userOpHash === userOpHash) success = event.args.success
      if (event.eventName === 'UserOperationRevertReason' && event.args.userOpHash === userOpHash)
        refusal = decodeRevertData(event.args.revertReason)
    } catch {
      // Logs of other events (deposits, BeforeExecution) are not ours to read.
    }
  }
  const base = { txHash, userOpHash, blockNumber: receipt.blockNumber }
  return success ? { status: 'executed', ...base } : { status: 'reverted', ...base, refusal }
}

/** The hash the EntryPoint gives the proposal's user operation (it leaves the signature out, so one per proposal). */
export function councilUserOpHash(proposal: CouncilProposal): Hex {
  return getUserOperationHash({
    userOperation: { ...proposal.userOperation, signature: '0x' },
    entryPointAddress: proposal.entryPoint,
    entryPointVersion: '0.7',
    chainId: proposal.chainId,
  })
}

/** How far back a lookup searches when the claim recorded no block, and the widest single eth_getLogs. */
export const COUNCIL_LOOKBACK_BLOCKS = 50_000n
const LOG_RANGE = 10_000n

/**
 * Whether the proposal's user operation ran: the EntryPoint's UserOperationEvent by its hash (a
 * topic-filtered eth_getLogs from `fromBlock`, in bounded ranges), with the named refusal if its call
 * reverted; if none is found, the EntryPoint's nonce for the proposal's key says whether it never ran.
 */
export async function findCouncilExecution(p: {
  publicClient: PublicClient
  proposal: CouncilProposal
  fromBlock?: bigint | undefined
}): Promise<CouncilExecutionFinding> {
  const { proposal } = p
  const userOpHash = councilUserOpHash(proposal)
  // Uncached: a block number remembered from a few seconds ago would end the search before the operation.
  const latest = await p.publicClient.getBlockNumber({ cacheTime: 0 })
  const start = p.fromBlock ?? (latest > COUNCIL_LOOKBACK_BLOCKS ? latest - COUNCIL_LOOKBACK_BLOCKS : 0n)
  for (let from = start; from <= latest; from += LOG_RANGE) {
    const to = from + LOG_RANGE - 1n < latest ? from + LOG_RANGE - 1n : latest
    const [event] = await p.publicClient.getContractEvents({
      address: proposal.entryPoint,
      abi: entryPoint07Abi,
      eventName: 'UserOperationEvent',
      args: { userOpHash },
      fromBlock: from,
      toBlock: to,
    })
    if (!event) continue
    const base = { txHash: event.transactionHash, userOpHash, blockNumber: event.blockNumber }
    if (event.args.success) return { status: 'executed', ...base }
    const [reason] = await p.publicClient.getContractEvents({
      address: proposal.entryPoint,
      abi: entryPoint07Abi,
      eventName: 'UserOperationRevertReason',
      args: { userOpHash },
      blockHash: event.blockHash,
    })
    const refusal = reason?.args.revertReason === undefined ? undefined : decodeRevertData(reason.args.revertReason)
    return { status: 'reverted', ...base, refusal: refusal && { name: refusal.name, args: refusal.args.map(String) } }
  }
  const key = proposal.userOperation.nonce >> 64n
  const nonce = await p.publicClient.readContract({
    address: proposal.entryPoint,
    abi: entryPoint07Abi,
    functionName: 'getNonce',
    args: [proposal.council, key],
  })
  if (nonce === proposal.userOperation.nonce) return { status: 'not-run' }
  return {
    status: 'unknown',
    reason: `the nonce key is used (now ${nonce}) but no UserOperationEvent for ${userOpHash} from block ${start}`,
  }
}

/** The EntryPoint's FailedOp reason ("AA24 signature error"), or the first line of the error. */
function failedOpReason(error: unknown): string {
  let data: Hex | undefined
  if (error instanceof BaseError)
    error.walk((e) => {
      const d = (e as { data?: unknown; raw?: unknown }).raw ?? (e as { data?: unknown }).data
      if (typeof d === 'string' && d.startsWith('0x')) data = d as Hex
      return data !== undefined
    })
  if (data) {
    try {
      const decoded = decodeErrorResult({ abi: entryPoint07Abi, data })
      const args = (decoded.args ?? []) as readonly unknown[]
      return `${decoded.errorName}: ${args.filter((a) => typeof a === 'string').join(' ')}`.trim()
    } catch {
      // not an EntryPoint error
    }
  }
  if (error instanceof BaseError && error.cause instanceof BaseError && 'errorName' in error.cause)
    return String((error.cause as { errorName: unknown }).errorName)
  return (error as Error).message.split('\n')[0] ?? 'handleOps refused'
}
