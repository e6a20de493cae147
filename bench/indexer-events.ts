// Fills a devnet with the events the indexer handles, fast: Golem keys are impersonated (no signing),
// automine is off and transactions go in JSON-RPC batches, one block per batch. The mix follows a
// Golem's life: heartbeats (VitalityReported, some PhaseTransitions), dreams, PAD updates, owner-signed
// redemptions with a DailySpendLimit and an ERC-20 period caveat, and delegation revoke/re-enable.
import { encodeAbiParameters, encodeFunctionData, numberToHex, parseUnits, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { contracts, createDelegation, ExecutionMode, ROOT_AUTHORITY } from '@metamask/smart-accounts-kit'
import { DaimonOracleAbi, DreamOracleAbi, TestUSDCAbi, VitalityOracleAbi } from '../contracts/artifacts/index.ts'
import type { Devnet } from '../local/devnet.ts'

export type EventMix = { golems: number; heartbeats: number; dreams: number; pads: number; toggles: number; redemptions: number }

/** Per Golem: ~236 events from ~184 transactions; 50 Golems give ~11,800 events. */
export const DEFAULT_MIX: EventMix = { golems: 50, heartbeats: 80, dreams: 20, pads: 20, toggles: 10, redemptions: 24 }

/** Indexed events one Golem produces under `mix` (redemptions emit TransferredInPeriod, SpendRecorded, RedeemedDelegation). */
export function eventsPerGolem(mix: EventMix): number {
  return 1 + mix.heartbeats + 4 + 2 * mix.dreams + mix.pads + 2 * mix.toggles + 3 * mix.redemptions
}

type Tx = { from: Address; to: Address; data: Hex }

async function rpc<T = unknown>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await res.json()) as { result?: T; error?: { message: string } }
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`)
  return body.result as T
}

/** Sends `txs` (with explicit nonces and gas, so nothing is estimated against the pending block) and mines one block. */
async function mineBatch(url: string, txs: Tx[], nonces: Map<Address, number>): Promise<void> {
  const requests = txs.map((tx, id) => {
    const nonce = nonces.get(tx.from) ?? 0
    nonces.set(tx.from, nonce + 1)
    const params = {
      ...tx,
      gas: numberToHex(1_000_000),
      maxFeePerGas: numberToHex(50_000_000_000n),
      maxPriorityFeePerGas: '0x1',
      nonce: numberToHex(nonce),
    }
    return { jsonrpc: '2.0', id, method: 'eth_sendTransaction', params: [params] }
  })
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(requests) })
  const results = (await res.json()) as { error?: { message: string } }[]
  const failed = results.find((r) => r.error !== undefined)
  if (failed !== undefined) throw new Error(`eth_sendTransaction: ${failed.error!.message}`)
  await rpc(url, 'evm_mine')
}

/** Generates the events (the indexer's own logs count them); leaves automine on. */
export async function generateIndexerEvents(
  devnet: Devnet,
  mix: EventMix = DEFAULT_MIX,
  txsPerBlock = 100,
): Promise<{ transactions: number; blocks: number }> {
  const url = devnet.rpcUrl
  const d = devnet.deployment
  const operator = devnet.operator.account.address
  const golems = Array.from({ length: mix.golems }, () => privateKeyToAccount(generatePrivateKey()).address)
  for (const g of golems) {
    await rpc(url, 'anvil_impersonateAccount', [g])
    await rpc(url, 'anvil_setBalance', [g, numberToHex(10n ** 21n)])
  }
  const owner = await devnet.createOwner({ usdc: parseUnits('1000000', 6) })
  const now = Number((await devnet.publicClient.getBlock()).timestamp)
  const limitTerms = encodeAbiParameters(
    [
      { type: 'uint256' },
      { type: 'uint32' },
      { type: 'tuple[]', components: [{ type: 'address' }, { type: 'uint8' }, { type: 'address' }] },
    ],
    [10n ** 15n, 10 * 365 * 86_400, [[d.assets.usdc, 6, d.assets.usdcUsdFeed]]],
  )
  const redeemData = new Map<Address, Hex>()
  for (const g of golems) {
    const delegation = createDelegation({
      environment: d.environment,
      from: owner.address,
      to: g,
      scope: {
        type: 'erc20PeriodTransfer',
        tokenAddress: d.assets.usdc,
        periodAmount: parseUnits('100000', 6),
        periodDuration: 86_400,
        startDate: now - 60,
      },
      caveats: [{ enforcer: d.enforcers.dailySpendLimit, terms: limitTerms, args: '0x' }],
    })
    const signed = { ...delegation, signature: await owner.smartAccount.signDelegation({ delegation }) }
    const callData = encodeFunctionData({ abi: TestUSDCAbi, functionName: 'transfer', args: [g, 1_000_000n] })
    redeemData.set(
      g,
      contracts.DelegationManager.encode.redeemDelegations({
        delegations: [[signed]],
        modes: [ExecutionMode.SingleDefault],
        executions: [[{ target: d.assets.usdc, value: 0n, callData }]],
      }),
    )
  }

  await rpc(url, 'evm_setAutomine', [false])
  const nonces = new Map<Address, number>()
  for (const a of [operator, ...golems]) nonces.set(a, Number(await rpc<Hex>(url, 'eth_getTransactionCount', [a, 'latest'])))
  let transactions = 0
  let blocks = 0
  try {
    const registrations = golems.map((g) => ({
      from: operator,
      to: d.vitalityOracle,
      data: encodeFunctionData({ abi: VitalityOracleAbi, functionName: 'registerGolem', args: [g] }),
    }))
    await mineBatch(url, registrations, nonces)
    transactions += registrations.length
    blocks++

    // Each Golem's own sequence, in nonce order; Golems are interleaved so every block holds many.
    const perGolem = golems.map((g, i) => golemSequence(g, i, mix, d, redeemData.get(g)!))
    const queue: Tx[] = []
    for (let step = 0; perGolem.some((list) => step < list.length); step++)
      for (const list of perGolem) if (step < list.length) queue.push(list[step]!)
    for (let i = 0; i < queue.length; i += txsPerBlock) {
      await mineBatch(url, queue.slice(i, i + txsPerBlock), nonces)
      blocks++
    }
    transactions += queue.length
  } finally {
    await rpc(url, 'evm_setAutomine', [true])
  }
  return { transactions, blocks }
}

function golemSequence(g: Address, index: number, mix: EventMix, d: Devnet['deployment'], redeem: Hex): Tx[] {
  const txs: Tx[] = []
  const phaseAt = (k: number) => Math.min(4, Math.floor((k * 5) / mix.heartbeats)) // 0..4, four transitions
  const toggled = {
    delegate: privateKeyToAccount(generatePrivateKey()).address,
    delegator: g,
    authority: ROOT_AUTHORITY,
    caveats: [],
    salt: numberToHex(index + 1),
    signature: '0x' as Hex,
  }
  const total = Math.max(mix.heartbeats, 2 * mix.dreams, mix.pads, 2 * mix.toggles, mix.redemptions)
  for (let k = 0; k < total; k++) {
    if (k < mix.heartbeats) {
      txs.push({
        from: g,
        to: d.vitalityOracle,
        data: encodeFunctionData({ abi: VitalityOracleAbi, functionName: 'updatePhase', args: [phaseAt(k), 10_000 - k] }),
      })
    }
    if (k < 2 * mix.dreams) {
      txs.push({
        from: g,
        to: d.dreamOracle,
        data: encodeFunctionData({ abi: DreamOracleAbi, functionName: k % 2 === 0 ? 'startDream' : 'endDream' }),
      })
    }
    if (k < mix.pads) {
      txs.push({
        from: g,
        to: d.daimonOracle,
        data: encodeFunctionData({ abi: DaimonOracleAbi, functionName: 'setPAD', args: [k % 100, -(k % 50), 5] }),
      })
    }
    if (k < 2 * mix.toggles) {
      const data =
        k % 2 === 0
          ? contracts.DelegationManager.encode.disableDelegation({ delegation: toggled })
          : contracts.DelegationManager.encode.enableDelegation({ delegation: toggled })
      txs.push({ from: g, to: d.environment.DelegationManager, data })
    }
    if (k < mix.redemptions) txs.push({ from: g, to: d.environment.DelegationManager, data: redeem })
  }
  return txs
}
