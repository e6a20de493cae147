// A SignerResolver for Golem keys held in AWS KMS (ECC_SECG_P256K1): the key never leaves KMS. At death
// the reference is dropped; the tick has no permission to delete keys (least privilege), so the retired
// key is scheduled for deletion by hand, through the operator runbook (docs/deploy.md).
import { KMSClient } from '@aws-sdk/client-kms'
import type { CustodySigner } from '../../core/custody/index.ts'
import { GolemSigner } from '../../core/custody/golemSigner.ts'
import type { RawSigner } from '../../core/custody/rawSigner.ts'
import { createKmsSigner } from './kmsSigner.ts'
import type { TickDeployment } from '../../core/deployment.ts'
import type { GolemProfile } from '../../core/lifecycle/profile.ts'
import type { SignerPayments, SignerResolver } from '../../core/custody/signerResolver.ts'
import { golemSignerPolicy } from '../../core/custody/golemPolicy.ts'
import { SignerResolutionError } from '../../core/custody/errors.ts'

export class KmsSignerResolver implements SignerResolver {
  readonly #retired = new Set<string>()
  // A KMS signer reads its public key once (GetPublicKey); keep it per key for the life of the instance
  // instead of asking KMS again on every tick.
  readonly #signers = new Map<string, Promise<CustodySigner>>()
  readonly #raw = new Map<string, Promise<RawSigner>>()
  constructor(
    private readonly deployment: TickDeployment,
    private readonly kms: Pick<KMSClient, 'send'> = new KMSClient({}),
  ) {}

  async resolve(profile: GolemProfile, options: { payments?: SignerPayments } = {}): Promise<CustodySigner> {
    if (profile.signer.kind !== 'kms')
      throw new SignerResolutionError(`signer: this resolver holds KMS keys only, the profile names ${profile.signer.kind}`)
    if (this.#retired.has(profile.signer.keyId)) throw new SignerResolutionError('signer: the Golem key was retired at death')
    const keyId = profile.signer.keyId
    const payments = options.payments
    // A signer that may pay is built for its caller alone: its ledger is that caller's read of the store.
    if (payments) {
      const signer = await this.#rawSigner(keyId)
      const policy = { ...golemSignerPolicy(this.deployment, profile), payments: payments.policy }
      return { signer: new GolemSigner({ signer, policy, paymentLedger: payments.ledger }) }
    }
    const cached = this.#signers.get(keyId)
    if (cached) return cached
    const d = this.deployment
    const signer = this.#rawSigner(keyId).then((raw) => ({
      signer: new GolemSigner({ signer: raw, policy: golemSignerPolicy(d, profile) }),
    }))
    this.#signers.set(keyId, signer)
    signer.catch(() => this.#signers.delete(keyId))
    return signer
  }

  /** The KMS key's raw signer, its public key read once per instance. */
  #rawSigner(keyId: string): Promise<RawSigner> {
    const cached = this.#raw.get(keyId)
    if (cached) return cached
    const raw = createKmsSigner({ keyId, client: this.kms })
    this.#raw.set(keyId, raw)
    // A failed lookup (throttling, a transient error) is not cached: the next tick asks again.
    raw.catch(() => this.#raw.delete(keyId))
    return raw
  }

  async retire(profile: GolemProfile): Promise<void> {
    if (profile.signer.kind !== 'kms') return
    this.#retired.add(profile.signer.keyId)
    this.#signers.delete(profile.signer.keyId)
    this.#raw.delete(profile.signer.keyId)
  }
}
