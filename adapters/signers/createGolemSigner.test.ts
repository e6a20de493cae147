import { GetPublicKeyCommand, KMSClient, SignCommand, type SignCommandInput } from '@aws-sdk/client-kms'
import { secp256k1 } from '@noble/curves/secp256k1'
import { mockClient } from 'aws-sdk-client-mock'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { hexToBytes, recoverTransactionAddress, recoverTypedDataAddress, type Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGolemSigner, type CustodyDependencies } from './createGolemSigner.ts'
import type { CustodyMode } from '../../core/custody/custodyMode.ts'
import { KeystorePassphraseError, SignerPolicyError } from '../../core/custody/errors.ts'
import type { GolemSigner } from '../../core/custody/golemSigner.ts'
import { SessionKey } from '../../core/custody/sessionKey.ts'
import { encodeDerSignature, encodeSecp256k1Spki, SECP256K1_N } from '../../test/support/custody/der.ts'
import { DAIMON_ORACLE, RANDOM_TARGET, disableCalldata, policy, subDelegation, tx, typed } from '../../test/support/custody/fixtures.ts'
import { startPrivyStandIn } from '../../test/support/custody/privyStandIn.ts'

const SMART_ACCOUNT: Address = '0x6666666666666666666666666666666666666666'
const BOUNDS = { maxDailySpendUsd: 1_000_000_000n, maxTotalCalls: 500, expiresAt: 2_000_000_000, allowedTargets: [] }
let dir: string
let stopPrivy: () => Promise<void>
let privyUrl: string
const kms = mockClient(KMSClient)
const kmsKey = generatePrivateKey()

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bardo-custody-'))
  const privy = await startPrivyStandIn({ appId: 'app', appSecret: 'secret', walletId: 'wallet' })
  stopPrivy = privy.close
  privyUrl = privy.url
  kms.on(GetPublicKeyCommand).resolves({
    KeySpec: 'ECC_SECG_P256K1',
    KeyUsage: 'SIGN_VERIFY',
    PublicKey: encodeSecp256k1Spki(privateKeyToAccount(kmsKey).publicKey),
  })
  // Always high-s, as KMS may return: the signer must normalise every one.
  kms.on(SignCommand).callsFake((input: SignCommandInput) => {
    const sig = secp256k1.sign(input.Message!, hexToBytes(kmsKey))
    return { Signature: encodeDerSignature(sig.r, SECP256K1_N - sig.s) }
  })
})
afterAll(async () => {
  await stopPrivy()
  await rm(dir, { recursive: true, force: true })
  kms.restore()
})

const backends: Array<[string, () => Promise<[CustodyMode, CustodyDependencies]>]> = [
  [
    'memory (Delegation, session key)',
    async () => [
      { mode: 'Delegation', smartAccount: SMART_ACCOUNT, caveatEnforcers: [] },
      { policy: policy(), sessionKey: SessionKey.generate({ expiresAt: 2_000_000_000, initialBudget: 0n }) },
    ],
  ],
  [
    'keystore (LocalKey)',
    async () => [
      { mode: 'LocalKey', privateKeyPath: join(dir, 'each', 'session-key.json'), delegationBounds: BOUNDS },
      { policy: policy(), keystorePassphrase: 'pw', createKeystoreIfMissing: true, scryptN: 1024 },
    ],
  ],
  [
    'kms (Delegation, KMS key)',
    async () => [
      { mode: 'Delegation', smartAccount: SMART_ACCOUNT, caveatEnforcers: [], key: { source: 'kms', keyId: 'alias/golem-1' } },
      { policy: policy(), kmsClient: new KMSClient({ region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } }) },
    ],
  ],
  [
    'privy (Embedded)',
    async () => [
      { mode: 'Embedded', privyAppId: 'app', serverWalletId: 'wallet' },
      { policy: policy(), privy: { appSecret: 'secret', baseUrl: privyUrl } },
    ],
  ],
]

describe.each(backends)('every backend through the same GolemSigner: %s', (_name, build) => {
  let golem: GolemSigner
  beforeAll(async () => {
    golem = (await createGolemSigner(...(await build()))).signer
  })
  const recovers = async (signed: `0x${string}`) =>
    expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(golem.address)

  it('signs a redemption, a disable of its own delegation and an oracle update that verify', async () => {
    await recovers(await golem.signRedemptionTransaction(tx()))
    await recovers(await golem.signDisableDelegation(tx({ data: disableCalldata(golem.address) })))
    await recovers(await golem.signOracleUpdate(tx({ to: DAIMON_ORACLE, data: '0x01020304' })))
  })

  it('signs a sub-delegation that verifies', async () => {
    const d = await golem.signDelegation(subDelegation(golem.address))
    const td = golem.delegationTypedData(subDelegation(golem.address))
    expect(await recoverTypedDataAddress({ ...typed(td), signature: d.signature })).toBe(golem.address)
  })

  it('refuses a message and a transaction to a random address', async () => {
    await expect(golem.account.signMessage({ message: 'x' })).rejects.toThrow(SignerPolicyError)
    await expect(golem.account.signTransaction(tx({ to: RANDOM_TARGET }))).rejects.toThrow(/allowed-target/)
  })
})

describe('createGolemSigner', () => {
  it('LocalKey: a key written once is the same key after a restart; mode 0600', async () => {
    const mode: CustodyMode = { mode: 'LocalKey', privateKeyPath: join(dir, 'restart', 'session-key.json'), delegationBounds: BOUNDS }
    const first = await createGolemSigner(mode, {
      policy: policy(),
      keystorePassphrase: 'pw',
      createKeystoreIfMissing: true,
      scryptN: 1024,
    })
    expect((await stat(mode.privateKeyPath)).mode & 0o777).toBe(0o600)
    const second = await createGolemSigner(mode, { policy: policy(), keystorePassphrase: 'pw' })
    expect(second.signer.address).toBe(first.signer.address)
    await expect(createGolemSigner(mode, { policy: policy(), keystorePassphrase: 'nope' })).rejects.toThrow(KeystorePassphraseError)
  })

  it('LocalKey with lifecycle tracking returns a SessionKey that counts operations', async () => {
    const mode: CustodyMode = { mode: 'LocalKey', privateKeyPath: join(dir, 'tracked.json'), delegationBounds: BOUNDS }
    const { signer, sessionKey } = await createGolemSigner(mode, {
      policy: policy(),
      keystorePassphrase: 'pw',
      createKeystoreIfMissing: true,
      scryptN: 1024,
      localKeyLifecycle: { expiresAt: 2_000_000_000, initialBudget: 100n },
    })
    await signer.signRedemptionTransaction(tx(), { spent: 40n })
    expect(sessionKey?.operationsSigned).toBe(1)
    expect(sessionKey?.remainingBudget).toBe(60n)
  })

  it.each<[string, CustodyMode, Partial<CustodyDependencies>, RegExp]>([
    [
      'LocalKey without a file',
      { mode: 'LocalKey', privateKeyPath: '/nonexistent/bardo/key.json', delegationBounds: BOUNDS },
      { keystorePassphrase: 'pw' },
      /no keystore at/,
    ],
    [
      'LocalKey without a passphrase',
      { mode: 'LocalKey', privateKeyPath: '/tmp/x.json', delegationBounds: BOUNDS },
      {},
      /keystorePassphrase/,
    ],
    [
      'Delegation/KMS without a client',
      { mode: 'Delegation', smartAccount: SMART_ACCOUNT, caveatEnforcers: [], key: { source: 'kms', keyId: 'k' } },
      {},
      /kmsClient/,
    ],
    [
      'Delegation with a bad smart account',
      { mode: 'Delegation', smartAccount: '0x12' as Address, caveatEnforcers: [] },
      {},
      /custody.smartAccount/,
    ],
    ['Embedded without the app secret', { mode: 'Embedded', privyAppId: 'app', serverWalletId: 'wallet' }, {}, /privy.appSecret/],
    [
      'LocalKey with bad bounds',
      { mode: 'LocalKey', privateKeyPath: '/tmp/x.json', delegationBounds: { ...BOUNDS, maxTotalCalls: 0 } },
      { keystorePassphrase: 'pw' },
      /delegationBounds.maxTotalCalls/,
    ],
    ['an unknown mode', { mode: 'Custodial' } as unknown as CustodyMode, {}, /custody.mode/],
  ])('refuses %s, naming the field', async (_why, mode, deps, message) => {
    await expect(createGolemSigner(mode, { policy: policy(), ...deps })).rejects.toThrow(message)
  })
})
