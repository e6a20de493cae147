import { randomUUID } from 'node:crypto'
import { chmod, mkdir, open, rename, stat, unlink, readFile } from 'node:fs/promises'
import { dirname, join, basename } from 'node:path'
import { ctr } from '@noble/ciphers/aes'
import { equalBytes } from '@noble/ciphers/utils'
import { pbkdf2 } from '@noble/hashes/pbkdf2'
import { scrypt } from '@noble/hashes/scrypt'
import { sha256 } from '@noble/hashes/sha2'
import { keccak_256 } from '@noble/hashes/sha3'
import { bytesToHex, concatBytes, hexToBytes, randomBytes } from '@noble/hashes/utils'
import { KeystoreFormatError, KeystorePassphraseError, KeystorePermissionError } from '../../core/custody/errors.ts'

/**
 * Web3 Secret Storage v3 (the geth / ethers / MetaMask keystore format). The primitives are noble's
 * (scrypt, pbkdf2-hmac-sha256, keccak256, AES-128-CTR); this module holds the format's composition,
 * the validation that names each field and rule, and the file handling.
 */
export type KeystoreV3 = {
  version: 3
  id: string
  address: string
  crypto: {
    cipher: 'aes-128-ctr'
    cipherparams: { iv: string }
    ciphertext: string
    kdf: 'scrypt' | 'pbkdf2'
    kdfparams: ScryptParams | Pbkdf2Params
    mac: string
  }
}
type ScryptParams = { dklen: number; n: number; r: number; p: number; salt: string }
type Pbkdf2Params = { dklen: number; c: number; prf: 'hmac-sha256'; salt: string }

/** geth's "standard" scrypt cost. Tests pass a smaller n; production keeps this. */
export const DEFAULT_SCRYPT_N = 262_144

export type EncryptKeystoreOptions = { scryptN?: number }

export function encryptKeystore(
  privateKey: Uint8Array,
  address: string,
  passphrase: string,
  options: EncryptKeystoreOptions = {},
): KeystoreV3 {
  assertPassphrase(passphrase)
  const n = options.scryptN ?? DEFAULT_SCRYPT_N
  if (!Number.isInteger(n) || n < 2 || (n & (n - 1)) !== 0) throw new KeystoreFormatError('kdfparams.n', 'must be a power of two >= 2')
  const kdfparams: ScryptParams = { dklen: 32, n, r: 8, p: 1, salt: bytesToHex(randomBytes(32)) }
  const iv = randomBytes(16)
  const derived = deriveKey('scrypt', kdfparams, passphrase)
  try {
    const ciphertext = ctr(derived.subarray(0, 16), iv).encrypt(privateKey)
    return {
      version: 3,
      id: randomUUID(),
      address: address.toLowerCase().replace(/^0x/, ''),
      crypto: {
        cipher: 'aes-128-ctr',
        cipherparams: { iv: bytesToHex(iv) },
        ciphertext: bytesToHex(ciphertext),
        kdf: 'scrypt',
        kdfparams,
        mac: bytesToHex(mac(derived, ciphertext)),
      },
    }
  } finally {
    derived.fill(0)
  }
}

/** Returns the 32 key bytes; the caller owns (and should zero) them. */
export function decryptKeystore(json: unknown, passphrase: string, path?: string): Uint8Array {
  const c = parseKeystore(json, path).crypto
  const ciphertext = hexToBytes(c.ciphertext)
  const derived = deriveKey(c.kdf, c.kdfparams, passphrase, path)
  try {
    // equalBytes compares in constant time.
    if (!equalBytes(mac(derived, ciphertext), hexToBytes(c.mac))) throw new KeystorePassphraseError(path)
    return ctr(derived.subarray(0, 16), hexToBytes(c.cipherparams.iv)).decrypt(ciphertext)
  } finally {
    derived.fill(0)
  }
}

/**
 * Writes the keystore atomically (temp file + rename) with mode 0600 in a directory created 0700,
 * then checks the mode that actually landed on disk. Refuses to replace an existing key unless
 * `overwrite` is set, because losing a LocalKey key means losing its delegation.
 */
export async function writeKeystoreFile(path: string, keystore: KeystoreV3, options: { overwrite?: boolean } = {}): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 })
  if (!options.overwrite && (await exists(path))) {
    throw new KeystoreFormatError('path', 'a keystore already exists here; refusing to overwrite it', path)
  }
  const tmp = join(dirname(path), `.${basename(path)}.${randomUUID()}.tmp`)
  const handle = await open(tmp, 'wx', 0o600)
  try {
    await handle.writeFile(JSON.stringify(keystore, null, 2))
    await handle.sync()
  } finally {
    await handle.close()
  }
  try {
    await rename(tmp, path)
  } catch (err) {
    await unlink(tmp).catch(() => undefined)
    throw err
  }
  if (process.platform === 'win32') return
  let mode = (await stat(path)).mode & 0o777
  if (mode !== 0o600) {
    await chmod(path, 0o600)
    mode = (await stat(path)).mode & 0o777
    if (mode !== 0o600) throw new KeystorePermissionError(path, mode, 'could not be set to 0600 after writing')
  }
}

/**
 * Reads a keystore file, refusing one that group or others can read or write (as ssh does for
 * private keys): such a file may already have been copied, and a silent load would hide that.
 */
export async function readKeystoreFile(path: string): Promise<KeystoreV3> {
  if (process.platform !== 'win32') {
    const mode = (await stat(path)).mode
    if ((mode & 0o077) !== 0) throw new KeystorePermissionError(path, mode, 'group/others have access; run chmod 600 on it')
  }
  let json: unknown
  try {
    json = JSON.parse(await readFile(path, 'utf8'))
  } catch {
    throw new KeystoreFormatError('file', 'is not valid JSON', path)
  }
  return parseKeystore(json, path)
}

/** the LocalKey key lives at $GOLEM_DATA/session-key.json. */
export function defaultKeystorePath(golemData: string): string {
  return join(golemData, 'session-key.json')
}

function parseKeystore(json: unknown, path?: string): KeystoreV3 {
  const fail = (field: string, rule: string): never => {
    throw new KeystoreFormatError(field, rule, path)
  }
  if (typeof json !== 'object' || json === null) return fail('file', 'must be a JSON object')
  const ks = json as Partial<KeystoreV3>
  if (ks.version !== 3) fail('version', 'must be 3')
  const c = ks.crypto ?? (json as { Crypto?: KeystoreV3['crypto'] }).Crypto
  if (typeof c !== 'object' || c === null) return fail('crypto', 'is missing')
  if (c.cipher !== 'aes-128-ctr') fail('crypto.cipher', 'only aes-128-ctr is supported')
  for (const [field, value] of [
    ['crypto.ciphertext', c.ciphertext],
    ['crypto.mac', c.mac],
    ['crypto.cipherparams.iv', c.cipherparams?.iv],
  ] as const) {
    if (!isHex(value) || value.length === 0) fail(field, 'must be non-empty hex')
  }
  if (c.ciphertext.length !== 64) fail('crypto.ciphertext', 'must decrypt to 32 bytes')
  if (c.mac.length !== 64) fail('crypto.mac', 'must be 32 bytes (keccak256)')
  if (c.cipherparams.iv.length !== 32) fail('crypto.cipherparams.iv', 'must be 16 bytes')
  if (c.kdf !== 'scrypt' && c.kdf !== 'pbkdf2') fail('crypto.kdf', 'only scrypt and pbkdf2 are supported')
  return { ...(ks as KeystoreV3), crypto: c }
}

function deriveKey(kdf: 'scrypt' | 'pbkdf2', params: ScryptParams | Pbkdf2Params, passphrase: string, path?: string): Uint8Array {
  assertPassphrase(passphrase)
  if (!isHex(params?.salt)) throw new KeystoreFormatError('crypto.kdfparams.salt', 'must be hex', path)
  const salt = hexToBytes(params.salt)
  if (params.dklen !== 32) throw new KeystoreFormatError('crypto.kdfparams.dklen', 'must be 32', path)
  if (kdf === 'scrypt') {
    const { n, r, p } = params as ScryptParams
    if (![n, r, p].every((v) => Number.isInteger(v) && v > 0))
      throw new KeystoreFormatError('crypto.kdfparams', 'n, r, p must be positive integers', path)
    if (n < 2 || (n & (n - 1)) !== 0) throw new KeystoreFormatError('crypto.kdfparams.n', 'must be a power of two >= 2', path)
    // RFC 7914 requires n < 2^(16 r). noble would run such parameters anyway; geth, ethers and
    // MetaMask never write them, so a file that breaks the RFC is refused with the rule's name.
    if (Math.log2(n) >= 16 * r)
      throw new KeystoreFormatError(
        'crypto.kdfparams',
        `n = ${n} with r = ${r} breaks RFC 7914 (n < 2^(16 r)); re-encrypt the key with r = 8`,
        path,
      )
    try {
      return scrypt(passphrase, salt, { N: n, r, p, dkLen: 32 })
    } catch (err) {
      // noble refuses parameters past its limits (p too large, memory over 1 GiB); its message names them.
      throw new KeystoreFormatError('crypto.kdfparams', `scrypt refuses them: ${(err as Error).message}`, path)
    }
  }
  const { c, prf } = params as Pbkdf2Params
  if (prf !== 'hmac-sha256') throw new KeystoreFormatError('crypto.kdfparams.prf', 'only hmac-sha256 is supported', path)
  if (!Number.isInteger(c) || c <= 0) throw new KeystoreFormatError('crypto.kdfparams.c', 'must be a positive integer', path)
  return pbkdf2(sha256, passphrase, salt, { c, dkLen: 32 })
}

/** MAC = keccak256(derived[16..32] ‖ ciphertext), the Web3 Secret Storage rule. */
function mac(derived: Uint8Array, ciphertext: Uint8Array): Uint8Array {
  return keccak_256(concatBytes(derived.subarray(16, 32), ciphertext))
}

/** Even-length hex without a prefix: what Web3 Secret Storage writes for every byte field. */
function isHex(value: unknown): value is string {
  return typeof value === 'string' && value.length % 2 === 0 && /^[0-9a-fA-F]*$/.test(value)
}

function assertPassphrase(passphrase: string): void {
  if (typeof passphrase !== 'string' || passphrase.length === 0) throw new KeystoreFormatError('passphrase', 'must be a non-empty string')
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path)
    return true
  } catch {
    return false
  }
}
