// Provisions many Golems at once for the duplicate suite and the heartbeat bench. Same grant and profile
// as local/provision.ts (signRunwayGrant, and golemProfileOf from app/onboarding: a direct ERC-7710 runway grant with
// golemPhase carrying the life window), but batched: one owner smart account grants to every Golem, the operator's registerGolem calls are
// signed together and sent one mined transaction after another (local/sendInOrder.ts), and gas money is
// set with anvil_setBalance instead of a transfer each.
import { bytesToHex, encodeFunctionData, numberToHex, parseEther, type Address, type Hex, type PublicClient } from 'viem'
import { VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import { SessionKey } from '../../core/custody/index.ts'
import { MemoryKey } from '../../core/custody/memoryKey.ts'
import type { GolemProfile } from '../../core/lifecycle/profile.ts'
import type { Store } from '../../core/store/index.ts'
import type { MemorySignerResolver } from '../../adapters/signers/memorySignerResolver.ts'
import type { Devnet, OwnerAccount } from '../../local/devnet.ts'
import { golemProfileOf, recordGolem } from '../../app/onboarding/golemRecord.ts'
import { signRunwayGrant } from '../../local/provision.ts'
import { sendInOrder } from '../../local/sendInOrder.ts'

export type FleetGolem = { golemId: string; golemKey: Address; sessionKey: SessionKey; runwayHash: Hex; profile: GolemProfile }

export type ProvisionFleetParams = {
  devnet: Devnet
  store: Store
  signers: MemorySignerResolver
  owner: OwnerAccount
  count: number
  idPrefix: string
  periodAmount: bigint
  runwayDays?: number
  gasFunding?: bigint
  /** The key's ceiling for the runway token (just-in-time runway); default one period's allowance. */
  keyCeiling?: bigint
  /**
   * Filled with each Golem's key (hex) when given: for a tick run in a worker process, which cannot
   * reach this process's memory keys (the soak's process kills). Test-only; never printed.
   */
  exportKeys?: Map<string, Hex>
  /** Store writes in flight (dynalite answers in ~9 ms each). */
  concurrency?: number
  log?: (line: string) => void
}

async function inBatches<T, R>(items: readonly T[], size: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = []
  for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map((item, k) => fn(item, i + k)))))
  return out
}

export async function provisionFleet(p: ProvisionFleetParams): Promise<FleetGolem[]> {
  const { devnet, store } = p
  const client = devnet.publicClient as PublicClient
  const deployment = devnet.deployment
  const now = (await client.getBlock()).timestamp
  const expiresAt = now + BigInt(p.runwayDays ?? 30) * 86_400n
  const ids = Array.from({ length: p.count }, (_, i) => `${p.idPrefix}-${String(i).padStart(5, '0')}`)

  // 1. Keys and owner-signed runway grants (local signing, no RPC), as local/provision.ts makes them.
  const golems = await inBatches(ids, 50, async (golemId): Promise<FleetGolem> => {
    const memoryKey = MemoryKey.generate()
    if (p.exportKeys) {
      const bytes = memoryKey.exportBytesForKeystore()
      p.exportKeys.set(golemId, bytesToHex(bytes))
      bytes.fill(0)
    }
    const sessionKey = SessionKey.fromMemoryKey(memoryKey, { expiresAt: Number(expiresAt), initialBudget: 0n, now: Number(now) })
    const golemKey = sessionKey.address
    const runway = await signRunwayGrant({
      deployment,
      owner: p.owner,
      golemKey,
      token: deployment.assets.usdc,
      periodAmount: p.periodAmount,
      startDate: now,
      expiresAt,
      now,
    })
    const ref = `session-key:${golemId}`
    p.signers.hold(ref, sessionKey)
    const profile = golemProfileOf({
      chainId: deployment.chainId,
      golemKey,
      signer: { kind: 'memory', ref },
      runway,
      token: deployment.assets.usdc,
      periodAmount: p.periodAmount,
      expiresAt,
      now,
    })
    if (p.keyCeiling !== undefined) profile.runway.keyCeiling = p.keyCeiling
    // A fleet Golem is granted no actions: its tick never reads an action grant.
    profile.actionGrant = false
    return { golemId, golemKey, sessionKey, runwayHash: runway.periodDelegationHash, profile }
  })
  p.log?.(`fleet: ${golems.length} grants signed`)

  // 2. Registration on the VitalityOracle: signed in parallel, each sent once the one before it is mined.
  const operator = devnet.operator
  const fees = await client.estimateFeesPerGas()
  for (let i = 0; i < golems.length; i += 100) {
    const receipts = await sendInOrder(
      operator,
      golems.slice(i, i + 100).map((g) => ({
        to: deployment.vitalityOracle,
        data: encodeFunctionData({ abi: VitalityOracleAbi, functionName: 'registerGolem', args: [g.golemKey] }),
        gas: 200_000n,
        maxFeePerGas: fees.maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      })),
    )
    const failed = receipts.find((r) => r.status !== 'success')
    if (failed) throw new Error(`fleet: registerGolem ${failed.transactionHash} reverted`)
  }
  // 3. Gas money for each session key (the local stand-in for a gas grant).
  const gas = numberToHex(p.gasFunding ?? parseEther('1'))
  await inBatches(golems, 50, (g) => client.request({ method: 'anvil_setBalance' as never, params: [g.golemKey, gas] as never }))
  p.log?.(`fleet: ${golems.length} Golems registered and funded`)

  // 4. The store: the Golem record (due now) and its DelegationGranted event.
  await inBatches(golems, p.concurrency ?? 16, (g) =>
    recordGolem(store, { golemId: g.golemId, owner: p.owner.address, profile: g.profile, now }),
  )
  p.log?.(`fleet: ${golems.length} Golems stored`)
  return golems
}
