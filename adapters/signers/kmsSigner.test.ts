import { GetPublicKeyCommand, KMSClient, SignCommand, type SignCommandInput } from '@aws-sdk/client-kms'
import { secp256k1 } from '@noble/curves/secp256k1'
import { mockClient } from 'aws-sdk-client-mock'
import {
  hexToBigInt,
  hexToBytes,
  keccak256,
  parseSignature,
  parseTransaction,
  recoverTransactionAddress,
  recoverTypedDataAddress,
  toHex,
  type Hex,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { KmsSignerError } from '../../core/custody/errors.ts'
import { GolemSigner } from '../../core/custody/golemSigner.ts'
import { createKmsSigner, toEthereumSignature } from './kmsSigner.ts'
import { encodeDerSignature, encodeSecp256k1Spki, SECP256K1_HALF_N, SECP256K1_N } from '../../test/support/custody/der.ts'
import { policy, subDelegation, tx, typed } from '../../test/support/custody/fixtures.ts'

const KEY_ID = 'arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab'
const kms = mockClient(KMSClient)
const client = new KMSClient({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } })

/** Answers like KMS: SPKI public key; DER signatures over the digest, high-s when asked. */
function fakeKms(privateKey: Hex, opts: { s?: 'low' | 'high' | 'alternate' } = {}) {
  const account = privateKeyToAccount(privateKey)
  const signInputs: SignCommandInput[] = []
  let calls = 0
  kms.on(GetPublicKeyCommand).resolves({
    KeyId: KEY_ID,
    KeySpec: 'ECC_SECG_P256K1',
    KeyUsage: 'SIGN_VERIFY',
    SigningAlgorithms: ['ECDSA_SHA_256'],
    PublicKey: encodeSecp256k1Spki(account.publicKey),
  })
  kms.on(SignCommand).callsFake((input: SignCommandInput) => {
    signInputs.push(input)
    const sig = secp256k1.sign(input.Message!, hexToBytes(privateKey))
    const mode = opts.s ?? 'low'
    const high = mode === 'high' || (mode === 'alternate' && calls++ % 2 === 0)
    return { KeyId: KEY_ID, SigningAlgorithm: 'ECDSA_SHA_256', Signature: encodeDerSignature(sig.r, high ? SECP256K1_N - sig.s : sig.s) }
  })
  return { account, signInputs }
}

beforeEach(() => kms.reset())
afterEach(() => kms.reset())
// The worker runs other files after this one: KMSClient's send is KMS's own again.
afterAll(() => kms.restore())

describe('createKmsSigner', () => {
  it('derives the address from the SPKI public key', async () => {
    const { account } = fakeKms(generatePrivateKey())
    const signer = await createKmsSigner({ keyId: KEY_ID, client })
    expect(signer.address).toBe(account.address)
    expect(signer.publicKey).toBe(account.publicKey)
    expect(signer.kind).toBe('kms')
  })

  it('asks KMS to sign the 32-byte digest with ECDSA_SHA_256 (MessageType DIGEST)', async () => {
    const { signInputs } = fakeKms(generatePrivateKey())
    const signer = await createKmsSigner({ keyId: KEY_ID, client })
    const signed = await signer.signTransaction(tx())
    expect(signInputs).toHaveLength(1)
    expect(signInputs[0]).toMatchObject({ KeyId: KEY_ID, MessageType: 'DIGEST', SigningAlgorithm: 'ECDSA_SHA_256' })
    expect(signInputs[0]!.Message).toHaveLength(32)
    expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(signer.address)
  })

  it.each(['low', 'high', 'alternate'] as const)('turns %s-s KMS signatures into low-s signatures that verify', async (s) => {
    const { account } = fakeKms(generatePrivateKey(), { s })
    const golem = new GolemSigner({ signer: await createKmsSigner({ keyId: KEY_ID, client }), policy: policy() })
    for (let nonce = 0; nonce < 6; nonce++) {
      const signed = await golem.signRedemptionTransaction(tx({ nonce }))
      const parsed = parseTransaction(signed)
      expect(hexToBigInt(parsed.s!) <= SECP256K1_HALF_N).toBe(true)
      expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(account.address)
    }
    const td = golem.delegationTypedData(subDelegation(account.address))
    const delegation = await golem.signDelegation(subDelegation(account.address))
    expect(hexToBigInt(parseSignature(delegation.signature).s) <= SECP256K1_HALF_N).toBe(true)
    expect(await recoverTypedDataAddress({ ...typed(td), signature: delegation.signature })).toBe(account.address)
  })

  it('finds the recovery id by trial for both parities', async () => {
    const privateKey = generatePrivateKey()
    const account = privateKeyToAccount(privateKey)
    const seen = new Set<number>()
    for (let i = 0; i < 40 && seen.size < 2; i++) {
      const digest = keccak256(toHex(i))
      const sig = secp256k1.sign(hexToBytes(digest), hexToBytes(privateKey))
      const out = await toEthereumSignature(KEY_ID, account.address, digest, encodeDerSignature(sig.r, SECP256K1_N - sig.s))
      expect(out.yParity).toBe(sig.recovery)
      seen.add(out.yParity!)
    }
    expect([...seen].sort()).toEqual([0, 1])
  })

  it('refuses a signature made by another key', async () => {
    const account = privateKeyToAccount(generatePrivateKey())
    const digest = keccak256('0x01')
    const sig = secp256k1.sign(hexToBytes(digest), hexToBytes(generatePrivateKey()))
    await expect(toEthereumSignature(KEY_ID, account.address, digest, encodeDerSignature(sig.r, sig.s))).rejects.toThrow(/does not recover/)
  })

  it('refuses malformed DER from KMS with a KmsSignerError', async () => {
    fakeKms(generatePrivateKey())
    kms.on(SignCommand).resolves({ Signature: new Uint8Array([0x30, 0x02, 0x02, 0x00]) })
    const signer = await createKmsSigner({ keyId: KEY_ID, client })
    await expect(signer.signTransaction(tx())).rejects.toThrow(KmsSignerError)
  })

  it.each([
    [{ KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY' }, /KeySpec is ECC_NIST_P256/],
    [{ KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'ENCRYPT_DECRYPT' }, /KeyUsage is ENCRYPT_DECRYPT/],
    [{ KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY', PublicKey: new Uint8Array([0x30, 0x00]) }, /not a secp256k1 SPKI/],
  ] as const)('refuses an unusable key %#', async (answer, message) => {
    kms.on(GetPublicKeyCommand).resolves(answer as never)
    await expect(createKmsSigner({ keyId: KEY_ID, client })).rejects.toThrow(message)
  })

  it('wraps KMS service errors, scrubbing key-shaped hex from their text', async () => {
    fakeKms(generatePrivateKey())
    const leaked = keccak256('0x42')
    kms.on(SignCommand).rejects(Object.assign(new Error(`AccessDenied for ${leaked}`), { name: 'AccessDeniedException' }))
    const signer = await createKmsSigner({ keyId: KEY_ID, client })
    const err = await signer.signTransaction(tx()).catch((e) => e)
    expect(err).toBeInstanceOf(KmsSignerError)
    expect(err.message).toMatch(/AccessDeniedException/)
    expect(err.message).not.toContain(leaked.slice(2))
  })
})
