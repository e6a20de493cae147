// Golem session keys kept by the CLI: one encrypted keystore file (mode 0600) per key under the state
// directory, its passphrase from BARDO_KEYSTORE_PASSPHRASE. Only the address and the path leave here.
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Account, Address, PublicClient } from 'viem'
import type { KeyRotation, RenewedRunway } from '../core/custody/signerResolver.ts'
import type { BardoDeployment } from '../core/deployment.ts'
import { parseGolemProfile, type GolemProfile } from '../core/lifecycle/profile.ts'
import type { Store } from '../core/store/index.ts'
import { createKeystoreKey } from '../adapters/signers/keystoreSigner.ts'
import { sendOwnerCalls } from '../local/ownerActions.ts'
import type { OwnerAccount } from '../local/devnet.ts'
import { renewRunwayGrant } from '../local/rotation.ts'
import type { CliChain } from './context.ts'
import { CliConfigError } from './errors.ts'

export type KeystoreSettings = { dir: string; passphrase: string; scryptN?: number }

export function keystoreSettings(env: NodeJS.ProcessEnv, stateDir: string): KeystoreSettings {
  const passphrase = env.BARDO_KEYSTORE_PASSPHRASE
  if (!passphrase || passphrase.length < 8)
    throw new CliConfigError(
      'BARDO_KEYSTORE_PASSPHRASE',
      'must be set to a passphrase of at least 8 characters (it encrypts the Golem keys)',
    )
  const raw = env.BARDO_KEYSTORE_SCRYPT_N
  let scryptN: number | undefined
  if (raw !== undefined && raw !== '') {
    scryptN = Number(raw)
    if (!Number.isInteger(scryptN) || scryptN < 1024 || (scryptN & (scryptN - 1)) !== 0)
      throw new CliConfigError('BARDO_KEYSTORE_SCRYPT_N', `must be a power of two of at least 1024, got ${raw}`)
  }
  return { dir: join(stateDir, 'keys'), passphrase, ...(scryptN === undefined ? {} : { scryptN }) }
}

export async function newGolemKeystore(s: KeystoreSettings, golemId: string): Promise<{ address: Address; path: string }> {
  mkdirSync(s.dir, { recursive: true, mode: 0o700 })
  const path = join(s.dir, `${golemId}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}.json`)
  const { key } = await createKeystoreKey(path, s.passphrase, s.scryptN === undefined ? {} : { scryptN: s.scryptN })
  const address = key.address
  key.zero()
  return { address, path }
}

/**
 * Rotation from the CLI: a new keystore key, gas for it from the owner, and the owner's renewed grant to
 * it. A key file the rotation did not keep (an attempt refused or failed before the store named it) is
 * removed by `discardUnkept`, so no attempt leaves a keystore behind.
 */
export class KeystoreKeyRotation implements KeyRotation {
  readonly #made: string[] = []
  constructor(
    private readonly o: {
      keys: KeystoreSettings
      golemId: string
      deployment: BardoDeployment
      owner: OwnerAccount
      chain: CliChain
      submitter: Account
      /** ETH the owner's smart account sends the new key for its first transactions. */
      gas: bigint
      /** Wraps the funding transaction (the CLI names an unfunded submitter there). */
      fund: <T>(sending: Promise<T>) => Promise<T>
    },
  ) {}

  async newKey(): Promise<{ address: Address; signer: GolemProfile['signer'] }> {
    const { address, path } = await newGolemKeystore(this.o.keys, this.o.golemId)
    this.#made.push(path)
    if (this.o.gas > 0n)
      await this.o.fund(
        sendOwnerCalls({
          publicClient: this.o.chain.publicClient as PublicClient,
          submitter: this.o.chain.wallet(this.o.submitter),
          smartAccount: this.o.owner.smartAccount,
          calls: [{ to: address, value: this.o.gas }],
        }),
      )
    return { address, signer: { kind: 'keystore', path } }
  }

  /** Removes every key file this rotation made that the Golem's record names neither as its key nor as its rotation in flight. */
  async discardUnkept(store: Pick<Store, 'getGolem'>): Promise<void> {
    const record = await store.getGolem(this.o.golemId)
    const profile = record?.profile ? parseGolemProfile(record.profile) : undefined
    const kept = new Set([profile?.signer, profile?.pendingRotation?.signer].flatMap((s) => (s?.kind === 'keystore' ? [s.path] : [])))
    for (const path of this.#made.splice(0)) if (!kept.has(path)) rmSync(path, { force: true })
  }

  renew(profile: GolemProfile, newKey: Address, startAt: bigint): Promise<RenewedRunway> {
    return renewRunwayGrant(this.o.deployment, this.o.owner, profile, newKey, startAt)
  }
}
