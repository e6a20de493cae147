// A SignerResolver for Golem keys in encrypted keystore files (the CLI's onboarding and rotation on a
// devnet or a self-hosted operator): the profile names the file, the passphrase comes from the
// operator's environment. Retiring a key zeroes it in memory and deletes its file, so a rotated-away or
// dead key can never sign again.
import { rm } from 'node:fs/promises'
import { GolemSigner, SessionKey, type CustodySigner } from '../../core/custody/index.ts'
import type { BardoDeployment } from '../../core/deployment.ts'
import type { GolemProfile } from '../../core/lifecycle/profile.ts'
import type { SignerPayments, SignerResolver } from '../../core/custody/signerResolver.ts'
import { golemSignerPolicy } from '../../core/custody/golemPolicy.ts'
import { loadKeystoreKey } from './keystoreSigner.ts'
import { SignerResolutionError } from '../../core/custody/errors.ts'

export class KeystoreSignerResolver implements SignerResolver {
  readonly #loaded = new Map<string, SessionKey>()
  readonly #passphrase: string
  constructor(
    private readonly deployment: BardoDeployment,
    passphrase: string,
  ) {
    this.#passphrase = passphrase
  }

  async resolve(profile: GolemProfile, options: { payments?: SignerPayments } = {}): Promise<CustodySigner> {
    if (profile.signer.kind !== 'keystore')
      throw new SignerResolutionError(`signer: this resolver holds keystore keys only, the profile names ${profile.signer.kind}`)
    const path = profile.signer.path
    let key = this.#loaded.get(path)
    if (!key) {
      const loaded = await loadKeystoreKey(path, this.#passphrase)
      key = SessionKey.fromMemoryKey(loaded.key, {
        expiresAt: Number(profile.runway.expiresAt),
        initialBudget: 0n,
        now: Number(profile.life.bornAt),
      })
      this.#loaded.set(path, key)
    }
    if (key.address.toLowerCase() !== profile.golemKey.toLowerCase())
      throw new SignerResolutionError(`signer: the keystore at ${path} holds ${key.address}, the profile names ${profile.golemKey}`)
    // A Golem's own x402 payments are signed within the payment policy and recorded in its ledger.
    const payments = options.payments
    const policy = payments
      ? { ...golemSignerPolicy(this.deployment, profile), payments: payments.policy }
      : golemSignerPolicy(this.deployment, profile)
    return {
      signer: new GolemSigner({ signer: key.signer, policy, recorder: key, ...(payments ? { paymentLedger: payments.ledger } : {}) }),
      sessionKey: key,
    }
  }

  async retire(profile: GolemProfile): Promise<void> {
    if (profile.signer.kind !== 'keystore') return
    this.#loaded.get(profile.signer.path)?.zero()
    this.#loaded.delete(profile.signer.path)
    await rm(profile.signer.path, { force: true })
  }
}
