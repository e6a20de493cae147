// Golem keys from the deployed stack's KMS key pool (BARDO_KMS_KEY_ARNS, in pool order): the first key
// no Golem in the store holds, the VitalityOracle has never seen, and nobody has claimed. A key that was
// ever registered is never handed out again (a rotated-away or dead key stays retired), so the check is
// the chain's, not only the store's; the claim (a conditional write the deployed tick's rotation takes
// too) keeps an onboarding and a rotation from taking the same key at once.
import { KMSClient } from '@aws-sdk/client-kms'
import type { Address } from 'viem'
import { VitalityOracleAbi } from '../contracts/artifacts/index.ts'
import type { GolemProfile } from '../core/lifecycle/profile.ts'
import type { Store } from '../core/store/index.ts'
import { createKmsSigner } from '../adapters/signers/kmsSigner.ts'
import type { CliChain, CliDeployment } from './context.ts'
import { CliConfigError, CliRefusedError } from './errors.ts'

export type PoolKey = { address: Address; signer: GolemProfile['signer'] }

export function poolArns(env: NodeJS.ProcessEnv): string[] {
  const arns = (env.BARDO_KMS_KEY_ARNS ?? '')
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean)
  if (arns.length === 0)
    throw new CliConfigError('BARDO_KMS_KEY_ARNS', "must list the pool's KMS key ARNs, comma-separated (the stack's sessionKeys output)")
  return arns
}

export async function takeFreePoolKey(o: {
  arns: readonly string[]
  store: Store
  chain: CliChain
  deployment: CliDeployment
  kms?: Pick<KMSClient, 'send'>
  /** Keys already chosen in this run (a rotation must not pick the key it rotates away from). */
  exclude?: readonly Address[]
  /** Who takes the key (`onboard:<golemId>`); the same claimant retrying gets the same key. */
  claimant: string
}): Promise<PoolKey> {
  const kms = o.kms ?? new KMSClient({})
  for (const keyId of o.arns) {
    const { address } = await createKmsSigner({ keyId, client: kms })
    if (o.exclude?.some((a) => a.toLowerCase() === address.toLowerCase())) continue
    if ((await o.store.findGolems({ sessionKey: address })).length > 0) continue
    const claim = await o.store.getPoolKeyClaim(keyId)
    if (claim && claim.claimant !== o.claimant) continue
    const state = await o.chain.publicClient.readContract({
      address: o.deployment.vitalityOracle,
      abi: VitalityOracleAbi,
      functionName: 'getState',
      args: [address],
    })
    if (state.registered || state.dead || state.registeredAt !== 0n) continue
    const taken = await o.store.claimPoolKey({ keyId, address, claimant: o.claimant, now: Date.now() })
    if (taken.claimed) return { address, signer: { kind: 'kms', keyId } }
  }
  throw new CliRefusedError(
    'BARDO_KMS_KEY_ARNS',
    `every key of the pool (${o.arns.length}) is in use or retired; raise BARDO_KEY_POOL_SIZE and deploy`,
  )
}
