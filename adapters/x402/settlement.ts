// The in-process x402 facilitator: @x402/core's x402Facilitator with @x402/evm's `exact` scheme,
// verifying with a public client and settling with the operator's wallet (the operator submits
// transferWithAuthorization and pays its gas), and beside it Bardo's own ERC-7710 redemption
// (erc7710.ts) for requirements that say `assetTransferMethod: "erc7710"`. Both send from one account
// through one nonce sequence. No HTTP hop to a third-party facilitator.
import { x402Facilitator } from '@x402/core/facilitator'
import { toFacilitatorEvmSigner, type FacilitatorEvmSigner } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/facilitator'
import {
  concatHex,
  encodeFunctionData,
  getAddress,
  isAddressEqual,
  parseAbiItem,
  parseEventLogs,
  type Account,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem'
import { estimateContractGasWithHeadroom, estimateGasWithHeadroom, withGasHeadroom } from '../chain/gasHeadroom.ts'
import { pollTransactionReceipt } from '../chain/receipts.ts'
import { asksForErc7710 } from '../../core/x402/erc7710.ts'
import type { PaymentFacilitator } from '../../core/x402/facilitator.ts'
import { createErc7710Facilitator, DEFAULT_MAX_REDEMPTION_GAS, erc7710Reasons } from './erc7710.ts'

export type InProcessFacilitatorOptions = {
  publicClient: PublicClient<Transport, Chain>
  /** The operator's wallet: submits transferWithAuthorization and pays the gas. */
  walletClient: WalletClient<Transport, Chain, Account>
  /** CAIP-2 networks served, e.g. ['eip155:8453']. */
  networks: `${string}:${string}`[]
  /** Bound on each receipt wait; keep it under the platform's request deadline. Default 60 s. */
  confirmationTimeoutMs?: number
  /** How far back to search for a settlement when reconciling. Default 50,000 blocks. */
  reconcileLookbackBlocks?: bigint
  /** Verify and settle ERC-7710 payments by redeeming through this DelegationManager (absent: refused). */
  erc7710?: { delegationManager: Address; maxRedemptionGas?: bigint }
}

export type InProcessFacilitator = PaymentFacilitator & { readonly facilitator: x402Facilitator; readonly signerAddress: Address }

/** Signed settlements kept for their requests to take (far above the settlements in flight at once). */
const MAX_SIGNED_KEPT = 1_000

const authorizationUsedEvent = parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)')
const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)')

/**
 * One sender, one nonce sequence: concurrent settles from the operator key would otherwise race for
 * the same account nonce. Only the submission is serialized; receipt waits run in parallel.
 */
function serialized<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  let tail: Promise<unknown> = Promise.resolve()
  return (...args: A) => {
    const run = tail.then(() => fn(...args))
    tail = run.catch(() => undefined)
    return run
  }
}

export function createInProcessFacilitator(options: InProcessFacilitatorOptions): InProcessFacilitator {
  const { publicClient, walletClient } = options
  const account = walletClient.account
  // Settlement tags by authorization (payer, nonce), set for the duration of one settle call; the
  // ledger's claim makes one settle per authorization at a time.
  const tags = new Map<string, Hex>()
  const authKey = (payer: unknown, nonce: unknown) => `${String(payer).toLowerCase()}:${String(nonce).toLowerCase()}`
  // Signed settlements by hash, until the request that sent one takes it to record with its credit.
  const signed = new Map<Hex, Hex>()
  const remember = (hash: Hex, raw: Hex) => {
    signed.set(hash, raw)
    // Bounded: a request that crashed before taking its bytes leaves them here; the oldest go first.
    if (signed.size > MAX_SIGNED_KEPT) signed.delete(signed.keys().next().value as Hex)
  }
  const send = serialized(
    async (args: {
      address: Address
      abi: readonly unknown[]
      functionName: string
      args: readonly unknown[]
      gas?: bigint
      dataSuffix?: Hex
    }) => {
      const tag = args.functionName === 'transferWithAuthorization' ? tags.get(authKey(args.args[0], args.args[5])) : undefined
      const dataSuffix = tag === undefined ? args.dataSuffix : args.dataSuffix === undefined ? tag : concatHex([args.dataSuffix, tag])
      if (account.type === 'local') {
        // Signed here and sent as bytes, so the settlement's signed transaction can be recorded with the
        // credit and broadcast again, unchanged, if a reorg drops it.
        const call = encodeFunctionData({ abi: args.abi, functionName: args.functionName, args: args.args } as never)
        const prepared = await walletClient.prepareTransactionRequest({
          account,
          chain: walletClient.chain,
          to: args.address,
          data: dataSuffix === undefined ? call : concatHex([call, dataSuffix]),
          ...(args.gas === undefined ? {} : { gas: args.gas }),
        } as never)
        // The gas viem filled is the node's exact estimate: sent with headroom. A caller's gas is kept.
        if (args.gas === undefined && prepared.gas !== undefined) prepared.gas = withGasHeadroom(prepared.gas)
        const serializedTransaction = await walletClient.signTransaction(prepared as never)
        const hash = await walletClient.sendRawTransaction({ serializedTransaction })
        remember(hash, serializedTransaction)
        return hash
      }
      const contractCall = {
        address: args.address,
        abi: args.abi as never,
        functionName: args.functionName as never,
        args: args.args as never,
        account,
        ...(dataSuffix === undefined ? {} : { dataSuffix }),
      }
      const gas = args.gas ?? (await estimateContractGasWithHeadroom(walletClient, contractCall as never))
      const hash = await walletClient.writeContract({ ...contractCall, chain: walletClient.chain, gas } as never)
      return hash
    },
  )
  const sendRaw = serialized(async (args: { to: Address; data: Hex }) => {
    const gas = await estimateGasWithHeadroom(walletClient, { account, to: args.to, data: args.data })
    return walletClient.sendTransaction({ to: args.to, data: args.data, account, chain: walletClient.chain, gas })
  })
  const signer: FacilitatorEvmSigner = toFacilitatorEvmSigner(
    {
      address: account.address,
      readContract: (args) => publicClient.readContract(args as never),
      verifyTypedData: (args) => publicClient.verifyTypedData(args as never),
      writeContract: send,
      sendTransaction: sendRaw,
      waitForTransactionReceipt: (args) => pollTransactionReceipt(publicClient, args),
      getCode: (args) => publicClient.getCode(args),
    },
    { confirmationTimeoutMs: options.confirmationTimeoutMs ?? 60_000 },
  )
  // Only v2 and only EIP-3009 assets are in play; registerExactEvmScheme would also add v1 networks.
  const facilitator = new x402Facilitator().register(options.networks, new ExactEvmScheme(signer))
  const lookback = options.reconcileLookbackBlocks ?? 50_000n
  const confirmationTimeoutMs = options.confirmationTimeoutMs ?? 60_000
  const erc7710 =
    options.erc7710 === undefined
      ? undefined
      : createErc7710Facilitator({
          publicClient,
          settlementAccount: account.address,
          send: sendRaw,
          delegationManager: options.erc7710.delegationManager,
          confirmationTimeoutMs,
          reconcileLookbackBlocks: lookback,
          maxRedemptionGas: options.erc7710.maxRedemptionGas ?? DEFAULT_MAX_REDEMPTION_GAS,
        })
  const unsupported = { invalidReason: erc7710Reasons.payload, invalidMessage: 'ERC-7710 payments are not accepted here' }

  return {
    facilitator,
    signerAddress: account.address,
    settlementAccount: account.address,
    takeSignedSettlement(txHash) {
      const raw = signed.get(txHash)
      signed.delete(txHash)
      return raw
    },
    async verify(payload, requirements) {
      if (!asksForErc7710(requirements.extra)) return facilitator.verify(payload, requirements)
      return erc7710 === undefined ? { isValid: false, ...unsupported } : erc7710.verify(payload, requirements)
    },
    async settle(payload, requirements, settleOptions) {
      if (asksForErc7710(requirements.extra)) {
        if (erc7710 === undefined) {
          return {
            success: false,
            errorReason: unsupported.invalidReason,
            errorMessage: unsupported.invalidMessage,
            transaction: '',
            network: requirements.network,
          }
        }
        return erc7710.settle(payload, requirements, settleOptions?.tag)
      }
      const auth = payload.payload.authorization as { from?: unknown; nonce?: unknown } | undefined
      if (settleOptions?.tag === undefined || auth === undefined) return facilitator.settle(payload, requirements)
      const key = authKey(auth.from, auth.nonce)
      tags.set(key, settleOptions.tag)
      try {
        return await facilitator.settle(payload, requirements)
      } finally {
        tags.delete(key)
      }
    },
    async findSettlement(query) {
      const { asset, payer, nonce } = query
      if (query.erc7710 !== undefined) return erc7710 === undefined ? null : erc7710.findSettlement({ ...query, erc7710: query.erc7710 })
      // Uncached: viem keeps a block number for its polling interval, and a settlement mined within it
      // would fall past the search's end and be reported as never sent.
      const latest = await publicClient.getBlockNumber({ cacheTime: 0 })
      const logs = await publicClient.getLogs({
        address: asset,
        event: authorizationUsedEvent,
        args: { authorizer: payer, nonce },
        fromBlock: latest > lookback ? latest - lookback : 0n,
        toBlock: latest,
      })
      for (const log of logs) {
        if (log.transactionHash === null) continue
        const receipt = await publicClient.getTransactionReceipt({ hash: log.transactionHash })
        if (receipt.status !== 'success') continue
        const transfers = parseEventLogs({ abi: [transferEvent], logs: receipt.logs.filter((l) => isAddressEqual(l.address, asset)) })
        // The Transfer that the same call emitted right after AuthorizationUsed.
        const transfer = transfers.find((t) => t.logIndex > log.logIndex! && isAddressEqual(t.args.from, payer))
        if (!transfer) continue
        const tx = await publicClient.getTransaction({ hash: receipt.transactionHash })
        return {
          submitter: getAddress(tx.from),
          input: tx.input,
          txHash: receipt.transactionHash,
          from: getAddress(transfer.args.from),
          to: getAddress(transfer.args.to),
          value: transfer.args.value,
          blockNumber: receipt.blockNumber,
        }
      }
      return null
    },
  }
}
