// Step 3 of the death protocol: the key's unspent funds go home to the owner's account, token first,
// ETH last, each return a store slot (sendOnce), so a crash after a broadcast settles that very
// transfer from the chain instead of sending a second one. An asset with nothing to send, or a
// transfer the chain refuses, is settled too (its slot completed with the record's line), so a resumed
// protocol after the key is zeroed still writes the same record.
import { encodeFunctionData, erc20Abi, isAddressEqual, parseEventLogs, type Address, type Hex } from 'viem'
import type { TickChainClient } from '../../adapters/chain/tickChainClient.ts'
import { ownerOf } from '../../core/custody/golemPolicy.ts'
import { feesPerGasOf, type TickFees } from '../../core/fees.ts'
import type { GolemSigner } from '../../core/custody/golemSigner.ts'
import {
  MAX_RETURN_ATTEMPTS,
  nativeReturnValue,
  returnAssets,
  returnedLine,
  returnStep,
  tokenReturnDecision,
  unsentLine,
  type FundsReturn,
  type ReturnAsset,
} from '../../core/lifecycle/deathPlan.ts'
import type { GolemProfile } from '../../core/lifecycle/profile.ts'
import { RETRY, retry } from '../../core/retry.ts'
import type { JsonInputObject, SlotRef, TickSlot } from '../../core/store/index.ts'
import { sendOnce } from '../../adapters/chain/sendOnce.ts'
import type { SlotBase } from './slots.ts'
import type { TickDeps } from './types.ts'

export type ReturnOutcome = { done: true; lines: FundsReturn[] } | { done: false; reason: string }

/** The gas limit sendOnce signs with (its estimate plus 30%), times the fee cap: the most a transfer can cost. */
export const maxGasCost = (estimate: bigint, maxFeePerGas: bigint) => ((estimate * 13n) / 10n) * maxFeePerGas

/**
 * Returns every asset, or reports the protocol pending. `signer` is null once the key is zeroed: every
 * return was settled before that, so only the slots are read. It is resolved only when there is
 * something to send, so an empty key dies without its signer.
 */
export async function returnFunds(
  deps: TickDeps,
  slotBase: SlotBase,
  golemId: string,
  profile: GolemProfile,
  signer: (() => Promise<GolemSigner>) | null,
  /** The slot of each attempt: the death protocol's by default; a rotation names its own. */
  stepOf: (asset: ReturnAsset, attempt: number) => string = returnStep,
): Promise<ReturnOutcome> {
  const lines: FundsReturn[] = []
  for (const asset of returnAssets(profile)) {
    const line = await returnAsset(deps, slotBase, golemId, profile, asset, signer, stepOf)
    if ('pending' in line) return { done: false, reason: line.pending }
    lines.push(line)
  }
  return { done: true, lines }
}

async function returnAsset(
  deps: TickDeps,
  slotBase: SlotBase,
  golemId: string,
  profile: GolemProfile,
  asset: ReturnAsset,
  resolveSigner: (() => Promise<GolemSigner>) | null,
  stepOf: (asset: ReturnAsset, attempt: number) => string,
): Promise<FundsReturn | { pending: string }> {
  const { client, store } = deps
  const key = profile.golemKey
  const owner = ownerOf(profile)
  const exhausted = () => ({ pending: `return ${describe(asset)}: no attempt settled` })
  return retry<FundsReturn | { pending: string }>({ attempts: MAX_RETURN_ATTEMPTS, exhausted }, async (attempt) => {
    const slot: SlotRef = { golemId, period: 0n, step: stepOf(asset, attempt) }
    const existing = await store.getSlot(slot)
    const settled = existing ? await settledLine(client, asset, key, existing) : null
    if (settled === 'next') return RETRY
    if (settled) return settled
    if (!resolveSigner) return { pending: `return ${describe(asset)}: the key is zeroed with its return unsettled` }

    if (!existing) {
      // Nothing sent yet for this attempt: decide from the balances on-chain now.
      const unsent = await unsentDecision(client, asset, key, owner, deps.fees)
      if (unsent) {
        await settleWithoutTx(deps, slotBase, slot, unsent)
        return unsent
      }
    }
    const signer = await resolveSigner()
    const sent = await sendOnce({
      ...slotBase,
      slot,
      afterBroadcast: () => deps.afterBroadcast?.(asset.kind === 'native' ? 'return-native' : 'return-token'),
      build: async () =>
        asset.kind === 'token'
          ? {
              sender: key,
              to: asset.token,
              data: encodeFunctionData({
                abi: erc20Abi,
                functionName: 'transfer',
                args: [owner, await tokenBalance(client, asset.token, key)],
              }),
              sign: (tx) => signer.signTokenReturn(tx),
            }
          : await nativeBuild(client, key, owner, signer),
    })
    if (sent.status === 'confirmed') return lineFromChain(client, asset, key, sent.txHash)
    if (sent.status === 'busy' && sent.reason === 'completed') {
      const now = await store.getSlot(slot)
      const line = now ? await settledLine(client, asset, key, now) : null
      if (line === 'next') return RETRY
      if (line) return line
      return { pending: `return ${describe(asset)}: slot completed without a record` }
    }
    if (sent.status === 'busy') return { pending: `return ${describe(asset)}: another tick holds it` }
    if (sent.status === 'pending') return { pending: `return ${describe(asset)}: ${sent.confirmations} of ${sent.needed} confirmations` }
    if (sent.status === 'reconciled') return RETRY
    // A refusal or a revert is the chain's answer, not a transient fault: the funds stay on the key and
    // the record says so, rather than holding the death open forever.
    const amount = asset.kind === 'native' ? await client.getBalance({ address: key }) : await tokenBalance(client, asset.token, key)
    const reason = sent.status === 'refused' ? sent.reason : `reverted: ${sent.reason}`
    const line =
      sent.status === 'refused' && sent.reason.startsWith('value:')
        ? unsentLine(asset, 'empty', 0n, "dust below the transfer's own gas")
        : unsentLine(asset, 'stranded', amount, reason)
    if (sent.status === 'refused') await settleWithoutTx(deps, slotBase, slot, line)
    return line
  })
}

/** What an earlier attempt's slot already settled: a line, 'next' (its nonce was taken: try again), or null (still open). */
async function settledLine(
  client: TickChainClient,
  asset: ReturnAsset,
  key: Address,
  slot: TickSlot,
): Promise<FundsReturn | 'next' | null> {
  if (slot.status === 'confirmed' && slot.txHash) return lineFromChain(client, asset, key, slot.txHash)
  if (slot.status === 'failed') {
    const left = asset.kind === 'native' ? await client.getBalance({ address: key }) : await tokenBalance(client, asset.token, key)
    return unsentLine(asset, 'stranded', left, 'reverted')
  }
  if (slot.status === 'reconciled') {
    const line = slot.detail?.line as FundsReturn | undefined
    return line ?? 'next'
  }
  return null
}

/** The amount a confirmed return moved, read from the chain (the record names what happened, not what was planned). */
async function lineFromChain(client: TickChainClient, asset: ReturnAsset, key: Address, txHash: Hex): Promise<FundsReturn> {
  if (asset.kind === 'native') return returnedLine(asset, (await client.getTransaction({ hash: txHash })).value, txHash)
  const receipt = await client.getTransactionReceipt({ hash: txHash })
  const moved = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs })
    .filter((l) => isAddressEqual(l.address, asset.token) && isAddressEqual(l.args.from, key))
    .reduce((sum, l) => sum + l.args.value, 0n)
  return returnedLine(asset, moved, txHash)
}

/**
 * Before any send: an empty asset, or a token transfer the key's ETH cannot pay for, is settled as such.
 * Priced as sendOnce will price the transfer: from the heartbeat's fees when the tick has them (twice
 * the base fee plus the tip), else the node's estimate, so a key judged able to pay can pay.
 */
export async function unsentDecision(
  client: TickChainClient,
  asset: ReturnAsset,
  key: Address,
  owner: Address,
  given: TickFees | undefined,
): Promise<FundsReturn | null> {
  const [ethBalance, fees] = await Promise.all([
    client.getBalance({ address: key }),
    given ? feesPerGasOf(given) : client.estimateFeesPerGas(),
  ])
  if (asset.kind === 'native') {
    if (ethBalance === 0n) return unsentLine(asset, 'empty', 0n)
    const gas = await client.estimateGas({ account: key, to: owner, value: 1n })
    return nativeReturnValue(ethBalance, maxGasCost(gas, fees.maxFeePerGas)) === 0n
      ? unsentLine(asset, 'empty', 0n, "dust below the transfer's own gas")
      : null
  }
  const balance = await tokenBalance(client, asset.token, key)
  if (balance === 0n) return unsentLine(asset, 'empty', 0n)
  const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [owner, balance] })
  const gas = await client.estimateGas({ account: key, to: asset.token, data })
  const decision = tokenReturnDecision({ balance, ethBalance, maxGasCost: maxGasCost(gas, fees.maxFeePerGas) })
  return decision === 'no-gas' ? unsentLine(asset, 'stranded', balance, 'the key cannot pay the transfer gas') : null
}

async function nativeBuild(client: TickChainClient, key: Address, owner: Address, signer: GolemSigner) {
  // Read when the transfer is built, after the token's return paid its gas.
  const balance = await client.getBalance({ address: key })
  return {
    sender: key,
    to: owner,
    data: '0x' as Hex,
    valueAfterGas: (cost: bigint) => nativeReturnValue(balance, cost),
    sign: signer.signNativeReturn.bind(signer),
  }
}

/** Completes an attempt's slot with the record's line and no transaction, so a resumed protocol reads it back. */
async function settleWithoutTx(deps: TickDeps, slotBase: SlotBase, slot: SlotRef, line: FundsReturn): Promise<void> {
  const claim = await deps.store.claimSlot({ ...slot, owner: slotBase.owner, now: slotBase.now, leaseMs: slotBase.leaseMs })
  if (!claim.claimed) return
  await deps.store.completeSlot({
    ...slot,
    owner: slotBase.owner,
    outcome: 'reconciled',
    now: slotBase.now,
    detail: { line: line as unknown as JsonInputObject },
  })
}

const tokenBalance = (client: TickChainClient, token: Address, account: Address) =>
  client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [account] })
const describe = (asset: ReturnAsset) => (asset.kind === 'native' ? 'ETH' : asset.token)
