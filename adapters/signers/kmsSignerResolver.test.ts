import { GetPublicKeyCommand, KMSClient } from '@aws-sdk/client-kms'
import { mockClient } from 'aws-sdk-client-mock'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { encodeSecp256k1Spki } from '../../test/support/custody/der.ts'
import type { BardoDeployment } from '../../core/deployment.ts'
import type { GolemProfile } from '../../core/lifecycle/profile.ts'
import { MemoryPaymentLedger, type PaymentPolicy } from '../../core/custody/paymentPolicy.ts'
import { KmsSignerResolver } from './kmsSignerResolver.ts'

const kms = mockClient(KMSClient)
const client = new KMSClient({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } })
const account = privateKeyToAccount(generatePrivateKey())
const A = '0x1111111111111111111111111111111111111111' as const
const deployment = {
  chainId: 31337,
  environment: { DelegationManager: A },
  vitalityOracle: A,
  dreamOracle: A,
  daimonOracle: A,
} as unknown as BardoDeployment
const TOKEN = '0x2222222222222222222222222222222222222222' as const
const profile = (keyId: string) =>
  ({ signer: { kind: 'kms', keyId }, runway: { chain: [{ delegator: A }], token: TOKEN } }) as unknown as GolemProfile
const publicKey = {
  KeyId: 'k',
  KeySpec: 'ECC_SECG_P256K1',
  KeyUsage: 'SIGN_VERIFY',
  SigningAlgorithms: ['ECDSA_SHA_256'],
  PublicKey: encodeSecp256k1Spki(account.publicKey),
}

beforeEach(() => kms.reset())
// The worker runs other files after this one: KMSClient's send is KMS's own again.
afterAll(() => kms.restore())

describe('KmsSignerResolver', () => {
  it("asks KMS for a key's public key once, not on every tick", async () => {
    kms.on(GetPublicKeyCommand).resolves(publicKey as never)
    const resolver = new KmsSignerResolver(deployment, client)
    const first = await resolver.resolve(profile('key-1'))
    const second = await resolver.resolve(profile('key-1'))
    expect(second.signer).toBe(first.signer)
    expect(first.signer.address).toBe(account.address)
    expect(kms.commandCalls(GetPublicKeyCommand)).toHaveLength(1)
  })

  it('builds a signer that may pay for its caller alone, from the public key read once', async () => {
    kms.on(GetPublicKeyCommand).resolves(publicKey as never)
    const resolver = new KmsSignerResolver(deployment, client)
    const payments: PaymentPolicy = {
      asset: TOKEN,
      assetName: 'USD Coin',
      assetVersion: '2',
      payees: [A],
      maxPerPayment: 1n,
      maxPerPeriod: 2n,
      periodSeconds: 86_400n,
      maxValiditySeconds: 900n,
    }
    const plain = await resolver.resolve(profile('key-1'))
    const paying = await resolver.resolve(profile('key-1'), { payments: { policy: payments, ledger: new MemoryPaymentLedger() } })
    expect(paying.signer).not.toBe(plain.signer)
    expect(paying.signer.address).toBe(account.address)
    expect(paying.signer.policy.payments?.payees).toEqual([A])
    expect(plain.signer.policy.payments).toBeUndefined()
    expect(kms.commandCalls(GetPublicKeyCommand)).toHaveLength(1)
  })

  it('does not keep a failed lookup: the next tick asks again', async () => {
    kms
      .on(GetPublicKeyCommand)
      .rejectsOnce(new Error('ThrottlingException'))
      .resolves(publicKey as never)
    const resolver = new KmsSignerResolver(deployment, client)
    await expect(resolver.resolve(profile('key-2'))).rejects.toThrow()
    expect((await resolver.resolve(profile('key-2'))).signer.address).toBe(account.address)
    expect(kms.commandCalls(GetPublicKeyCommand)).toHaveLength(2)
  })

  it('refuses a key retired at death, even one it had cached', async () => {
    kms.on(GetPublicKeyCommand).resolves(publicKey as never)
    const resolver = new KmsSignerResolver(deployment, client)
    const resolved = await resolver.resolve(profile('key-3'))
    // The Golem's policy: its owner (the root delegator) and its runway token, what it may hand back.
    expect(resolved.signer.policy).toMatchObject({ owner: A, returnTokens: [TOKEN] })
    await resolver.retire(profile('key-3'))
    await expect(resolver.resolve(profile('key-3'))).rejects.toThrow(/retired at death/)
  })
})
