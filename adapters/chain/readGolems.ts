// Reads the on-chain state of many Golems at once: one block read and one deployless multicall for the
// whole batch (one eth_call per 128 KiB of calldata, about 340 Golems), so an idle heartbeat costs two
// JSON-RPC requests per page of Golems, not one or more per Golem.
import type { Address, Hex, PublicClient } from 'viem'
import { DelegationManager as DelegationManagerAbi, ERC20PeriodTransferEnforcer as PeriodAbi } from '@metamask/delegation-abis'
import { DreamOracleAbi, VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import type { BardoDeployment } from '../../core/deployment.ts'
import type { GolemChainState, GolemReadRequest } from '../../core/lifecycle/observation.ts'
import type { Phase } from '../../core/lifecycle/phase.ts'

export type { GolemChainState, GolemReadRequest } from '../../core/lifecycle/observation.ts'

/** Calldata per eth_call of the batched read (see readGolems). */
export const MAX_MULTICALL_CALLDATA_BYTES = 128 * 1024

export type GolemBatchRead = { blockNumber: bigint; timestamp: bigint; golems: GolemChainState[] }

export async function readGolems(
  client: PublicClient,
  deployment: BardoDeployment,
  requests: readonly GolemReadRequest[],
  /** The block to read at; by default the latest (one extra request). */
  at?: { number: bigint; timestamp: bigint },
  options: { maxCalldataBytes?: number } = {},
): Promise<GolemBatchRead> {
  const block = at ?? (await client.getBlock({ blockTag: 'latest' }))
  if (requests.length === 0) return { blockNumber: block.number, timestamp: block.timestamp, golems: [] }
  const dm = deployment.environment.DelegationManager
  const period = deployment.environment.caveatEnforcers.ERC20PeriodTransferEnforcer as Address
  const contracts = requests.flatMap((r) => [
    { address: deployment.vitalityOracle, abi: VitalityOracleAbi, functionName: 'getState', args: [r.golemKey] } as const,
    { address: deployment.dreamOracle, abi: DreamOracleAbi, functionName: 'isDreaming', args: [r.golemKey] } as const,
    { address: period, abi: PeriodAbi, functionName: 'getAvailableAmount', args: [r.periodDelegationHash, dm, r.periodTerms] } as const,
    ...r.chainHashes.map((h) => ({ address: dm, abi: DelegationManagerAbi, functionName: 'disabledDelegations', args: [h] }) as const),
  ])
  // viem splits a multicall into 1 KiB chunks by default (about three Golems each, one eth_call per
  // chunk): far from one request per batch. Chunk at 128 KiB instead: a 200-Golem page (~76 KB of
  // calldata, ~4M gas of views) is one eth_call, still well inside RPC providers' body and gas limits.
  const batchSize = options.maxCalldataBytes ?? MAX_MULTICALL_CALLDATA_BYTES
  const results = await client.multicall({ contracts, allowFailure: false, deployless: true, blockNumber: block.number, batchSize })
  let i = 0
  const golems = requests.map((r) => {
    const state = results[i++] as { phase: number; registered: boolean; dead: boolean; survivalScore: number }
    const dreaming = results[i++] as boolean
    const [availableInPeriod, isNewPeriod, currentPeriod] = results[i++] as readonly [bigint, boolean, bigint]
    let disabled = false
    for (let k = 0; k < r.chainHashes.length; k++) disabled = (results[i++] as boolean) || disabled
    return {
      golemId: r.golemId,
      phase: state.phase as Phase,
      registered: state.registered,
      dead: state.dead,
      survivalScoreBps: Number(state.survivalScore),
      dreaming,
      disabled,
      availableInPeriod,
      isNewPeriod,
      currentPeriod,
    }
  })
  return { blockNumber: block.number, timestamp: block.timestamp, golems }
}
