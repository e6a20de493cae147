import { getAddress, isAddress } from 'viem'
import { KeystoreFormatError } from '../../core/custody/errors.ts'
import { decryptKeystore, encryptKeystore, readKeystoreFile, writeKeystoreFile, type EncryptKeystoreOptions } from './keystore.ts'
import { MemoryKey } from '../../core/custody/memoryKey.ts'
import type { RawSigner } from '../../core/custody/rawSigner.ts'

/** A LocalKey key: decrypted into memory (zeroable) from a keystore file on disk. */
export type KeystoreKey = { path: string; key: MemoryKey; signer: RawSigner }

/** Generates a key and writes it encrypted to `path` (mode 0600). */
export async function createKeystoreKey(
  path: string,
  passphrase: string,
  options: EncryptKeystoreOptions & { overwrite?: boolean } = {},
): Promise<KeystoreKey> {
  const key = MemoryKey.generate()
  const bytes = key.exportBytesForKeystore()
  try {
    await writeKeystoreFile(path, encryptKeystore(bytes, key.address, passphrase, options), options)
  } finally {
    bytes.fill(0)
  }
  return { path, key, signer: key.toRawSigner('keystore') }
}

/** Loads and decrypts the keystore at `path`. A wrong passphrase throws KeystorePassphraseError. */
export async function loadKeystoreKey(path: string, passphrase: string): Promise<KeystoreKey> {
  const keystore = await readKeystoreFile(path)
  const bytes = decryptKeystore(keystore, passphrase, path)
  let key: MemoryKey
  try {
    key = MemoryKey.fromBytes(bytes)
  } finally {
    bytes.fill(0)
  }
  // The address field is optional in v3 but, when present, must be this key's: a mismatch means
  // the file was edited or assembled from parts.
  const claimed = keystore.address ? `0x${keystore.address.replace(/^0x/, '')}` : undefined
  if (claimed !== undefined && (!isAddress(claimed, { strict: false }) || getAddress(claimed) !== key.address)) {
    key.zero()
    throw new KeystoreFormatError('address', 'does not match the decrypted key', path)
  }
  return { path, key, signer: key.toRawSigner('keystore') }
}
