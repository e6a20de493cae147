// Reads the on-chain state of many Golems at once: one block read and one deployless multicall for the
// whole batch (one eth_call per 128 KiB of calldata, about 340 Golems), so an idle heartbeat costs two
// JSON-RPC requests per page of Golems, not one or more per Golem.
import { erc20Abi, multicall3Abi, type Address, type PublicClient } from 'viem'
import { DreamOracleTickAbi, VitalityOracleTickAbi } from './oracleAbi.ts'
import type { TickDeployment } from '../../core/deployment.ts'
import { DelegationManagerAbi, NonceEnforcerAbi, PeriodTransferEnforcerAbi } from '../../core/delegations/frameworkAbi.ts'
import type { GolemChainState, GolemReadRequest } from '../../core/lifecycle/observation.ts'
import type { Phase } from '../../core/lifecycle/phase.ts'

export type { GolemChainState, GolemReadRequest } from '../../core/lifecycle/observation.ts'

/** Calldata per eth_call of the batched read (see readGolems). */
export const MAX_MULTICALL_CALLDATA_BYTES = 128 * 1024

/**
 * Where the deployless multicall's Multicall3 lives during the call: viem's deployless helper is created
 * by the call's sender (the zero address, nonce 0) and CREATE2s viem's Multicall3 creation code with a
 * zero salt, so the address is fixed for a viem version (test/heartbeat/ledger.test.ts reads a key's balance through it). Its
 * `getEthBalance` reads any account's balance inside the same eth_call; a wrong address fails the read.
 */
export const DEPLOYLESS_MULTICALL3: Address = '0x692E573A74DA7bb6F190c815E682FA6D50d5937D'

export type GolemBatchRead = { blockNumber: bigint; timestamp: bigint; golems: GolemChainState[] }

export async function readGolems(
  client: Pick<PublicClient, 'getBlock' | 'multicall'>,
  deployment: TickDeployment,
  requests: readonly GolemReadRequest[],
  /** The block to read at; by default the latest (one extra request). */
  at?: { number: bigint; timestamp: bigint },
  options: { maxCalldataBytes?: number } = {},
): Promise<GolemBatchRead> {
  const block = at ?? (await client.getBlock({ blockTag: 'latest' }))
  if (requests.length === 0) return { blockNumber: block.number, timestamp: block.timestamp, golems: [] }
  const dm = deployment.environment.DelegationManager
  const period = deployment.environment.caveatEnforcers.ERC20PeriodTransferEnforcer as Address
  const nativePeriod = deployment.environment.caveatEnforcers.NativeTokenPeriodTransferEnforcer as Address
  const contracts = requests.flatMap((r) => [
    { address: deployment.vitalityOracle, abi: VitalityOracleTickAbi, functionName: 'getState', args: [r.golemKey] } as const,
    { address: deployment.dreamOracle, abi: DreamOracleTickAbi, functionName: 'isDreaming', args: [r.golemKey] } as const,
    {
      address: period,
      abi: PeriodTransferEnforcerAbi,
      functionName: 'getAvailableAmount',
      args: [r.periodDelegationHash, dm, r.periodTerms],
    } as const,
    ...r.chainHashes.map((h) => ({ address: dm, abi: DelegationManagerAbi, functionName: 'disabledDelegations', args: [h] }) as const),
    { address: DEPLOYLESS_MULTICALL3, abi: multicall3Abi, functionName: 'getEthBalance', args: [r.golemKey] } as const,
    ...(r.runwayToken ? [{ address: r.runwayToken, abi: erc20Abi, functionName: 'balanceOf', args: [r.golemKey] } as const] : []),
    ...(r.gas
      ? [
          {
            address: nativePeriod,
            abi: PeriodTransferEnforcerAbi,
            functionName: 'getAvailableAmount',
            args: [r.gas.periodDelegationHash, dm, r.gas.periodTerms],
          } as const,
        ]
      : []),
    ...(r.nonce
      ? [{ address: r.nonce.enforcer, abi: NonceEnforcerAbi, functionName: 'currentNonce', args: [dm, r.nonce.delegator] } as const]
      : []),
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
    const ethBalance = results[i++] as bigint
    const runwayHeld = r.runwayToken ? (results[i++] as bigint) : undefined
    const gasAvailableInPeriod = r.gas ? (results[i++] as readonly [bigint, boolean, bigint])[0] : null
    // The owner's one increment of the NonceEnforcer revokes every grant made at the old nonce.
    if (r.nonce && (results[i++] as bigint) !== r.nonce.value) disabled = true
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
      ethBalance,
      gasAvailableInPeriod,
      ...(runwayHeld === undefined ? {} : { runwayHeld }),
    }
  })
  return { blockNumber: block.number, timestamp: block.timestamp, golems }
}
