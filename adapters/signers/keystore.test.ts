import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ctr } from '@noble/ciphers/aes'
import { scrypt as nobleScrypt } from '@noble/hashes/scrypt'
import { bytesToHex, concat, hexToBytes, keccak256, recoverTransactionAddress } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { KeystoreFormatError, KeystorePassphraseError, KeystorePermissionError } from '../../core/custody/errors.ts'
import { GolemSigner } from '../../core/custody/golemSigner.ts'
import { decryptKeystore, defaultKeystorePath, encryptKeystore, readKeystoreFile } from './keystore.ts'
import { createKeystoreKey, loadKeystoreKey } from './keystoreSigner.ts'
import { MemoryKey } from '../../core/custody/memoryKey.ts'
import { policy, tx } from '../../test/support/custody/fixtures.ts'

// Low scrypt cost keeps the suite fast; one test below runs the production default.
const FAST = { scryptN: 1024 }
let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bardo-keystore-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

// Test vectors from the Web3 Secret Storage Definition (password "testpassword").
const VECTOR_KEY = '0x7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d'
const SCRYPT_VECTOR = {
  crypto: {
    cipher: 'aes-128-ctr',
    cipherparams: { iv: '83dbcc02d8ccb40e466191a123791e0e' },
    ciphertext: 'd172bf743a674da9cdad04534d56926ef8358534d458fffccd4e6ad2fbde479c',
    kdf: 'scrypt',
    kdfparams: { dklen: 32, n: 262144, r: 1, p: 8, salt: 'ab0c7876052600dd703518d6fc3fe8984592145b591fc8fb5c6d43190334ba19' },
    mac: '2103ac29920d71da29f15d75b4a16dbe95cfd7ff8faea1056c33131d846e3097',
  },
  id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
  version: 3,
}
const PBKDF2_VECTOR = {
  crypto: {
    cipher: 'aes-128-ctr',
    cipherparams: { iv: '6087dab2f9fdbbfaddc31a909735c1e6' },
    ciphertext: '5318b4d5bcd28de64ee5559e671353e16f075ecae9f99c7a79a38af5f869aa46',
    kdf: 'pbkdf2',
    kdfparams: { c: 262144, dklen: 32, prf: 'hmac-sha256', salt: 'ae3cd4e7013836a3df6bd7241b12db061dbe2c6785853cce422d148a624ce0bd' },
    mac: '517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9b2',
  },
  id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
  version: 3,
}

// Written by the node:crypto implementation this module had before it moved to noble, with a
// throwaway key generated for the fixture (it guards nothing).
const LEGACY_FIXTURE = fileURLToPath(new URL('./testdata/legacy-keystore-v3.json', import.meta.url))
const LEGACY_KEY = '0x6a5a8de717e282a94bddb85c95103b7469880fd5214d51f4e3152b35dbbcd693'
const LEGACY_ADDRESS = '0xbd0b4F82d1968794e53285ea18E556b90Aa347Fc'

describe('Web3 Secret Storage v3', () => {
  it('decrypts a keystore written by the earlier node:crypto implementation', async () => {
    const legacy = JSON.parse(await readFile(LEGACY_FIXTURE, 'utf8'))
    expect(bytesToHex(decryptKeystore(legacy, 'throwaway passphrase'))).toBe(LEGACY_KEY)
    expect(() => decryptKeystore(legacy, 'throwaway passphrasE')).toThrow(KeystorePassphraseError)
  })

  it("loads the earlier implementation's file through the signer, address check included", async () => {
    const path = join(dir, 'legacy.json')
    await writeFile(path, await readFile(LEGACY_FIXTURE, 'utf8'), { mode: 0o600 })
    await chmod(path, 0o600)
    const loaded = await loadKeystoreKey(path, 'throwaway passphrase')
    expect(loaded.key.address).toBe(LEGACY_ADDRESS)
    loaded.key.zero()
  })

  it('writes what an independent scrypt/AES/keccak check decrypts (format compatibility)', () => {
    const key = MemoryKey.generate()
    const bytes = key.exportBytesForKeystore()
    const ks = encryptKeystore(bytes, key.address, 'pw', FAST)
    const c = ks.crypto
    const p = c.kdfparams as { n: number; r: number; p: number; salt: string }
    const dk = nobleScrypt('pw', hexToBytes(`0x${p.salt}`), { N: p.n, r: p.r, p: p.p, dkLen: 32 })
    expect(keccak256(concat([dk.subarray(16, 32), hexToBytes(`0x${c.ciphertext}`)])).slice(2)).toBe(c.mac)
    expect(ctr(dk.subarray(0, 16), hexToBytes(`0x${c.cipherparams.iv}`)).decrypt(hexToBytes(`0x${c.ciphertext}`))).toEqual(bytes)
    expect(p.salt).toMatch(/^[0-9a-f]{64}$/)
    expect(c.cipherparams.iv).toMatch(/^[0-9a-f]{32}$/)
  })

  it('reads upper-case hex as the earlier implementation did', async () => {
    const legacy = JSON.parse(await readFile(LEGACY_FIXTURE, 'utf8'))
    const c = legacy.crypto
    const upper = {
      ...legacy,
      crypto: {
        ...c,
        ciphertext: c.ciphertext.toUpperCase(),
        mac: c.mac.toUpperCase(),
        cipherparams: { iv: c.cipherparams.iv.toUpperCase() },
        kdfparams: { ...c.kdfparams, salt: c.kdfparams.salt.toUpperCase() },
      },
    }
    expect(bytesToHex(decryptKeystore(upper, 'throwaway passphrase'))).toBe(LEGACY_KEY)
  })

  it('refuses malformed byte fields and scrypt parameters beyond its limits, naming the field and the rule', async () => {
    const legacy = JSON.parse(await readFile(LEGACY_FIXTURE, 'utf8'))
    const c = legacy.crypto
    const withCrypto = (patch: object) => ({ ...legacy, crypto: { ...c, ...patch } })
    const cases: [object, RegExp][] = [
      [{ ciphertext: `${c.ciphertext}0` }, /keystore crypto.ciphertext: must be non-empty hex/],
      [{ ciphertext: `${c.ciphertext}00` }, /keystore crypto.ciphertext: must decrypt to 32 bytes/],
      [{ mac: c.mac.slice(0, 62) }, /keystore crypto.mac: must be 32 bytes/],
      [{ mac: `${c.mac.slice(0, 62)}zz` }, /keystore crypto.mac: must be non-empty hex/],
      [{ cipherparams: { iv: 'abcd' } }, /keystore crypto.cipherparams.iv: must be 16 bytes/],
      [{ kdfparams: { ...c.kdfparams, salt: 'abc' } }, /keystore crypto.kdfparams.salt: must be hex/],
      [{ kdfparams: { ...c.kdfparams, dklen: 16 } }, /keystore crypto.kdfparams.dklen: must be 32/],
      [{ kdfparams: { ...c.kdfparams, n: 1000 } }, /keystore crypto.kdfparams.n: must be a power of two/],
      [{ kdfparams: { ...c.kdfparams, r: 0 } }, /keystore crypto.kdfparams: n, r, p must be positive integers/],
      [{ kdfparams: { ...c.kdfparams, n: 2 ** 30 } }, /keystore crypto.kdfparams: scrypt refuses them: .*maxmem/],
      [{ kdf: 'pbkdf2', kdfparams: { dklen: 32, c: 1, prf: 'hmac-sha512', salt: '00' } }, /crypto.kdfparams.prf: only hmac-sha256/],
      [{ kdf: 'pbkdf2', kdfparams: { dklen: 32, c: 0, prf: 'hmac-sha256', salt: '00' } }, /crypto.kdfparams.c: must be a positive/],
    ]
    for (const [patch, message] of cases) {
      const err = (() => {
        try {
          decryptKeystore(withCrypto(patch), 'throwaway passphrase')
        } catch (e) {
          return e as Error
        }
      })()
      expect(err, String(message)).toBeInstanceOf(KeystoreFormatError)
      expect(err!.message).toMatch(message)
      expect(err!.message).not.toContain('throwaway passphrase')
    }
  })
  it('decrypts the spec pbkdf2 test vector', () => {
    expect(bytesToHex(decryptKeystore(PBKDF2_VECTOR, 'testpassword'))).toBe(VECTOR_KEY)
  })

  it('refuses the spec scrypt vector (r = 1, n = 2^18) by the RFC 7914 rule n < 2^(16 r) it breaks', () => {
    // The vector itself is right (an independent scrypt decrypts it) ...
    const c = SCRYPT_VECTOR.crypto
    const dk = nobleScrypt('testpassword', hexToBytes(`0x${c.kdfparams.salt}`), { N: c.kdfparams.n, r: 1, p: 8, dkLen: 32 })
    const plain = ctr(dk.subarray(0, 16), hexToBytes(`0x${c.cipherparams.iv}`)).decrypt(hexToBytes(`0x${c.ciphertext}`))
    expect(bytesToHex(plain)).toBe(VECTOR_KEY)
    // ... but it breaks RFC 7914's n < 2^(16 r), which no wallet writes; we refuse it by that rule.
    expect(() => decryptKeystore(SCRYPT_VECTOR, 'testpassword')).toThrow(/breaks RFC 7914/)
  })

  it('decrypts a keystore written by an independent scrypt/AES implementation (geth parameters)', () => {
    const key = hexToBytes(VECTOR_KEY)
    const salt = hexToBytes(`0x${'ab'.repeat(32)}`)
    const iv = hexToBytes(`0x${'cd'.repeat(16)}`)
    const dk = nobleScrypt('pw', salt, { N: 4096, r: 8, p: 1, dkLen: 32 })
    const ciphertext = ctr(dk.subarray(0, 16), iv).encrypt(key)
    const mac = keccak256(concat([dk.subarray(16, 32), ciphertext])).slice(2)
    const ks = {
      version: 3,
      id: 'x',
      crypto: {
        cipher: 'aes-128-ctr',
        cipherparams: { iv: bytesToHex(iv).slice(2) },
        ciphertext: bytesToHex(ciphertext).slice(2),
        kdf: 'scrypt',
        kdfparams: { dklen: 32, n: 4096, r: 8, p: 1, salt: bytesToHex(salt).slice(2) },
        mac,
      },
    }
    expect(bytesToHex(decryptKeystore(ks, 'pw'))).toBe(VECTOR_KEY)
  })

  it('round-trips a key through encrypt/decrypt with the production scrypt cost (n = 2^18)', () => {
    const key = MemoryKey.generate()
    const bytes = key.exportBytesForKeystore()
    const ks = encryptKeystore(bytes, key.address, 'correct horse')
    expect(ks.crypto.kdfparams).toMatchObject({ n: 262_144, r: 8, p: 1, dklen: 32 })
    expect(ks.address).toBe(key.address.toLowerCase().slice(2))
    expect(decryptKeystore(ks, 'correct horse')).toEqual(bytes)
  })

  it('a wrong passphrase is a clear error that carries neither key bytes nor either passphrase', () => {
    const key = MemoryKey.generate()
    const bytes = key.exportBytesForKeystore()
    const ks = encryptKeystore(bytes, key.address, 'right-passphrase-31c9', FAST)
    const err = (() => {
      try {
        decryptKeystore(ks, 'wrong-passphrase-7f3a')
      } catch (e) {
        return e as KeystorePassphraseError
      }
    })()
    expect(err).toBeInstanceOf(KeystorePassphraseError)
    expect(err!.message).toBe('keystore passphrase is wrong: MAC mismatch')
    expect(err!.code).toBe('KEYSTORE_PASSPHRASE')
    const rendered = JSON.stringify({ ...err, message: err!.message, stack: err!.stack })
    expect(rendered).not.toContain(bytesToHex(bytes).slice(2))
    expect(rendered).not.toContain('passphrase-7f3a')
    expect(rendered).not.toContain('passphrase-31c9')
  })

  it('refuses unsupported ciphers and malformed files, naming the field', () => {
    expect(() => decryptKeystore({ ...SCRYPT_VECTOR, version: 1 }, 'x')).toThrow(/keystore version: must be 3/)
    expect(() => decryptKeystore({ ...SCRYPT_VECTOR, crypto: { ...SCRYPT_VECTOR.crypto, cipher: 'aes-256-gcm' } }, 'x')).toThrow(
      /crypto.cipher/,
    )
    expect(() => decryptKeystore({ ...SCRYPT_VECTOR, crypto: { ...SCRYPT_VECTOR.crypto, kdf: 'argon2' } }, 'x')).toThrow(/crypto.kdf/)
    expect(() => decryptKeystore('nope', 'x')).toThrow(KeystoreFormatError)
    expect(() => encryptKeystore(new Uint8Array(32).fill(1), '0x00', '', FAST)).toThrow(/passphrase/)
  })
})

describe('keystore files', () => {
  it('writes mode 0600 in a 0700 directory and the key survives a restart', async () => {
    const path = join(dir, 'golem-a', 'session-key.json')
    const created = await createKeystoreKey(path, 'pass', FAST)
    expect((await stat(path)).mode & 0o777).toBe(0o600)
    expect((await stat(join(dir, 'golem-a'))).mode & 0o777).toBe(0o700)
    const raw = await readFile(path, 'utf8')
    expect(JSON.parse(raw)).toMatchObject({ version: 3, crypto: { cipher: 'aes-128-ctr', kdf: 'scrypt' } })
    expect(raw).not.toContain(bytesToHex(created.key.exportBytesForKeystore()).slice(2))
    const address = created.key.address
    created.key.zero()

    // "Restart": a new signer instance reads the file and signs as the same address.
    const loaded = await loadKeystoreKey(path, 'pass')
    expect(loaded.key.address).toBe(address)
    const golem = new GolemSigner({ signer: loaded.signer, policy: policy() })
    const signed = await golem.signRedemptionTransaction(tx())
    expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(address)
    expect(golem.kind).toBe('keystore')
  })

  it('refuses to overwrite an existing keystore unless asked', async () => {
    const path = join(dir, 'golem-b.json')
    const first = await createKeystoreKey(path, 'pass', FAST)
    await expect(createKeystoreKey(path, 'pass', FAST)).rejects.toThrow(/refusing to overwrite/)
    const second = await createKeystoreKey(path, 'pass', { ...FAST, overwrite: true })
    expect(second.key.address).not.toBe(first.key.address)
    expect((await stat(path)).mode & 0o777).toBe(0o600)
  })

  it('loading with a wrong passphrase throws KeystorePassphraseError', async () => {
    const path = join(dir, 'golem-c.json')
    await createKeystoreKey(path, 'pass', FAST)
    await expect(loadKeystoreKey(path, 'Pass')).rejects.toThrow(KeystorePassphraseError)
  })

  it('refuses to load a file that group or others can read', async () => {
    const path = join(dir, 'golem-d.json')
    await createKeystoreKey(path, 'pass', FAST)
    await chmod(path, 0o644)
    const err = await loadKeystoreKey(path, 'pass').catch((e) => e)
    expect(err).toBeInstanceOf(KeystorePermissionError)
    expect(err.message).toMatch(/mode 0644: group\/others have access; run chmod 600/)
  })

  it('refuses a keystore whose address field does not match its key', async () => {
    const path = join(dir, 'golem-e.json')
    await createKeystoreKey(path, 'pass', FAST)
    const ks = await readKeystoreFile(path)
    await writeFile(path, JSON.stringify({ ...ks, address: '1111111111111111111111111111111111111111' }), { mode: 0o600 })
    await expect(loadKeystoreKey(path, 'pass')).rejects.toThrow(/keystore address: does not match the decrypted key/)
  })

  it('refuses a file that is not JSON', async () => {
    const path = join(dir, 'golem-f.json')
    await writeFile(path, 'not json', { mode: 0o600 })
    await expect(loadKeystoreKey(path, 'pass')).rejects.toThrow(/keystore file: is not valid JSON/)
  })

  it('puts the LocalKey keystore at $GOLEM_DATA/session-key.json', () => {
    expect(defaultKeystorePath('/var/golem')).toBe('/var/golem/session-key.json')
  })
})
