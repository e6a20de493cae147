import { describe, expect, it } from 'vitest'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { localOwnerKey, OwnerKeyConfigError } from './ownerKey.ts'

describe('the demo owner key (BARDO_OWNER_KEY)', () => {
  it('is a fresh key per run unless given, and the given key when it is one', () => {
    expect(localOwnerKey({}).account.address).not.toBe(localOwnerKey({}).account.address)
    const key = generatePrivateKey()
    expect(localOwnerKey({ BARDO_OWNER_KEY: key }).account.address).toBe(privateKeyToAccount(key).address)
  })

  it('refuses a value that is no private key, naming the variable and never echoing the value', () => {
    for (const bad of ['0x1234', 'not-a-key', `0x${'0'.repeat(64)}`]) {
      const attempt = () => localOwnerKey({ BARDO_OWNER_KEY: bad })
      expect(attempt).toThrow(OwnerKeyConfigError)
      expect(attempt).toThrow(/^BARDO_OWNER_KEY: must be/)
      try {
        attempt()
      } catch (e) {
        expect((e as Error).message).not.toContain(bad)
      }
    }
  })
})
