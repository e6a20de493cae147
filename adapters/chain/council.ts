// The council's chain edge: where a council's MultiSig DeleGator is (counterfactually) and how it is
// deployed, read each seat's standing from the VitalityOracle, pre-check the action as the council would
// redeem it, submit the k-signed user operation to EntryPoint.handleOps, name the signatures the
// council's contract refuses, and find out afterwards whether a proposal's user operation ran.
import { ERC1967Proxy as ERC1967ProxyBytecode } from '@metamask/delegation-abis/bytecode'
import type { SmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import {
  BaseError,
  decodeErrorResult,
  decodeEventLog,
  encodeDeployData,
  encodeFunctionData,
  getContractAddress,
  isAddressEqual,
  pad,
  recoverTypedDataAddress,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  type Account,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
  type Transport,
  type WalletClient,
} from 'viem'
import { entryPoint07Abi, getUserOperationHash, toPackedUserOperation } from 'viem/account-abstraction'
import * as artifacts from '../../contracts/artifacts/index.ts'
import type { CouncilMember, MemberStanding } from '../../core/council/membership.ts'
import { checkCouncilProposal, councilProposalTypedData, type CouncilGas, type CouncilProposal } from '../../core/council/proposal.ts'
import { councilSignatureRule, type CouncilSignature } from '../../core/council/signatures.ts'
import type { CouncilExecutionFinding } from '../../core/council/reconcile.ts'
import { encodeRedemptions } from '../../core/delegations/redeem.ts'
import { ERC1967ProxyConstructorAbi, MultiSigDeleGatorAbi, SimpleFactoryAbi } from '../../core/delegations/frameworkAbi.ts'
import type { GolemStatus } from '../../core/store/records.ts'
import { decodeChainError, decodeRevertData, type DecodedChainError } from './decodeChainError.ts'
import { estimateContractGasWithHeadroom } from './gasHeadroom.ts'

/**
 * The council's MultiSig DeleGator: its address (a function of the signers, the threshold and the salt
 * alone, through the kit's SimpleFactory) and the factory call that deploys it there. Anyone may send
 * that call; whoever does cannot change what is deployed. Computed as the kit's counterfactual account
 * data computes it (an ERC1967 proxy to the MultiSig implementation, initialized with the signers and
 * the threshold, CREATE2'd by the factory with the salt left-padded to 32 bytes), from the few framework
 * entries it needs: the kit's own helper carries every framework ABI into the bundle.
 */
export async function councilAccountOf(p: {
  environment: SmartAccountsEnvironment
  signers: readonly Address[]
  threshold: number
  salt: Hex
}): Promise<{ address: Address; factory: Address; factoryData: Hex }> {
  const factory = p.environment.SimpleFactory
  const implementation = p.environment.implementations.MultiSigDeleGatorImpl
  if (!implementation) throw new Error('MultiSigDeleGatorImpl address not provided in environment')
  const initcode = encodeFunctionData({
    abi: MultiSigDeleGatorAbi,
    functionName: 'initialize',
    args: [[...p.signers], BigInt(p.threshold)],
  })
  const salt = pad(p.salt, { dir: 'left', size: 32 })
  const creationCode = encodeDeployData({
    abi: ERC1967ProxyConstructorAbi,
    args: [implementation, initcode],
    bytecode: ERC1967ProxyBytecode,
  })
  const address = getContractAddress({ bytecode: creationCode, from: factory, opcode: 'CREATE2', salt })
  const factoryData = encodeFunctionData({ abi: SimpleFactoryAbi, functionName: 'deploy', args: [creationCode, salt] })
  return { address, factory, factoryData }
}

/**
 * The council's user-operation gas: generous fixed limits (every member signs them, so no bundler
 * estimates them later) at the chain's current fees.
 */
export async function councilGas(publicClient: PublicClient): Promise<CouncilGas> {
  const fees = await publicClient.estimateFeesPerGas()
  return {
    callGasLimit: 1_500_000n,
    verificationGasLimit: 1_000_000n,
    preVerificationGas: 100_000n,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  }
}

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
  /**
   * The EntryPoint refused the operation in simulation: nothing was sent. `cause` says what it refused:
   * a signature (AA23 a recovery that reverted, AA24 a signature that does not validate), the nonce
   * (AA25: this proposal's key is used, so it ran already), or anything else.
   */
  | { status: 'rejected'; reason: string; cause: 'signature' | 'nonce' | 'other' }
  /**
   * It was sent (or may have been: the send itself failed) and its outcome is not known: the receipt did
   * not come in time, or the transaction reverted without running it. The chain settles it later, by
   * `txHash` when there is one, else by the user operation's hash and nonce.
   */
  | { status: 'pending'; txHash?: Hex; userOpHash?: Hex; reason: string }

/** What the submission tells its caller as soon as the transaction is handed to the chain. */
export type CouncilSent = { txHash: Hex; userOpHash: Hex }

/**
 * Submits the proposal with its aggregated signature through EntryPoint.handleOps from `submitter`.
 * It reports `rejected` only when nothing was sent: once the transaction may be out, the outcome is the
 * chain's to say, so a receipt that does not come in `receiptTimeoutMs` answers `pending`, never a refusal.
 */
export async function submitCouncilProposal(p: {
  publicClient: PublicClient
  submitter: WalletClient<Transport, Chain, Account>
  proposal: CouncilProposal
  signature: Hex
  /** Called once the transaction has its hash, before waiting for its receipt. */
  onSent?: (sent: CouncilSent) => Promise<void>
  /** How long to wait for the receipt (viem's default when unset). */
  receiptTimeoutMs?: number
}): Promise<CouncilSubmission> {
  const { proposal } = p
  const op = { ...proposal.userOperation, signature: p.signature }
  const userOpHash = getUserOperationHash({
    userOperation: op,
    entryPointAddress: proposal.entryPoint,
    entryPointVersion: '0.7',
    chainId: proposal.chainId,
  })
  const args = [[toPackedUserOperation(op)], p.submitter.account.address] as const
  try {
    // Never send an operation that is not the action the proposal states.
    checkCouncilProposal(proposal)
    await p.publicClient.simulateContract({
      account: p.submitter.account,
      address: proposal.entryPoint,
      abi: entryPoint07Abi,
      functionName: 'handleOps',
      args,
    })
  } catch (error) {
    const reason = failedOpReason(error)
    return { status: 'rejected', reason, cause: /\bAA2[34]\b/.test(reason) ? 'signature' : /\bAA25\b/.test(reason) ? 'nonce' : 'other' }
  }
  let txHash: Hex
  try {
    const handleOps = { address: proposal.entryPoint, abi: entryPoint07Abi, functionName: 'handleOps', args } as const
    // The user operation's own limits are fixed; the transaction carrying it is estimated, with headroom.
    const gas = await estimateContractGasWithHeadroom(p.submitter, handleOps)
    txHash = await p.submitter.writeContract({ ...handleOps, gas })
  } catch (error) {
    return { status: 'pending', userOpHash, reason: `the send failed, it may still be out: ${firstLine(error)}` }
  }
  await p.onSent?.({ txHash, userOpHash })
  let receipt: TransactionReceipt
  try {
    receipt = await p.publicClient.waitForTransactionReceipt({
      hash: txHash,
      ...(p.receiptTimeoutMs === undefined ? {} : { timeout: p.receiptTimeoutMs }),
    })
  } catch (error) {
    return { status: 'pending', txHash, userOpHash, reason: `no receipt yet: ${firstLine(error)}` }
  }
  const outcome = userOperationOutcome(receipt, proposal.entryPoint, userOpHash)
  if (!outcome) return { status: 'pending', txHash, userOpHash, reason: `handleOps ${txHash} did not run it (status ${receipt.status})` }
  const base = { txHash, userOpHash, blockNumber: receipt.blockNumber }
  return outcome.success ? { status: 'executed', ...base } : { status: 'reverted', ...base, refusal: outcome.refusal }
}

/**
 * The user operation's UserOperationEvent in a receipt, and its named refusal when its call reverted;
 * undefined when the transaction did not run it (reverted, or another operation).
 */
function userOperationOutcome(
  receipt: TransactionReceipt,
  entryPoint: Address,
  userOpHash: Hex,
): { success: boolean; refusal: DecodedChainError | undefined } | undefined {
  if (receipt.status !== 'success') return undefined
  let success: boolean | undefined
  let refusal: DecodedChainError | undefined
  for (const log of receipt.logs) {
    if (log.address.toLowerCase() !== entryPoint.toLowerCase()) continue
    try {
      const event = decodeEventLog({ abi: entryPoint07Abi, data: log.data, topics: log.topics })
      if (event.eventName === 'UserOperationEvent' && event.args.userOpHash === userOpHash) success = event.args.success
      if (event.eventName === 'UserOperationRevertReason' && event.args.userOpHash === userOpHash)
        refusal = decodeRevertData(event.args.revertReason)
    } catch {
      // Logs of other events (deposits, BeforeExecution) are not ours to read.
    }
  }
  return success === undefined ? undefined : { success, refusal }
}

/**
 * Which of `signatures` the chain refuses for this proposal, and why: each must be one the chain's
 * ECDSA recovery takes (councilSignatureRule), recover to its signer over the proposal's typed data,
 * and its signer must be a signer of the council's MultiSigDeleGator now (the council may have replaced
 * it). These are the MultiSigDeleGator's own checks, asked one signature at a time, so the signer whose
 * signature made the EntryPoint refuse an aggregate is named and the rest can still run.
 */
export async function findCouncilSignatureFaults(p: {
  publicClient: PublicClient
  proposal: CouncilProposal
  signatures: readonly CouncilSignature[]
}): Promise<{ signer: Address; rule: string }[]> {
  const faults = await Promise.all(
    p.signatures.map(async ({ signer, signature }) => {
      const rule = councilSignatureRule(signature)
      if (rule) return { signer, rule: `signature: ${rule}` }
      const recovered = await recoverTypedDataAddress({ ...councilProposalTypedData(p.proposal), signature }).catch(() => undefined)
      if (!recovered || !isAddressEqual(recovered, signer)) return { signer, rule: 'signature: does not recover to its signer' }
      const seated = await p.publicClient.readContract({
        address: p.proposal.council,
        abi: MultiSigDeleGatorAbi,
        functionName: 'isSigner',
        args: [signer],
      })
      return seated ? undefined : { signer, rule: `signer: ${signer} is not a signer of the council ${p.proposal.council} on-chain` }
    }),
  )
  return faults.filter((f) => f !== undefined)
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
 * Whether the proposal's user operation ran. With the hash of the transaction that was sent, its
 * receipt first: mined and running the operation, that is the answer; not mined and still known to the
 * node, it is pending. Otherwise the EntryPoint's UserOperationEvent by the operation's hash (a
 * topic-filtered eth_getLogs from `fromBlock`, in bounded ranges), with the named refusal if its call
 * reverted; if none is found, the EntryPoint's nonce for the proposal's key says whether it never ran.
 */
export async function findCouncilExecution(p: {
  publicClient: PublicClient
  proposal: CouncilProposal
  fromBlock?: bigint | undefined
  txHash?: Hex | undefined
}): Promise<CouncilExecutionFinding> {
  const { proposal } = p
  const userOpHash = councilUserOpHash(proposal)
  if (p.txHash !== undefined) {
    const receipt = await p.publicClient.getTransactionReceipt({ hash: p.txHash }).catch(notFound(TransactionReceiptNotFoundError))
    if (receipt) {
      const outcome = userOperationOutcome(receipt, proposal.entryPoint, userOpHash)
      const base = { txHash: p.txHash, userOpHash, blockNumber: receipt.blockNumber }
      if (outcome?.success) return { status: 'executed', ...base }
      if (outcome)
        return {
          status: 'reverted',
          ...base,
          refusal: outcome.refusal && { name: outcome.refusal.name, args: outcome.refusal.args.map(String) },
        }
      // Mined without running it (another transaction may have): the events and the nonce say.
    } else if (await p.publicClient.getTransaction({ hash: p.txHash }).catch(notFound(TransactionNotFoundError))) {
      return { status: 'pending', txHash: p.txHash }
    }
  }
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

/** A catch handler that turns viem's "not found" into undefined and rethrows anything else (an RPC that is down). */
const notFound =
  (kind: new (...args: never[]) => Error) =>
  (error: unknown): undefined => {
    if (error instanceof kind) return undefined
    throw error
  }

const firstLine = (error: unknown): string => (error as Error).message.split('\n')[0] ?? 'failed'

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
  return firstLine(error)
}
