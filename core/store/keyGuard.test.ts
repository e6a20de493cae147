import { describe, expect, it } from 'vitest'
import { KeyMaterialError } from './errors.ts'
import { assertNoKeyMaterial } from './keyGuard.ts'

const KEY = '4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318'
const HASH = `0x${'9f'.repeat(32)}`
const PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow'

function refusal(item: Record<string, unknown>): KeyMaterialError {
  try {
    assertNoKeyMaterial(item)
  } catch (err) {
    if (err instanceof KeyMaterialError) return err
    throw err
  }
  throw new Error('expected a KeyMaterialError')
}

describe('assertNoKeyMaterial', () => {
  it('allows what the store holds: hashes, nonces, addresses, signatures, delegations', () => {
    expect(() =>
      assertNoKeyMaterial({
        pk: `PAYMENT#0x${'11'.repeat(20)}#${HASH}`,
        sk: 'PAYMENT',
        txHash: HASH,
        nonce: HASH,
        tokenHash: HASH,
        sessionKeyAddress: `0x${'ab'.repeat(20)}`,
        publicKey: `0x04${'cd'.repeat(64)}`,
        delegation: JSON.stringify({
          authority: HASH,
          salt: HASH,
          caveats: [{ enforcer: `0x${'22'.repeat(20)}`, terms: HASH }],
          signature: `0x${'ef'.repeat(65)}`,
        }),
        data: { delegationHash: HASH, amount: '1'.repeat(64), note: PHRASE, keys: ['rotation'] },
      }),
    ).not.toThrow()
  })

  it.each([
    ['privateKey', { privateKey: `0x${KEY}` }, 'privateKey'],
    ['private_key with any value', { private_key: 'anything' }, 'private_key'],
    ['secret', { clientSecret: 'x' }, 'clientSecret'],
    ['mnemonic', { mnemonic: PHRASE }, 'mnemonic'],
    ['seed phrase', { seedPhrase: PHRASE }, 'seedPhrase'],
    ['passphrase', { keystorePassphrase: 'hunter2' }, 'keystorePassphrase'],
    ['32-byte hex under a key-like name', { sessionKey: `0x${KEY}` }, 'sessionKey'],
    ['32-byte hex without 0x under a key-like name', { signingKey: KEY }, 'signingKey'],
    ['32-byte hex inside text under a key-like name', { keyNote: `key=${KEY};` }, 'keyNote'],
    ['a word phrase under a key-like name', { recoveryKey: PHRASE }, 'recoveryKey'],
    ['nested in a map', { detail: { signer: { privKey: `0x${KEY}` } } }, 'detail.signer.privKey'],
    ['in an array under a key-like name', { keys: ['a', `0x${KEY}`] }, 'keys[1]'],
    [
      'inside JSON text',
      { delegation: JSON.stringify({ caveats: [{ args: '0x', privateKey: `0x${KEY}` }] }) },
      'delegation.caveats[0].privateKey',
    ],
    ['32 raw bytes', { blob: new Uint8Array(32) }, 'blob'],
  ])('refuses %s and names the path', (_label, item, path) => {
    const err = refusal(item)
    expect(err.path).toBe(path)
    expect(err.code).toBe('STORE_KEY_MATERIAL')
  })

  it('never repeats the value in the message or details', () => {
    for (const item of [
      { privateKey: `0x${KEY}` },
      { sessionKey: KEY },
      { mnemonic: PHRASE },
      { delegation: JSON.stringify({ secret: KEY }) },
    ]) {
      const err = refusal(item)
      const seen = `${err.message} ${JSON.stringify(err.details)} ${String(err.stack)}`
      expect(seen).not.toContain(KEY.slice(0, 16))
      expect(seen).not.toContain('sausage')
    }
  })

  it('ignores null and undefined under any name', () => {
    expect(() => assertNoKeyMaterial({ privateKey: undefined, secret: null })).not.toThrow()
  })
})
