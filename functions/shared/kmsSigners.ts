// A SignerResolver for Golem keys held in AWS KMS (ECC_SECG_P256K1): the key never leaves KMS. At death
// the reference is dropped; the tick has no permission to delete keys (least privilege), so the key
// returns to the pool's retired list through the operator runbook (docs/deploy.md).
import { KMSClient } from '@aws-sdk/client-kms'
import { createGolemSigner, type CustodySigner } from '../../core/custody/index.ts'
import type { BardoDeployment } from '../../core/deployment.ts'
import type { GolemProfile } from '../../core/lifecycle/profile.ts'
import type { SignerResolver } from '../tick/types.ts'

export class KmsSignerResolver implements SignerResolver {
  readonly #retired = new Set<string>()
  constructor(
    private readonly deployment: BardoDeployment,
    private readonly kms: Pick<KMSClient, 'send'> = new KMSClient({}),
  ) {}

  async resolve(profile: GolemProfile): Promise<CustodySigner> {
    if (profile.signer.kind !== 'kms') throw new Error(`signer: this resolver holds KMS keys only, the profile names ${profile.signer.kind}`)
    if (this.#retired.has(profile.signer.keyId)) throw new Error('signer: the Golem key was retired at death')
    const d = this.deployment
    return createGolemSigner(
      { mode: 'Delegation', smartAccount: profile.runway.chain[profile.runway.chain.length - 1]!.delegator, caveatEnforcers: [], key: { source: 'kms', keyId: profile.signer.keyId } },
      { kmsClient: this.kms, policy: { chainId: d.chainId, delegationManager: d.environment.DelegationManager, oracles: { vitality: d.vitalityOracle, dream: d.dreamOracle, daimon: d.daimonOracle } } },
    )
  }

  async retire(profile: GolemProfile): Promise<void> {
    if (profile.signer.kind === 'kms') this.#retired.add(profile.signer.keyId)
  }
}
