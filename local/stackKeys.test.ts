import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { isStackKey, newStackKey, removeStackKeys, stackKeys, withoutStackKeys } from './stackKeys.ts'
import { SignerNotHeldError } from '../core/custody/errors.ts'
import type { GolemProfile } from '../core/lifecycle/profile.ts'
import { loadKeystoreKey } from '../adapters/signers/keystoreSigner.ts'

describe("the stack's own keys", () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'bardo-stack-keys-'))
  afterAll(() => rmSync(stateDir, { recursive: true, force: true }))

  it('writes each key encrypted, mode 0600, under the state directory; another process with the secret loads it', async () => {
    const keys = stackKeys({ BARDO_KEYSTORE_SCRYPT_N: '1024' }, stateDir)
    const { address, signer } = await newStackKey(keys, 'demo')
    expect(signer.kind).toBe('keystore')
    expect(isStackKey(keys, signer)).toBe(true)
    const path = (signer as { path: string }).path
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(readFileSync(path, 'utf8')).not.toContain(keys.secret)
    // A child process gets the secret in its environment and resolves the same key.
    const child = stackKeys({ BARDO_STACK_KEY_SECRET: keys.secret }, stateDir)
    const loaded = await loadKeystoreKey(path, child.secret)
    expect(loaded.key.address).toBe(address)
    loaded.key.zero()
    removeStackKeys(keys)
    expect(() => statSync(path)).toThrow()
  })

  it('a fresh secret per run unless one is given; a CLI keystore elsewhere is not the stack key', () => {
    expect(stackKeys({}, stateDir).secret).not.toBe(stackKeys({}, stateDir).secret)
    expect(stackKeys({ BARDO_KEYSTORE_PASSPHRASE: 'a passphrase' }, stateDir).secret).toBe('a passphrase')
    const keys = stackKeys({}, stateDir)
    expect(isStackKey(keys, { kind: 'keystore', path: join(stateDir, 'keys', 'x.json') })).toBe(false)
    expect(isStackKey(keys, { kind: 'keystore', path: join(stateDir, 'stack-keys-evil', 'x.json') })).toBe(false)
    expect(isStackKey(keys, { kind: 'memory', ref: 'session-key:demo' })).toBe(false)
  })

  it('refuses a scrypt cost that is not a power of two of at least 1024, naming the variable', () => {
    for (const bad of ['1000', '512', 'x'])
      expect(() => stackKeys({ BARDO_KEYSTORE_SCRYPT_N: bad }, stateDir)).toThrow(
        /^BARDO_KEYSTORE_SCRYPT_N: must be a power of two of at least 1024, got /,
      )
  })

  it("a heartbeat outside the stack leaves the stack's keys alone: not held, never retired", async () => {
    const keys = stackKeys({ BARDO_KEYSTORE_SCRYPT_N: '1024' }, stateDir)
    const { address, signer } = await newStackKey(keys, 'demo')
    const calls: string[] = []
    const other = {
      resolve: async () => {
        calls.push('resolve')
        throw new Error('not reached')
      },
      retire: async () => void calls.push('retire'),
    }
    const resolver = withoutStackKeys(keys, other)
    const profile = { golemKey: address, signer } as unknown as GolemProfile
    expect(() => resolver.resolve(profile)).toThrow(SignerNotHeldError)
    await resolver.retire(profile)
    expect(calls).toEqual([])
    expect(statSync((signer as { path: string }).path).isFile()).toBe(true)
    await resolver.retire({
      golemKey: address,
      signer: { kind: 'keystore', path: join(stateDir, 'keys', 'x.json') },
    } as unknown as GolemProfile)
    expect(calls).toEqual(['retire'])
    removeStackKeys(keys)
  })
})
