import { GetPublicKeyCommand, SignCommand, type KMSClient } from '@aws-sdk/client-kms'
import { publicKeyToAddress } from 'viem/accounts'
import { hexToBytes, numberToHex, recoverAddress, type Address, type Hash, type Hex, type Signature } from 'viem'
import { KmsSignerError } from '../../core/custody/errors.ts'
import { DerError, normalizeLowS, parseDerSignature, parseSpkiPublicKey } from './kmsDer.ts'
import { fromDigestSigner, type RawSigner } from '../../core/custody/rawSigner.ts'
import { redact, redactText } from '../../core/custody/redact.ts'

export type KmsSignerParameters = {
  /** Anything KMS takes as a KeyId: key id, key ARN, alias name or alias ARN. */
  keyId: string
  client: Pick<KMSClient, 'send'>
}

/**
 * An AWS KMS ECC_SECG_P256K1 key as a RawSigner. The key never leaves KMS: the address comes from
 * the SPKI public key, each digest is signed by KMS (DER), normalised to low-s, and the recovery
 * bit is found by trying both parities against the known address.
 */
export async function createKmsSigner({ keyId, client }: KmsSignerParameters): Promise<RawSigner> {
  let publicKey: Hex
  try {
    const out = await client.send(new GetPublicKeyCommand({ KeyId: keyId }))
    if (out.KeySpec !== 'ECC_SECG_P256K1') throw new KmsSignerError(keyId, `KeySpec is ${out.KeySpec ?? 'missing'}, must be ECC_SECG_P256K1`)
    if (out.KeyUsage !== 'SIGN_VERIFY') throw new KmsSignerError(keyId, `KeyUsage is ${out.KeyUsage ?? 'missing'}, must be SIGN_VERIFY`)
    if (!out.PublicKey) throw new KmsSignerError(keyId, 'GetPublicKey returned no PublicKey')
    publicKey = parseSpkiPublicKey(out.PublicKey)
  } catch (err) {
    throw wrap(keyId, 'GetPublicKey failed', err)
  }
  const address = publicKeyToAddress(publicKey)

  const signDigest = async (digest: Hash): Promise<Signature> => {
    let der: Uint8Array | undefined
    try {
      const out = await client.send(
        new SignCommand({ KeyId: keyId, Message: hexToBytes(digest), MessageType: 'DIGEST', SigningAlgorithm: 'ECDSA_SHA_256' }),
      )
      der = out.Signature
    } catch (err) {
      throw wrap(keyId, 'Sign failed', err)
    }
    if (!der) throw new KmsSignerError(keyId, 'Sign returned no Signature')
    return toEthereumSignature(keyId, address, digest, der)
  }

  return redact(fromDigestSigner({ kind: 'kms', address, publicKey, signDigest }), () => ({ kind: 'kms', keyId, address }))
}

/** DER -> (r, low s, yParity) that recovers to `address`. Exported for tests. */
export async function toEthereumSignature(keyId: string, address: Address, digest: Hash, der: Uint8Array): Promise<Signature> {
  let r: bigint
  let s: bigint
  try {
    ;({ r, s } = parseDerSignature(der))
  } catch (err) {
    throw new KmsSignerError(keyId, `signature is not valid DER: ${(err as Error).message}`)
  }
  const low = normalizeLowS(s).s
  const rHex = numberToHex(r, { size: 32 })
  const sHex = numberToHex(low, { size: 32 })
  for (const yParity of [0, 1] as const) {
    const recovered = await recoverAddress({ hash: digest, signature: { r: rHex, s: sHex, yParity } })
    if (recovered === address) return { r: rHex, s: sHex, yParity, v: BigInt(27 + yParity) }
  }
  throw new KmsSignerError(keyId, `signature does not recover to ${address} with either recovery id`)
}

function wrap(keyId: string, what: string, err: unknown): KmsSignerError {
  if (err instanceof KmsSignerError) return err
  if (err instanceof DerError) return new KmsSignerError(keyId, `public key is not a secp256k1 SPKI: ${err.message}`)
  const name = (err as { name?: string })?.name ?? 'Error'
  const message = redactText(String((err as { message?: string })?.message ?? err))
  return new KmsSignerError(keyId, `${what}: ${name}: ${message}`)
}
