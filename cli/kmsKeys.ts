// `bardo onboard --kms`: the Golem's key is created in the deployed stack's KMS (ECC_SECG_P256K1,
// SIGN_VERIFY), tagged with the stage, the role `session-key` and the Golem id, so the tick may sign with
// it by its tags alone; then named `<prefix>/golem/<id>`. A retried onboarding finds the key by that alias
// instead of creating a second one. A key the VitalityOracle has already seen is refused: an earlier
// onboarding got past registration, and a Golem's key is never handed out twice.
import { KMSClient } from '@aws-sdk/client-kms'
import type { Address } from 'viem'
import { VitalityOracleAbi } from '../contracts/artifacts/index.ts'
import type { GolemProfile } from '../core/lifecycle/profile.ts'
import type { Store } from '../core/store/index.ts'
import { ensureSessionKey } from '../adapters/signers/kmsKeys.ts'
import { KmsKeyNameError, onboardingAlias, stageOfPrefix } from '../adapters/signers/kmsKeyNames.ts'
import type { CliChain, CliDeployment } from './context.ts'
import { CliConfigError, CliRefusedError } from './errors.ts'

export type GolemKmsKey = { address: Address; signer: GolemProfile['signer']; alias: string; created: boolean }

/** The stage's alias prefix (the stack's sessionKeyAliasPrefix output), checked before anything is made. */
export function kmsAliasPrefix(env: NodeJS.ProcessEnv): string {
  const prefix = env.BARDO_KMS_ALIAS_PREFIX?.trim()
  const rule = "must be the stack's sessionKeyAliasPrefix output, alias/<app>/<stage>"
  if (!prefix) throw new CliConfigError('BARDO_KMS_ALIAS_PREFIX', rule)
  try {
    stageOfPrefix(prefix)
  } catch (error) {
    if (error instanceof KmsKeyNameError) throw new CliConfigError('BARDO_KMS_ALIAS_PREFIX', rule)
    throw error
  }
  return prefix
}

export async function createGolemKmsKey(o: {
  aliasPrefix: string
  golemId: string
  store: Store
  chain: CliChain
  deployment: CliDeployment
  kms?: Pick<KMSClient, 'send'>
}): Promise<GolemKmsKey> {
  const kms = o.kms ?? new KMSClient({})
  const alias = onboardingAlias(o.aliasPrefix, o.golemId)
  const stage = stageOfPrefix(o.aliasPrefix)
  const key = await ensureSessionKey({
    kms,
    alias,
    stage,
    golemId: o.golemId,
    description: `Bardo SessionKey of Golem ${o.golemId} (${stage})`,
    // The operator's CLI may delete a key it made and lost the alias to (two onboardings of one id at once).
    deleteLoser: true,
  })
  if (!key.created) {
    const holders = await o.store.findGolems({ sessionKey: key.address })
    const state = await o.chain.publicClient.readContract({
      address: o.deployment.vitalityOracle,
      abi: VitalityOracleAbi,
      functionName: 'getState',
      args: [key.address],
    })
    if (holders.length > 0 || state.registered || state.dead || state.registeredAt !== 0n)
      throw new CliRefusedError(
        '--golem',
        `the KMS key ${alias} (${key.address}) is already ${holders.length > 0 ? 'held by a Golem' : 'registered on the VitalityOracle'}; a Golem's key is never reused (choose another id)`,
      )
  }
  return { address: key.address, signer: { kind: 'kms', keyId: key.keyId }, alias, created: key.created }
}
