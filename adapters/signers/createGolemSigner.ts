import type { KMSClient } from '@aws-sdk/client-kms'
import { stat } from 'node:fs/promises'
import { isAddress } from 'viem'
import { CustodyConfigError } from '../../core/custody/errors.ts'
import { GolemSigner } from '../../core/custody/golemSigner.ts'
import { createKmsSigner } from './kmsSigner.ts'
import { createKeystoreKey, loadKeystoreKey } from './keystoreSigner.ts'
import type { SignerPolicyConfig } from '../../core/custody/policy.ts'
import { createPrivySigner } from './privySigner.ts'
import { SessionKey, type SessionKeyParameters } from '../../core/custody/sessionKey.ts'
import type { CustodyMode, CustodySigner, DelegationBounds } from '../../core/custody/custodyMode.ts'

/** Secrets, clients and lifecycle inputs the modes need; kept out of CustodyMode so it can be stored. */
export type CustodyDependencies = {
  policy: SignerPolicyConfig
  /** Delegation mode with a session key: the key (SessionKey.generate at provisioning). */
  sessionKey?: SessionKey
  /** Delegation mode with a KMS key. */
  kmsClient?: Pick<KMSClient, 'send'>
  /** LocalKey mode. */
  keystorePassphrase?: string
  /** LocalKey mode: generate and write the keystore if the file does not exist yet. */
  createKeystoreIfMissing?: boolean
  /** LocalKey mode: scrypt cost for a new keystore (tests lower it). */
  scryptN?: number
  /** LocalKey mode: track the loaded key as a SessionKey (counts, budget, rotation, events). */
  localKeyLifecycle?: SessionKeyParameters
  /** Embedded mode. */
  privy?: { appSecret: string; baseUrl?: string; fetch?: typeof fetch }
}

/** Builds the GolemSigner for a custody mode. The result is the only signing object to hand out. */
export async function createGolemSigner(mode: CustodyMode, deps: CustodyDependencies): Promise<CustodySigner> {
  switch (mode.mode) {
    case 'Delegation': {
      if (!isAddress(mode.smartAccount, { strict: false })) throw new CustodyConfigError('custody.smartAccount', 'must be an address')
      const key = mode.key ?? { source: 'session-key' as const }
      if (key.source === 'kms') {
        if (!key.keyId) throw new CustodyConfigError('custody.key.keyId', 'must name a KMS key')
        if (!deps.kmsClient) throw new CustodyConfigError('kmsClient', 'Delegation mode with a KMS key needs a KMS client')
        return {
          signer: new GolemSigner({ signer: await createKmsSigner({ keyId: key.keyId, client: deps.kmsClient }), policy: deps.policy }),
        }
      }
      const sessionKey = deps.sessionKey
      if (!sessionKey) throw new CustodyConfigError('sessionKey', 'Delegation mode with a session key needs one (SessionKey.generate)')
      return { signer: new GolemSigner({ signer: sessionKey.signer, policy: deps.policy, recorder: sessionKey }), sessionKey }
    }
    case 'LocalKey': {
      if (!mode.privateKeyPath) throw new CustodyConfigError('custody.privateKeyPath', 'must be a file path')
      assertDelegationBounds(mode.delegationBounds)
      const passphrase = deps.keystorePassphrase
      if (!passphrase) throw new CustodyConfigError('keystorePassphrase', 'LocalKey mode needs the keystore passphrase')
      const present = await stat(mode.privateKeyPath).then(
        () => true,
        () => false,
      )
      if (!present && !deps.createKeystoreIfMissing)
        throw new CustodyConfigError(
          'custody.privateKeyPath',
          `no keystore at ${mode.privateKeyPath} (set createKeystoreIfMissing to generate one)`,
        )
      const loaded = present
        ? await loadKeystoreKey(mode.privateKeyPath, passphrase)
        : await createKeystoreKey(mode.privateKeyPath, passphrase, deps.scryptN === undefined ? {} : { scryptN: deps.scryptN })
      if (deps.localKeyLifecycle) {
        const sessionKey = SessionKey.fromMemoryKey(loaded.key, deps.localKeyLifecycle)
        return { signer: new GolemSigner({ signer: loaded.signer, policy: deps.policy, recorder: sessionKey }), sessionKey }
      }
      return { signer: new GolemSigner({ signer: loaded.signer, policy: deps.policy }) }
    }
    case 'Embedded': {
      if (!mode.privyAppId) throw new CustodyConfigError('custody.privyAppId', 'must be the Privy app id')
      if (!mode.serverWalletId) throw new CustodyConfigError('custody.serverWalletId', 'must be the Privy server wallet id')
      if (!deps.privy?.appSecret) throw new CustodyConfigError('privy.appSecret', 'Embedded mode needs the Privy app secret')
      const raw = await createPrivySigner({
        appId: mode.privyAppId,
        appSecret: deps.privy.appSecret,
        walletId: mode.serverWalletId,
        ...(deps.privy.baseUrl === undefined ? {} : { baseUrl: deps.privy.baseUrl }),
        ...(deps.privy.fetch === undefined ? {} : { fetch: deps.privy.fetch }),
      })
      return { signer: new GolemSigner({ signer: raw, policy: deps.policy }) }
    }
    default: {
      const unknownMode: never = mode
      throw new CustodyConfigError(
        'custody.mode',
        `must be Delegation, Embedded or LocalKey, got ${String((unknownMode as { mode?: unknown }).mode)}`,
      )
    }
  }
}

/** The bounds are enforced on-chain by the owner's delegation; here they are only checked for shape. */
function assertDelegationBounds(b: DelegationBounds | undefined): void {
  if (!b) throw new CustodyConfigError('custody.delegationBounds', 'is required for LocalKey')
  if (typeof b.maxDailySpendUsd !== 'bigint' || b.maxDailySpendUsd < 0n)
    throw new CustodyConfigError('custody.delegationBounds.maxDailySpendUsd', 'must be a non-negative bigint (micro-USD)')
  if (!Number.isSafeInteger(b.maxTotalCalls) || b.maxTotalCalls <= 0)
    throw new CustodyConfigError('custody.delegationBounds.maxTotalCalls', 'must be a positive integer')
  if (!Number.isSafeInteger(b.expiresAt) || b.expiresAt <= 0)
    throw new CustodyConfigError('custody.delegationBounds.expiresAt', 'must be unix seconds')
  if (!Array.isArray(b.allowedTargets) || !b.allowedTargets.every((a) => isAddress(a, { strict: false })))
    throw new CustodyConfigError('custody.delegationBounds.allowedTargets', 'must be a list of addresses')
}
