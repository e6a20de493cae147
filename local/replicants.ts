// Spawning Replicants on the local stack: what the action path needs to spawn one — the stack's key
// issuer (the Replicant's key is a keystore file of the stack, so the heartbeat scheduler resolves it as
// it does the demo's), the operator's account for its registration on the VitalityOracle and its first
// gas, and the local price feeds that value its budget in USD. A chain without local assets has no feeds
// here: the API then refuses the kind by name.
import type { PublicClient } from 'viem'
import type { ReplicantSpawning } from '../app/actions/spawnReplicant.ts'
import type { MemorySignerResolver } from '../adapters/signers/memorySignerResolver.ts'
import type { StackChain } from './chain.ts'
import { operatorSender, stackKeyIssuer } from './onboarding.ts'
import { localUsdCaps } from './provision.ts'
import type { StackKeys } from './stackKeys.ts'

export function localReplicantSpawning(o: { chain: StackChain; keys: StackKeys | MemorySignerResolver }): ReplicantSpawning | undefined {
  const { chain } = o
  const assets = chain.deployment.assets
  if (!assets) return undefined
  return {
    keys: stackKeyIssuer(o.keys, chain),
    operator: operatorSender(chain),
    usdCaps: () => localUsdCaps(chain.publicClient as PublicClient, assets),
  }
}
