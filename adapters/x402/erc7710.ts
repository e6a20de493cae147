// The ERC-7710 side of the in-process facilitator: no x402 package verifies or settles
// `assetTransferMethod: "erc7710"`, so Bardo does, against the real DelegationManager. Verify simulates
// the redemption from the settlement account (`redeemDelegations` with one execution, the asset's
// `transfer(payTo, amount)`) and requires that it moves exactly that amount from the payer to payTo;
// settle simulates again, then sends the same redemption from the settlement account with the claim's
// settlement tag appended (the DelegationManager's ABI decoder ignores trailing bytes).
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types'
import {
  BaseError,
  concatHex,
  decodeErrorResult,
  getAddress,
  isAddressEqual,
  isHex,
  parseAbiItem,
  parseEventLogs,
  WaitForTransactionReceiptTimeoutError,
  type Address,
  type Chain,
  type Hex,
  type Log,
  type PublicClient,
  type Transport,
} from 'viem'
import { pollTransactionReceipt } from '../chain/receipts.ts'
import { erc7710RedemptionCalldata } from '../../core/x402/erc7710.ts'
import type { OnChainSettlement, SettlementQuery } from '../../core/x402/facilitator.ts'
import { carriesSettlementTag } from '../../core/x402/settlementTag.ts'

/** The facilitator reasons this module reports (core/x402/errors.ts maps them to codes). */
export const erc7710Reasons = {
  /** The payload is not an ERC-7710 delegation payload, or names another DelegationManager. */
  payload: 'invalid_erc7710_payload',
  /** The redemption reverts when the settlement account simulates or sends it. */
  redemption: 'invalid_erc7710_redemption',
  /** The redemption succeeds but does not move exactly the amount from the payer to payTo. */
  transfer: 'invalid_erc7710_transfer',
} as const

export type Erc7710FacilitatorOptions = {
  publicClient: PublicClient<Transport, Chain>
  /** The settlement account: simulates from this address and sends through `send`. */
  settlementAccount: Address
  /** Sends a transaction from the settlement account (the facilitator's one nonce sequence). */
  send(tx: { to: Address; data: Hex }): Promise<Hex>
  delegationManager: Address
  confirmationTimeoutMs: number
  reconcileLookbackBlocks: bigint
  /** The most gas a redemption may use: the payer's caveats run on the settlement account's gas. */
  maxRedemptionGas: bigint
}

/** A kit delegation (four caveats, a HybridDeleGator signature checked by ERC-1271) redeems for about 220k gas. */
export const DEFAULT_MAX_REDEMPTION_GAS = 1_000_000n

const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)')
const errorString = [parseAbiItem('error Error(string)')]

type Redemption = { delegator: Address; asset: Address; payTo: Address; amount: bigint; data: Hex }

function redemptionOf(payload: PaymentPayload, requirements: PaymentRequirements, delegationManager: Address): Redemption | string {
  const p = payload.payload as { delegationManager?: unknown; permissionContext?: unknown; delegator?: unknown }
  if (typeof p.delegationManager !== 'string' || !isHex(p.delegationManager) || !isAddressEqual(p.delegationManager, delegationManager)) {
    return `payload.delegationManager: must be ${delegationManager}`
  }
  if (typeof p.permissionContext !== 'string' || !isHex(p.permissionContext) || p.permissionContext.length <= 2)
    return 'payload.permissionContext: must be non-empty hex'
  if (typeof p.delegator !== 'string' || !isHex(p.delegator) || p.delegator.length !== 42) return 'payload.delegator: must be an address'
  const asset = getAddress(requirements.asset)
  const payTo = getAddress(requirements.payTo)
  const amount = BigInt(requirements.amount)
  return {
    delegator: getAddress(p.delegator),
    asset,
    payTo,
    amount,
    data: erc7710RedemptionCalldata({ permissionContext: p.permissionContext, asset, payTo, amount }),
  }
}

/** The revert string of a failed call, when it has one (the enforcers revert with require strings). */
function revertReason(error: unknown): string {
  if (error instanceof BaseError) {
    const raw = error.walk((e) => typeof (e as { data?: unknown }).data === 'string') as { data?: Hex } | null
    if (raw?.data !== undefined && isHex(raw.data)) {
      try {
        return String(decodeErrorResult({ abi: errorString, data: raw.data }).args[0])
      } catch {
        return `reverted with ${raw.data.slice(0, 10)}`
      }
    }
    return error.shortMessage
  }
  return error instanceof Error ? error.message : String(error)
}

export function createErc7710Facilitator(o: Erc7710FacilitatorOptions) {
  const { publicClient } = o

  /** Simulates the redemption from the settlement account; null when it moves exactly the amount to payTo. */
  async function simulate(r: Redemption): Promise<{ reason: string; message: string } | null> {
    const { results } = await publicClient.simulateCalls({
      account: o.settlementAccount,
      calls: [{ to: o.delegationManager, data: r.data }],
    })
    const result = results[0]
    if (result === undefined || result.status !== 'success') {
      return { reason: erc7710Reasons.redemption, message: revertReason(result?.error) }
    }
    if (result.gasUsed > o.maxRedemptionGas) {
      return { reason: erc7710Reasons.redemption, message: `the redemption uses ${result.gasUsed} gas, more than ${o.maxRedemptionGas}` }
    }
    const transfers = parseEventLogs({ abi: [transferEvent], logs: (result.logs ?? []) as Log[] }).filter((l) =>
      isAddressEqual(l.address, r.asset),
    )
    const only = transfers.length === 1 ? transfers[0] : undefined
    if (
      only === undefined ||
      !isAddressEqual(only.args.from, r.delegator) ||
      !isAddressEqual(only.args.to, r.payTo) ||
      only.args.value !== r.amount
    ) {
      return {
        reason: erc7710Reasons.transfer,
        message: `the redemption must make exactly one transfer of ${r.amount} from ${r.delegator} to ${r.payTo}; it made ${transfers.length}`,
      }
    }
    return null
  }

  return {
    async verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse> {
      const r = redemptionOf(payload, requirements, o.delegationManager)
      if (typeof r === 'string') return { isValid: false, invalidReason: erc7710Reasons.payload, invalidMessage: r }
      const failed = await simulate(r)
      if (failed) return { isValid: false, invalidReason: failed.reason, invalidMessage: failed.message, payer: r.delegator }
      return { isValid: true, payer: r.delegator }
    },

    async settle(payload: PaymentPayload, requirements: PaymentRequirements, tag: Hex | undefined): Promise<SettleResponse> {
      const network = requirements.network
      const r = redemptionOf(payload, requirements, o.delegationManager)
      if (typeof r === 'string') return { success: false, errorReason: erc7710Reasons.payload, errorMessage: r, transaction: '', network }
      // Re-verified right before sending: a delegation disabled or spent since verify is refused unsent.
      const failed = await simulate(r)
      if (failed) {
        return { success: false, errorReason: failed.reason, errorMessage: failed.message, transaction: '', network, payer: r.delegator }
      }
      const hash = await o.send({ to: o.delegationManager, data: tag === undefined ? r.data : concatHex([r.data, tag]) })
      try {
        const receipt = await pollTransactionReceipt(publicClient, { hash, timeout: o.confirmationTimeoutMs })
        if (receipt.status !== 'success') {
          return {
            success: false,
            errorReason: erc7710Reasons.redemption,
            errorMessage: 'the redemption reverted',
            transaction: hash,
            network,
            payer: r.delegator,
          }
        }
      } catch (error) {
        if (error instanceof WaitForTransactionReceiptTimeoutError) {
          return { success: false, errorReason: 'settlement_pending', transaction: hash, network, payer: r.delegator }
        }
        throw error
      }
      return { success: true, transaction: hash, network, payer: r.delegator }
    },

    /** The successful redemption moving `payer`'s asset whose calldata ends with `tag`, within the lookback. */
    async findSettlement(query: SettlementQuery & { erc7710: { tag: Hex } }): Promise<OnChainSettlement | null> {
      // Uncached: a settlement mined within viem's block-number cache would fall past the search's end.
      const latest = await publicClient.getBlockNumber({ cacheTime: 0 })
      const logs = await publicClient.getLogs({
        address: query.asset,
        event: transferEvent,
        args: { from: query.payer },
        fromBlock: latest > o.reconcileLookbackBlocks ? latest - o.reconcileLookbackBlocks : 0n,
        toBlock: latest,
      })
      for (const log of logs) {
        if (log.transactionHash === null) continue
        const tx = await publicClient.getTransaction({ hash: log.transactionHash })
        if (tx.to === null || !isAddressEqual(tx.to, o.delegationManager) || !carriesSettlementTag(tx.input, query.erc7710.tag)) continue
        const receipt = await publicClient.getTransactionReceipt({ hash: log.transactionHash })
        if (receipt.status !== 'success') continue
        return {
          submitter: getAddress(tx.from),
          input: tx.input,
          txHash: log.transactionHash,
          from: getAddress(log.args.from!),
          to: getAddress(log.args.to!),
          value: log.args.value!,
          blockNumber: receipt.blockNumber,
        }
      }
      return null
    },
  }
}

export type Erc7710Facilitator = ReturnType<typeof createErc7710Facilitator>
