// A SignerResolver for session keys held in this process's memory (hosted mode keeps the
// key in process memory, never on disk). Used by the local stack and tests; AWS uses KMS keys.
import { GolemSigner, type CustodySigner, type SessionKey } from '../../core/custody/index.ts'
import type { BardoDeployment } from '../../core/deployment.ts'
import type { GolemProfile } from '../../core/lifecycle/profile.ts'
import type { SignerPayments, SignerResolver } from '../../core/custody/signerResolver.ts'
import { golemSignerPolicy } from '../../core/custody/golemPolicy.ts'
import { delegationDomainOf } from '../../core/delegations/typedData.ts'

export class MemorySignerResolver implements SignerResolver {
  readonly #keys = new Map<string, SessionKey>()
  constructor(private readonly deployment: BardoDeployment) {}

  /** Keeps a session key under `ref` (the profile's signer.ref). */
  hold(ref: string, key: SessionKey): void {
    this.#keys.set(ref, key)
  }

  /** The deployment's contracts, and for a Golem its owner and runway token (what it may hand back). */
  policy(profile?: GolemProfile) {
    const d = this.deployment
    if (profile) return golemSignerPolicy(d, profile)
    return {
      ...delegationDomainOf(d),
      oracles: { vitality: d.vitalityOracle, dream: d.dreamOracle, daimon: d.daimonOracle },
    }
  }

  async resolve(profile: GolemProfile, options: { payments?: SignerPayments } = {}): Promise<CustodySigner> {
    if (profile.signer.kind !== 'memory')
      throw new Error(`signer: this resolver holds memory keys only, the profile names ${profile.signer.kind}`)
    const key = this.#keys.get(profile.signer.ref)
    if (!key) throw new Error(`signer: no session key in memory for ${profile.golemKey}`)
    const payments = options.payments
    const policy = payments ? { ...this.policy(profile), payments: payments.policy } : this.policy(profile)
    return {
      signer: new GolemSigner({ signer: key.signer, policy, recorder: key, ...(payments ? { paymentLedger: payments.ledger } : {}) }),
      sessionKey: key,
    }
  }

  async retire(profile: GolemProfile): Promise<void> {
    if (profile.signer.kind !== 'memory') return
    const key = this.#keys.get(profile.signer.ref)
    key?.zero()
    this.#keys.delete(profile.signer.ref)
  }
}
