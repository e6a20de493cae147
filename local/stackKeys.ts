// The session keys the local stack makes itself (the demo Golem's, the Golems onboarded through its API,
// the keys its rotations make): one encrypted keystore file (mode 0600) per key under
// `<state dir>/stack-keys`, so every process of the stack (the runner, the API, the heartbeat scheduler,
// each restarted after a crash) resolves the same signer. The secret that encrypts them is
// BARDO_KEYSTORE_PASSPHRASE when it is set (the CLI's keystore passphrase), else a random one made for the
// run: it reaches the stack's child processes in their environment (BARDO_STACK_KEY_SECRET), never a
// log, an error, a file or the store. The keys live as long as the run's chain: removed at stop.
import { randomBytes } from 'node:crypto'
import { mkdirSync, rmSync } from 'node:fs'
import { join, resolve, sep } from 'node:path'
import type { Address } from 'viem'
import { createKeystoreKey, loadKeystoreKey } from '../adapters/signers/keystoreSigner.ts'
import { KeystoreSignerResolver } from '../adapters/signers/keystoreSignerResolver.ts'
import { SignerNotHeldError, SignerResolutionError } from '../core/custody/errors.ts'
import type { SignerPayments, SignerResolver } from '../core/custody/signerResolver.ts'
import type { CustodySigner } from '../core/custody/index.ts'
import type { IssuedKeyRole, KeyIssuer } from '../core/custody/keyIssuer.ts'
import type { DelegationSigner } from '../core/delegations/signers.ts'
import type { BardoDeployment } from '../core/deployment.ts'
import type { GolemProfile, SignerRef } from '../core/lifecycle/profile.ts'
import { delegationDomainOf, delegationTypedData } from '../core/delegations/typedData.ts'
import { LocalStackError } from './errors.ts'

/** The directory of the stack's own keys under the state directory. */
export const STACK_KEYS_DIR = 'stack-keys'
/** How the runner hands the keys' secret to the processes it starts. */
export const STACK_KEY_SECRET_ENV = 'BARDO_STACK_KEY_SECRET'

export type StackKeys = {
  dir: string
  /** Never logged, never written: the keystore files are encrypted with it. */
  secret: string
  scryptN?: number
}

/**
 * The stack's key settings: the secret from the runner (a child process), else BARDO_KEYSTORE_PASSPHRASE,
 * else a fresh random one; scrypt's cost from BARDO_KEYSTORE_SCRYPT_N as the CLI reads it.
 */
export function stackKeys(env: NodeJS.ProcessEnv, stateDir: string): StackKeys {
  const secret = env[STACK_KEY_SECRET_ENV] || env.BARDO_KEYSTORE_PASSPHRASE || randomBytes(32).toString('hex')
  const raw = env.BARDO_KEYSTORE_SCRYPT_N
  let scryptN: number | undefined
  if (raw !== undefined && raw !== '') {
    scryptN = Number(raw)
    if (!Number.isInteger(scryptN) || scryptN < 1024 || (scryptN & (scryptN - 1)) !== 0)
      throw new LocalStackError('LOCAL_CONFIG', `BARDO_KEYSTORE_SCRYPT_N: must be a power of two of at least 1024, got ${raw}`)
  }
  return { dir: resolve(stateDir, STACK_KEYS_DIR), secret, ...(scryptN === undefined ? {} : { scryptN }) }
}

/** True for a keystore file the stack made (under its keys directory). */
export function isStackKey(keys: Pick<StackKeys, 'dir'>, signer: SignerRef): boolean {
  return signer.kind === 'keystore' && resolve(signer.path).startsWith(`${keys.dir}${sep}`)
}

/** A new key for `golemId`, written encrypted; only its address and path leave here. */
export async function newStackKey(keys: StackKeys, golemId: string): Promise<{ address: Address; signer: SignerRef }> {
  mkdirSync(keys.dir, { recursive: true, mode: 0o700 })
  const path = join(keys.dir, `${golemId}-${Date.now()}-${randomBytes(4).toString('hex')}.json`)
  const { key } = await createKeystoreKey(path, keys.secret, keys.scryptN === undefined ? {} : { scryptN: keys.scryptN })
  const address = key.address
  key.zero()
  return { address, signer: { kind: 'keystore', path } }
}

/** Removes the stack's keys (at stop: they sign for a chain that ends with the run). */
export function removeStackKeys(keys: Pick<StackKeys, 'dir'>): void {
  rmSync(keys.dir, { recursive: true, force: true })
}

/**
 * Keystore keys by where they live: the stack's own with its secret, the CLI's (any other path) with
 * BARDO_KEYSTORE_PASSPHRASE when the stack was given it, else refused with `missing`.
 */
export class StackKeystoreResolver implements SignerResolver {
  readonly #own: KeystoreSignerResolver
  readonly #cli: KeystoreSignerResolver | undefined
  constructor(
    private readonly keys: StackKeys,
    deployment: BardoDeployment,
    cliPassphrase: string | undefined,
    private readonly missing: string,
  ) {
    this.#own = new KeystoreSignerResolver(deployment, keys.secret)
    this.#cli = cliPassphrase ? new KeystoreSignerResolver(deployment, cliPassphrase) : undefined
  }

  #of(profile: GolemProfile): KeystoreSignerResolver {
    if (isStackKey(this.keys, profile.signer)) return this.#own
    if (this.#cli) return this.#cli
    throw new SignerNotHeldError(`signer: this heartbeat holds no keystore keys of the CLI (${this.missing})`)
  }

  resolve(profile: GolemProfile, options?: { payments?: SignerPayments }): Promise<CustodySigner> {
    return this.#of(profile).resolve(profile, options)
  }

  async retire(profile: GolemProfile): Promise<void> {
    if (profile.signer.kind !== 'keystore') return
    await this.#of(profile).retire(profile)
  }
}

/** Issues onboarded Golems' keys (the Golem's and its Session Account's) as the stack's keystore files. */
export class StackKeyIssuer implements KeyIssuer {
  constructor(
    private readonly keys: StackKeys,
    private readonly deployment: BardoDeployment,
  ) {}

  issue(p: { golemId: string; role: IssuedKeyRole; expiresAt: bigint; now: bigint }) {
    return newStackKey(this.keys, p.role === 'golem' ? p.golemId : `${p.golemId}-session-account`)
  }

  delegationSigner(signer: SignerRef): DelegationSigner {
    if (!isStackKey(this.keys, signer))
      throw new SignerResolutionError(`signer: this issuer signs with the stack's keystore keys only, got ${signer.kind}`)
    const path = (signer as { path: string }).path
    return async (delegation) => {
      const loaded = await loadKeystoreKey(path, this.keys.secret)
      try {
        return await loaded.signer.signTypedData(delegationTypedData(delegation, delegationDomainOf(this.deployment)))
      } finally {
        loaded.key.zero()
      }
    }
  }
}

/**
 * A heartbeat outside the stack (`bardo run`) over the same state directory: the stack's own keys are
 * not its to tick (the stack does, with its secret); any other keystore file goes to `resolver`.
 */
export function withoutStackKeys(keys: Pick<StackKeys, 'dir'>, resolver: SignerResolver): SignerResolver {
  return {
    resolve(profile, options) {
      if (isStackKey(keys, profile.signer))
        throw new SignerNotHeldError('signer: its key is a keystore file of the running local stack: that stack ticks it')
      return resolver.resolve(profile, options)
    },
    async retire(profile) {
      if (!isStackKey(keys, profile.signer)) await resolver.retire(profile)
    },
  }
}
