// One SignerResolver over several custody modes: each profile goes to the resolver for its signer kind
// (memory, keystore, kms, ...), so one heartbeat ticks Golems whose keys live in different places. A
// kind with no resolver here is refused at resolution, naming the kind and what would resolve it.
import type { SignerPayments, SignerResolver } from '../../core/custody/signerResolver.ts'
import type { CustodySigner } from '../../core/custody/index.ts'
import { SignerNotHeldError } from '../../core/custody/errors.ts'
import type { GolemProfile } from '../../core/lifecycle/profile.ts'

type Kind = GolemProfile['signer']['kind']

export class SignersByKind implements SignerResolver {
  constructor(
    private readonly resolvers: Partial<Record<Kind, SignerResolver>>,
    /** What to say when a kind has no resolver here (e.g. which setting would add it). */
    private readonly missing: Partial<Record<Kind, string>> = {},
  ) {}

  #for(profile: GolemProfile): SignerResolver {
    const kind = profile.signer.kind
    const resolver = this.resolvers[kind]
    if (!resolver)
      throw new SignerNotHeldError(`signer: this heartbeat holds no ${kind} keys${this.missing[kind] ? ` (${this.missing[kind]})` : ''}`)
    return resolver
  }

  async resolve(profile: GolemProfile, options?: { payments?: SignerPayments }): Promise<CustodySigner> {
    return this.#for(profile).resolve(profile, options)
  }

  async retire(profile: GolemProfile): Promise<void> {
    await this.resolvers[profile.signer.kind]?.retire(profile)
  }
}
