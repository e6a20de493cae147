// Reads, once, everything the pre-check of a request needs: chain time, each Golem's phase and dream
// state, each selector's action class in GolemPhase's table, each price feed, each spend-limited
// delegation's spend today, and the pool of each position a removal takes liquidity out of. The same contracts the enforcers read, so the pre-check judges what the
// chain would.
import type { Address, Hex, PublicClient } from 'viem'
import {
  DailySpendLimitEnforcerAbi,
  DreamOracleAbi,
  GolemPhaseEnforcerAbi,
  IPriceFeedAbi,
  VitalityOracleAbi,
} from '../../contracts/artifacts/index.ts'
import type { ActionObservation, ObservationNeeds } from '../../core/actions/index.ts'
import type { BardoDeployment } from '../../core/deployment.ts'
import { readRemovalPools } from './readRemovalPools.ts'

export async function readActionObservation(
  client: PublicClient,
  deployment: BardoDeployment,
  p: { redeemer: Address; needs: ObservationNeeds },
): Promise<ActionObservation> {
  const manager = deployment.environment.DelegationManager
  const block = await client.getBlock()
  const now = block.timestamp
  const day = now / 86_400n
  const read = <T>(address: Address, abi: readonly unknown[], functionName: string, args: readonly unknown[] = []) =>
    client.readContract({ address, abi, functionName, args } as never) as Promise<T>
  const [vitality, dreams, classes, feeds, spends, removals] = await Promise.all([
    Promise.all(p.needs.golems.map((g) => read<readonly [boolean, number]>(deployment.vitalityOracle, VitalityOracleAbi, 'getPhase', [g]))),
    Promise.all(p.needs.golems.map((g) => read<bigint>(deployment.dreamOracle, DreamOracleAbi, 'dreamingSince', [g]))),
    Promise.all(p.needs.selectors.map((s) => read<number>(deployment.enforcers.golemPhase, GolemPhaseEnforcerAbi, 'actionClassOf', [s]))),
    Promise.all(
      p.needs.feeds.map(async (f) => {
        const [round, decimals] = await Promise.all([
          read<readonly [bigint, bigint, bigint, bigint, bigint]>(f, IPriceFeedAbi, 'latestRoundData'),
          read<number>(f, IPriceFeedAbi, 'decimals'),
        ])
        return { answer: round[1], updatedAt: round[3], decimals: Number(decimals) }
      }),
    ),
    Promise.all(
      p.needs.spendHashes.map((h: Hex) =>
        read<bigint>(deployment.enforcers.dailySpendLimit, DailySpendLimitEnforcerAbi, 'spentOn', [manager, h, day]),
      ),
    ),
    readRemovalPools(client, p.needs.removals, block.number),
  ])
  const lower = (a: string) => a.toLowerCase()
  return {
    now,
    delegationManager: manager,
    redeemer: p.redeemer,
    vitality: new Map(p.needs.golems.map((g, i) => [lower(g), { registered: vitality[i]![0], phase: Number(vitality[i]![1]) }])),
    dreamingSince: new Map(p.needs.golems.map((g, i) => [lower(g), BigInt(dreams[i]!)])),
    actionClasses: new Map(p.needs.selectors.map((s, i) => [lower(s), Number(classes[i]!)])),
    feeds: new Map(p.needs.feeds.map((f, i) => [lower(f), feeds[i]!])),
    spentTodayUsd: new Map(p.needs.spendHashes.map((h, i) => [lower(h), spends[i]!])),
    removals,
  }
}
