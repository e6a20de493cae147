import { GetPublicKeyCommand, SignCommand, type KMSClient } from '@aws-sdk/client-kms'
import { secp256k1 } from '@noble/curves/secp256k1'
import { publicKeyToAddress } from 'viem/accounts'
import { bytesToHex, hexToBytes, numberToHex, type Address, type Hash, type Hex, type Signature } from 'viem'
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
    if (out.KeySpec !== 'ECC_SECG_P256K1')
      throw new KmsSignerError(keyId, `KeySpec is ${out.KeySpec ?? 'missing'}, must be ECC_SECG_P256K1`)
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
  let low: { r: bigint; s: bigint }
  try {
    low = normalizeLowS(parseDerSignature(der))
  } catch (err) {
    throw new KmsSignerError(keyId, `signature is not valid DER: ${(err as Error).message}`)
  }
  const message = hexToBytes(digest)
  for (const yParity of [0, 1] as const) {
    if (recoversTo(low, yParity, message) === address) {
      return { r: numberToHex(low.r, { size: 32 }), s: numberToHex(low.s, { size: 32 }), yParity, v: BigInt(27 + yParity) }
    }
  }
  throw new KmsSignerError(keyId, `signature does not recover to ${address} with either recovery id`)
}

/** The address (r, s, yParity) recovers to over `digest`, or undefined where no point recovers. */
function recoversTo({ r, s }: { r: bigint; s: bigint }, yParity: 0 | 1, digest: Uint8Array): Address | undefined {
  try {
    const point = new secp256k1.Signature(r, s).addRecoveryBit(yParity).recoverPublicKey(digest)
    return publicKeyToAddress(bytesToHex(point.toBytes(false)))
  } catch {
    return undefined
  }
}

function wrap(keyId: string, what: string, err: unknown): KmsSignerError {
  if (err instanceof KmsSignerError) return err
  if (err instanceof DerError) return new KmsSignerError(keyId, `public key is not a secp256k1 SPKI: ${err.message}`)
  const name = (err as { name?: string })?.name ?? 'Error'
  const message = redactText(String((err as { message?: string })?.message ?? err))
  return new KmsSignerError(keyId, `${what}: ${name}: ${message}`)
}
