// A SignerResolver for Golem keys that are Privy server wallets (embedded custody): the key never leaves
// Privy; every signature is asked of Privy's wallet RPC API over HTTPS with the app's credentials
// (privySettings.ts). At death the reference is dropped: the tick does not delete the wallet (Privy keeps
// it under the owner's app), so a retired wallet is removed by hand in Privy's dashboard.
import type { CustodySigner } from '../../core/custody/index.ts'
import { GolemSigner } from '../../core/custody/golemSigner.ts'
import type { RawSigner } from '../../core/custody/rawSigner.ts'
import type { TickDeployment } from '../../core/deployment.ts'
import type { GolemProfile } from '../../core/lifecycle/profile.ts'
import type { SignerPayments, SignerResolver } from '../../core/custody/signerResolver.ts'
import { golemSignerPolicy } from '../../core/custody/golemPolicy.ts'
import { SignerResolutionError } from '../../core/custody/errors.ts'
import { REDACTED, redact } from '../../core/custody/redact.ts'
import { createPrivySigner } from './privySigner.ts'
import { privySettingsFromEnv, type PrivySettings, type PrivySettingsResult } from './privySettings.ts'

export type PrivySignerResolverOptions = {
  fetch?: typeof fetch
  timeoutMs?: number
}

export class PrivySignerResolver implements SignerResolver {
  readonly #retired = new Set<string>()
  readonly #settings: PrivySettings
  readonly #options: PrivySignerResolverOptions
  // A Privy signer reads its wallet's address once (GET /v1/wallets/{id}); keep it per wallet for the life
  // of the instance instead of asking Privy again on every tick.
  readonly #signers = new Map<string, Promise<CustodySigner>>()
  readonly #raw = new Map<string, Promise<RawSigner>>()

  constructor(
    private readonly deployment: TickDeployment,
    settings: PrivySettings,
    options: PrivySignerResolverOptions = {},
  ) {
    this.#settings = settings
    this.#options = options
    redact(this, () => ({ kind: 'privy', appId: settings.appId, apiUrl: settings.apiUrl, appSecret: REDACTED }))
  }

  async resolve(profile: GolemProfile, options: { payments?: SignerPayments } = {}): Promise<CustodySigner> {
    if (profile.signer.kind !== 'privy')
      throw new SignerResolutionError(`signer: this resolver holds Privy wallets only, the profile names ${profile.signer.kind}`)
    const walletId = profile.signer.walletId
    if (this.#retired.has(walletId)) throw new SignerResolutionError('signer: the Golem key was retired at death')
    const payments = options.payments
    // A wallet id that names another wallet would sign for a key the grants do not name: refused before
    // anything is signed, rather than reverted on chain.
    const isTheGolemKey = <T extends { address: string }>(signer: T): T => {
      if (signer.address.toLowerCase() !== profile.golemKey.toLowerCase())
        throw new SignerResolutionError(`signer: Privy wallet ${walletId} is ${signer.address}, not the Golem's key ${profile.golemKey}`)
      return signer
    }
    // A signer that may pay is built for its caller alone: its ledger is that caller's read of the store.
    if (payments) {
      const signer = isTheGolemKey(await this.#rawSigner(walletId))
      const policy = { ...golemSignerPolicy(this.deployment, profile), payments: payments.policy }
      return { signer: new GolemSigner({ signer, policy, paymentLedger: payments.ledger }) }
    }
    const cached = this.#signers.get(walletId)
    if (cached) {
      const resolved = await cached
      isTheGolemKey(resolved.signer)
      return resolved
    }
    const d = this.deployment
    const signer = this.#rawSigner(walletId).then((raw) => ({
      signer: new GolemSigner({ signer: isTheGolemKey(raw), policy: golemSignerPolicy(d, profile) }),
    }))
    this.#signers.set(walletId, signer)
    signer.catch(() => this.#signers.delete(walletId))
    return signer
  }

  /** The wallet's raw signer, its address read once per instance. */
  #rawSigner(walletId: string): Promise<RawSigner> {
    const cached = this.#raw.get(walletId)
    if (cached) return cached
    const s = this.#settings
    const raw = createPrivySigner({
      appId: s.appId,
      appSecret: s.appSecret,
      walletId,
      baseUrl: s.apiUrl,
      ...(this.#options.fetch ? { fetch: this.#options.fetch } : {}),
      ...(this.#options.timeoutMs === undefined ? {} : { timeoutMs: this.#options.timeoutMs }),
    })
    this.#raw.set(walletId, raw)
    // A failed lookup (a refusal, a timeout) is not cached: the next tick asks again.
    raw.catch(() => this.#raw.delete(walletId))
    return raw
  }

  async retire(profile: GolemProfile): Promise<void> {
    if (profile.signer.kind !== 'privy') return
    this.#retired.add(profile.signer.walletId)
    this.#signers.delete(profile.signer.walletId)
    this.#raw.delete(profile.signer.walletId)
  }
}

/**
 * The privy entry of a SignersByKind from Privy's settings (privySettingsFromEnv): its resolver, or, when
 * no Privy app is configured, what would add one.
 */
export function privySigners(
  deployment: TickDeployment,
  read: PrivySettingsResult,
  options: PrivySignerResolverOptions = {},
): { resolvers: { privy?: PrivySignerResolver }; missing: { privy?: string } } {
  if (read.settings === undefined) return { resolvers: {}, missing: { privy: read.missing } }
  return { resolvers: { privy: new PrivySignerResolver(deployment, read.settings, options) }, missing: {} }
}

/** privySigners from the environment; a malformed setting throws, naming the variable and the rule. */
export function privySignersFromEnv(
  deployment: TickDeployment,
  env: Record<string, string | undefined>,
  options: PrivySignerResolverOptions = {},
): ReturnType<typeof privySigners> {
  return privySigners(deployment, privySettingsFromEnv(env), options)
}
