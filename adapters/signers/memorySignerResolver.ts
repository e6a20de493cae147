// A SignerResolver for session keys held in this process's memory (hosted mode keeps the
// key in process memory, never on disk). Used by the local stack and tests; AWS uses KMS keys.
import { GolemSigner, SessionKey, type CustodySigner } from '../../core/custody/index.ts'
import type { IssuedKeyRole, KeyIssuer } from '../../core/custody/keyIssuer.ts'
import type { DelegationSigner } from '../../core/delegations/signers.ts'
import type { SignerRef } from '../../core/lifecycle/profile.ts'
import type { BardoDeployment } from '../../core/deployment.ts'
import type { GolemProfile } from '../../core/lifecycle/profile.ts'
import type { SignerPayments, SignerResolver } from '../../core/custody/signerResolver.ts'
import { golemSignerPolicy } from '../../core/custody/golemPolicy.ts'
import { delegationDomainOf, delegationTypedData } from '../../core/delegations/typedData.ts'
import { SignerResolutionError } from '../../core/custody/errors.ts'

export class MemorySignerResolver implements SignerResolver {
  readonly #keys = new Map<string, SessionKey>()
  constructor(private readonly deployment: BardoDeployment) {}

  /** Keeps a session key under `ref` (the profile's signer.ref). */
  hold(ref: string, key: SessionKey): void {
    this.#keys.set(ref, key)
  }

  /** The key held under `ref`, if any. */
  keyOf(ref: string): SessionKey | undefined {
    return this.#keys.get(ref)
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
      throw new SignerResolutionError(`signer: this resolver holds memory keys only, the profile names ${profile.signer.kind}`)
    const key = this.#keys.get(profile.signer.ref)
    if (!key) throw new SignerResolutionError(`signer: no session key in memory for ${profile.golemKey}`)
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

/** Issues new Golems' keys into a MemorySignerResolver (the local stack: keys live as long as the process). */
export class MemoryKeyIssuer implements KeyIssuer {
  constructor(
    private readonly signers: MemorySignerResolver,
    private readonly deployment: BardoDeployment,
  ) {}

  async issue(p: { golemId: string; role: IssuedKeyRole; expiresAt: bigint; now: bigint }) {
    const key = SessionKey.generate({ expiresAt: Number(p.expiresAt), initialBudget: 0n, now: Number(p.now) })
    const ref = `${p.role === 'golem' ? 'session-key' : 'session-account'}:${p.golemId}`
    this.signers.hold(ref, key)
    return { address: key.address, signer: { kind: 'memory' as const, ref } }
  }

  delegationSigner(signer: SignerRef): DelegationSigner {
    if (signer.kind !== 'memory') throw new SignerResolutionError(`signer: this issuer holds memory keys only, got ${signer.kind}`)
    return async (delegation) => {
      const key = this.signers.keyOf(signer.ref)
      if (!key) throw new SignerResolutionError(`signer: no key in memory under ${signer.ref}`)
      return key.signer.signTypedData(delegationTypedData(delegation, delegationDomainOf(this.deployment)))
    }
  }
}
