// Shared pieces of the heartbeat suites: a devnet plus dynalite (the real DynamoStore) per suite, tick
// dependencies, and the on-chain truth the suites check the store against (RedeemedDelegation logs,
// USDC transfers out of the owner, VitalityOracle phase transitions).
import { randomUUID } from 'node:crypto'
import {
  createPublicClient,
  encodeFunctionData,
  erc20Abi,
  getAbiItem,
  http,
  isAddressEqual,
  keccak256,
  numberToHex,
  parseTransaction,
  type Address,
  type Hex,
  type LocalAccount,
  type PublicClient,
} from 'viem'
import type { Delegation } from '@metamask/smart-accounts-kit'
import { encodeRedemptions } from '../../core/delegations/index.ts'
import { DelegationManager as DelegationManagerAbi } from '@metamask/delegation-abis'
import { MockPriceFeedAbi, VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import { parseGolemProfile, serializeGolemProfile, type GolemProfile } from '../../core/lifecycle/profile.ts'
import { applyCredit, paymentCreditId } from '../../core/lifecycle/credit.ts'
import { staggerOffset } from '../../core/lifecycle/stagger.ts'
import { DynamoStore } from '../../adapters/store/index.ts'
import { withReceiptPolling } from '../../adapters/chain/receipts.ts'
import type { ClaimSlotWithTxInput, GolemEvent, Store } from '../../core/store/index.ts'
import { MemorySignerResolver } from '../../adapters/signers/memorySignerResolver.ts'
import type { TickDeps } from '../../app/tick/types.ts'
import { startDevnet, type Devnet, type OwnerAccount } from '../../local/devnet.ts'
import { sendOwnerCalls } from '../../local/ownerActions.ts'
import { revocationOf } from '../../app/revocation.ts'
import { createTable, documentClient, localDynamoClient, startDynalite, type Dynalite } from '../../local/dynalite.ts'

export const USDC = (n: number | bigint) => BigInt(n) * 1_000_000n
export const DAY = 86_400

/**
 * A key ceiling above any runway: every period's tick redeems the phase's whole share, as it did before
 * just-in-time runway. For suites about the mechanics of a redemption (exactly once, faults, crashes,
 * phase multipliers, rotation), not about what the key holds; an owner may choose it, accepting the
 * whole runway as what a leaked key can take.
 */
export const WHOLE_RUNWAY_ON_KEY = 10n ** 30n

/** Fixed parameters: no stochastic shocks, so every run of a suite decides the same phases. */
export const noShocks = { shockProbabilityPerDay: 0 } as const

export type HeartbeatEnv = {
  devnet: Devnet
  dynalite: Dynalite
  store: DynamoStore
  tableName: string
  signers: MemorySignerResolver
  client: PublicClient
  /** Tick dependencies for one invocation id. */
  deps(invocationId?: string, overrides?: Partial<TickDeps>): TickDeps
  stop(): Promise<void>
}

export async function startHeartbeatEnv(): Promise<HeartbeatEnv> {
  const [devnet, dynalite] = await Promise.all([startDevnet(), startDynalite()])
  const raw = localDynamoClient(dynalite.endpoint)
  const tableName = `bardo-${randomUUID().slice(0, 8)}`
  await createTable(raw, tableName)
  const store = new DynamoStore({ client: documentClient(raw), tableName })
  const signers = new MemorySignerResolver(devnet.deployment)
  const client = devnet.publicClient as PublicClient
  const base = {
    store,
    client,
    deployment: devnet.deployment,
    signers,
    operator: devnet.operator.account as LocalAccount,
    vitalityParameters: noShocks,
  }
  return {
    devnet,
    dynalite,
    store,
    tableName,
    signers,
    client,
    deps: (invocationId = `inv-${randomUUID()}`, overrides = {}) => ({ ...base, invocationId, ...overrides }),
    async stop() {
      raw.destroy()
      await Promise.allSettled([devnet.stop(), dynalite.stop()])
    },
  }
}

export const chainNow = async (client: PublicClient): Promise<bigint> => (await client.getBlock()).timestamp

/**
 * The ticks' client through an RPC fault proxy at `url`: no retries of its own (a fault reaches the tick
 * as it would from a real node), receipts polled.
 */
export function clientThrough(env: Pick<HeartbeatEnv, 'devnet'>, url: string): PublicClient {
  return withReceiptPolling(
    createPublicClient({
      chain: env.devnet.chain,
      transport: http(url, { retryCount: 0, timeout: 10_000, batch: false }),
      pollingInterval: 25,
    }) as PublicClient,
  )
}

/**
 * Moves the chain clock, inside the Golems' first period, past the largest of their stagger offsets
 * (core/lifecycle/stagger.ts). A tick whole days later then falls at or after each Golem's offset into
 * its period and redeems its runway, as it did before redemptions were staggered; suites about something
 * else (crashes, duplicates, phases, rotation) call it once after provisioning.
 */
export async function passStaggerOffsets(devnet: Devnet, golemIds: readonly string[], periodDuration: bigint = BigInt(DAY)): Promise<void> {
  let offset = 0n
  for (const id of golemIds) if (staggerOffset(id, periodDuration) > offset) offset = staggerOffset(id, periodDuration)
  if (offset > 0n) await devnet.increaseTime(offset)
}

/**
 * The period a chain time falls in, as the store keys slots and budgets: the absolute period (the
 * runway period's start / its duration, runTick), not the enforcer's per-delegation counter.
 */
export function periodAt(profile: GolemProfile, timestamp: bigint): bigint {
  const { periodStart, periodDuration } = profile.runway
  return (periodStart + ((timestamp - periodStart) / periodDuration) * periodDuration) / periodDuration
}

export type OnChainRedemption = { txHash: Hex; redeemer: Address; blockNumber: bigint; timestamp: bigint; delegationHashes: number }

const redeemedEvent = getAbiItem({ abi: DelegationManagerAbi, name: 'RedeemedDelegation' })

/**
 * Every confirmed redemption transaction with the given redeemer (one per tx, however long its chain:
 * the DelegationManager logs RedeemedDelegation once per delegation in the chain).
 */
export async function redemptionsBy(client: PublicClient, delegationManager: Address, redeemer: Address): Promise<OnChainRedemption[]> {
  const logs = await client.getLogs({
    address: delegationManager,
    event: redeemedEvent,
    args: { redeemer },
    fromBlock: 0n,
    toBlock: 'latest',
  })
  const byTx = new Map<Hex, OnChainRedemption>()
  for (const log of logs) {
    const known = byTx.get(log.transactionHash)
    if (known) {
      known.delegationHashes += 1
      continue
    }
    const block = await client.getBlock({ blockNumber: log.blockNumber })
    byTx.set(log.transactionHash, {
      txHash: log.transactionHash,
      redeemer,
      blockNumber: log.blockNumber,
      timestamp: block.timestamp,
      delegationHashes: 1,
    })
  }
  return [...byTx.values()]
}

/** USDC Transfer logs out of an account: who received what, in which transaction. */
export async function usdcTransfersFrom(
  client: PublicClient,
  usdc: Address,
  from: Address,
): Promise<{ to: Address; value: bigint; txHash: Hex }[]> {
  const logs = await client.getLogs({
    address: usdc,
    event: getAbiItem({ abi: erc20Abi, name: 'Transfer' }),
    args: { from },
    fromBlock: 0n,
    toBlock: 'latest',
  })
  return logs.map((l) => ({ to: l.args.to!, value: l.args.value!, txHash: l.transactionHash }))
}

export async function usdcBalance(client: PublicClient, usdc: Address, account: Address): Promise<bigint> {
  return client.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [account] })
}

/** The VitalityOracle's GolemDeregistered logs for one Golem key, from the first block. */
export function deregistrations(env: Pick<HeartbeatEnv, 'client' | 'devnet'>, golem: Address) {
  return env.client.getLogs({
    address: env.devnet.deployment.vitalityOracle,
    event: getAbiItem({ abi: VitalityOracleAbi, name: 'GolemDeregistered' }),
    args: { golem },
    fromBlock: 0n,
  })
}

export type OnChainPhaseTransition = { from: number; to: number; survivalScore: number; txHash: Hex; blockNumber: bigint }

export async function phaseTransitions(client: PublicClient, vitalityOracle: Address, golem: Address): Promise<OnChainPhaseTransition[]> {
  const logs = await client.getLogs({
    address: vitalityOracle,
    event: getAbiItem({ abi: VitalityOracleAbi, name: 'PhaseTransition' }),
    args: { golem },
    fromBlock: 0n,
    toBlock: 'latest',
  })
  return logs.map((l) => ({
    from: Number(l.args.fromPhase),
    to: Number(l.args.toPhase),
    survivalScore: Number(l.args.survivalScore),
    txHash: l.transactionHash,
    blockNumber: l.blockNumber,
  }))
}

export async function allEvents(store: Store, golemId: string): Promise<GolemEvent[]> {
  const out: GolemEvent[] = []
  let cursor: string | null = null
  do {
    const page = await store.listEvents({ golemId, limit: 100, cursor, order: 'asc' })
    out.push(...page.events)
    cursor = page.cursor
  } while (cursor !== null)
  return out
}

/** Transactions a key sent that were mined (its account nonce). */
export const sentCount = (client: PublicClient, address: Address) => client.getTransactionCount({ address, blockTag: 'latest' })

export function sameAddress(a: string, b: string): boolean {
  return isAddressEqual(a as Address, b as Address)
}

/**
 * The owner's one revocation, as a wallet sends it: every grant the owner signed for the Golem disabled in
 * one user operation from the owner's smart account. The plan and the receipt, for the test to check.
 */
export async function revokeAsOwner(env: Pick<HeartbeatEnv, 'store' | 'client' | 'devnet'>, owner: OwnerAccount, golemId: string) {
  const delegationManager = env.devnet.deployment.environment.DelegationManager
  const plan = await revocationOf({ store: env.store, client: env.client, delegationManager }, golemId)
  const receipt = await sendOwnerCalls({
    publicClient: env.client,
    submitter: env.devnet.deployer,
    smartAccount: owner.smartAccount,
    calls: plan.calls.map((c) => ({ to: c.to, data: c.data })),
  })
  return { plan, receipt }
}

/**
 * A thief holding the Golem's key (anvil impersonates it: call `anvil_impersonateAccount` first) redeems
 * `amount` of the runway token through the one-delegation chain `grant`, to the key; true when the chain
 * took it.
 */
export async function stealWithKey(
  env: Pick<HeartbeatEnv, 'client' | 'devnet'>,
  key: Address,
  grant: Delegation,
  amount: bigint,
): Promise<boolean> {
  const data = encodeRedemptions([
    {
      chain: [grant],
      executions: [
        {
          target: env.devnet.deployment.assets.usdc,
          value: 0n,
          callData: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [key, amount] }),
        },
      ],
    },
  ])
  const dm = env.devnet.deployment.environment.DelegationManager
  try {
    const hash = (await env.client.request({
      method: 'eth_sendTransaction' as never,
      params: [{ from: key, to: dm, data, gas: numberToHex(1_000_000n) }] as never,
    })) as Hex
    return (await env.client.waitForTransactionReceipt({ hash })).status === 'success'
  } catch {
    return false
  }
}

/** The devnet's feeds answered again at chain time ($3,000 per WETH, $1 per USDC): the USD bounds refuse stale prices. */
export async function freshFeeds(env: Pick<HeartbeatEnv, 'client' | 'devnet'>): Promise<void> {
  const { ethUsdFeed, usdcUsdFeed } = env.devnet.deployment.assets
  for (const [feed, answer] of [
    [ethUsdFeed, 3_000n * 10n ** 8n],
    [usdcUsdFeed, 10n ** 8n],
  ] as const)
    await env.client.waitForTransactionReceipt({
      hash: await env.devnet.deployer.writeContract({ address: feed, abi: MockPriceFeedAbi, functionName: 'setAnswer', args: [answer] }),
    })
}

/**
 * An x402 payment credited to the Golem's profile as the API credits it: `seconds` of runway for `amount`
 * (a feed also records the reprieve the next tick serves); `nonceByte` makes the payment's id.
 */
export async function creditGolem(
  env: Pick<HeartbeatEnv, 'store' | 'client'>,
  golemId: string,
  payment: { kind: 'extend' | 'feed'; seconds: bigint; amount: bigint; nonceByte: string },
): Promise<void> {
  const record = (await env.store.getGolem(golemId))!
  const now = await chainNow(env.client)
  const payer = '0x00000000000000000000000000000000000000fe' as const
  const credit = applyCredit(
    parseGolemProfile(record.profile),
    {
      kind: payment.kind,
      id: paymentCreditId(payer, `0x${payment.nonceByte.repeat(32)}`),
      seconds: payment.seconds,
      amount: payment.amount,
      payer,
      creditedAtMs: Number(now) * 1000,
    } as never,
    now,
  )
  if (!credit.applied) throw new Error(`creditGolem: the credit was not applied (${credit.reason})`)
  const updated = await env.store.updateGolem({
    golemId,
    expectedVersion: record.version,
    patch: { profile: serializeGolemProfile(credit.profile) },
    now: Number(now) * 1000,
  })
  if (!updated.updated) throw new Error(`creditGolem: the record moved (${updated.reason})`)
}

/** A signed transaction's fields without its signature: what another signer signs anew at the same nonce. */
export function unsignedOf(rawTx: Hex) {
  const { r: _r, s: _s, v: _v, yParity: _y, ...tx } = parseTransaction(rawTx)
  return tx
}

/**
 * Another tick overtaking this one at its claim of the slot `input` names: it claims the slot with its own
 * signed transaction `rawTx`, `earlierMs` before this tick's time, and broadcasts it (mined at once).
 * Answers that transaction's hash and the store time it was recorded at.
 */
export async function otherTickClaims(
  env: Pick<HeartbeatEnv, 'store' | 'client'>,
  input: ClaimSlotWithTxInput,
  rawTx: Hex,
  earlierMs: number,
): Promise<{ txHash: Hex; sentAt: number }> {
  const txHash = keccak256(rawTx)
  const sentAt = input.now - earlierMs
  const claimed = await env.store.claimSlotWithTx({ ...input, owner: 'the-other-tick', now: sentAt, txHash, rawTx })
  if (!claimed.claimed) throw new Error(`otherTickClaims: the slot ${input.step} was taken already`)
  await env.client.waitForTransactionReceipt({ hash: await env.client.sendRawTransaction({ serializedTransaction: rawTx }) })
  return { txHash, sentAt }
}
