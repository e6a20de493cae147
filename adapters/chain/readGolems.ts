// Reads the on-chain state of many Golems at once: one block read and one deployless multicall for the
// whole batch (one eth_call per 512 KiB of encoded calls: a 200-Golem page is one), so an idle heartbeat
// costs two JSON-RPC requests per page of Golems, not one or more per Golem.
import { erc20Abi, type Address, type PublicClient } from 'viem'
import { deploylessMulticall, etherBalance } from './deploylessMulticall.ts'
import { DreamOracleTickAbi, VitalityOracleTickAbi } from './oracleAbi.ts'
import type { TickDeployment } from '../../core/deployment.ts'
import { DelegationManagerAbi, NonceEnforcerAbi, PeriodTransferEnforcerAbi } from '../../core/delegations/frameworkAbi.ts'
import type { GolemChainState, GolemReadRequest } from '../../core/lifecycle/observation.ts'
import type { Phase } from '../../core/lifecycle/phase.ts'

export type { GolemChainState, GolemReadRequest } from '../../core/lifecycle/observation.ts'

export type GolemBatchRead = { blockNumber: bigint; timestamp: bigint; golems: GolemChainState[] }

export async function readGolems(
  client: Pick<PublicClient, 'getBlock' | 'request'>,
  deployment: TickDeployment,
  requests: readonly GolemReadRequest[],
  /** The block to read at; by default the latest (one extra request). */
  at?: { number: bigint; timestamp: bigint },
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
    etherBalance(r.golemKey),
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
  const results = await deploylessMulticall(client, { contracts, allowFailure: false, blockNumber: block.number })
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
