import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inspect } from 'node:util'
import { hexToBytes, keccak256, type Hex } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { afterAll, describe, expect, it } from 'vitest'
import { createGolemSigner } from '../../adapters/signers/createGolemSigner.ts'
import type { SessionKeyEvent } from './events.ts'
import { GolemSigner } from './golemSigner.ts'
import { decryptKeystore, encryptKeystore } from '../../adapters/signers/keystore.ts'
import { MemoryKey } from './memoryKey.ts'
import { REDACTED, redactText } from './redact.ts'
import { SessionKey } from './sessionKey.ts'
import { policy, subDelegation, tx } from '../../test/support/custody/fixtures.ts'

const dirs: string[] = []
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})

/** Every way a value reaches a log or a response. */
function renderings(value: unknown): string[] {
  const json = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x))
  return [
    json(value),
    inspect(value, { depth: Infinity, showHidden: true }),
    inspect(value, { depth: Infinity, customInspect: false, showHidden: true }),
    String(value),
    `${value as string}`,
  ]
}
function expectNoKey(value: unknown, keyHex: Hex) {
  const bare = keyHex.slice(2).toLowerCase()
  for (const text of renderings(value)) expect(text.toLowerCase()).not.toContain(bare)
}
async function thrown(p: Promise<unknown> | (() => unknown)) {
  try {
    await (typeof p === 'function' ? p() : p)
  } catch (e) {
    return e as Error
  }
  throw new Error('expected a throw')
}
function expectErrorClean(err: Error, secret: string) {
  const all = [err.message, err.stack ?? '', JSON.stringify(err), inspect(err, { depth: Infinity, showHidden: true }), String(err)]
  for (const text of all) expect(text.toLowerCase()).not.toContain(secret.toLowerCase())
}

describe('key material never reaches JSON, inspect, String() or errors', () => {
  const privateKey = generatePrivateKey()

  it('MemoryKey, SessionKey, GolemSigner and its account render without the key', async () => {
    const key = MemoryKey.fromBytes(hexToBytes(privateKey))
    const events: SessionKeyEvent[] = []
    const sk = SessionKey.fromMemoryKey(key, { expiresAt: 2_000_000_000, initialBudget: 10n, onEvent: (e) => events.push(e) })
    const golem = new GolemSigner({ signer: sk.signer, policy: policy(), recorder: sk })
    await golem.signRedemptionTransaction(tx(), { spent: 9n })
    for (const v of [key, sk, golem, golem.account, sk.signer, events]) expectNoKey(v, privateKey)
    expect(JSON.parse(JSON.stringify(sk))).toEqual({ address: sk.address, zeroed: false, operationsSigned: 1, key: REDACTED })
    expect(inspect(golem)).toContain(REDACTED)
    expect(String(key)).toMatch(/^MemoryKey\(\{"address":"0x[0-9a-fA-F]{40}","zeroed":false,"key":"\[redacted\]"\}\)$/)
  })

  it('errors from refusals, zeroing and keystores carry no key', async () => {
    const key = MemoryKey.fromBytes(hexToBytes(privateKey))
    const sk = SessionKey.fromMemoryKey(key, { expiresAt: 2_000_000_000, initialBudget: 0n })
    const golem = new GolemSigner({ signer: sk.signer, policy: policy(), recorder: sk })
    expectErrorClean(await thrown(golem.account.signMessage({ message: privateKey })), privateKey.slice(2))
    expectErrorClean(await thrown(golem.signDelegation(subDelegation('0x9999999999999999999999999999999999999999'))), privateKey.slice(2))
    sk.zero()
    expectErrorClean(await thrown(golem.signRedemptionTransaction(tx())), privateKey.slice(2))
    const ks = encryptKeystore(hexToBytes(privateKey), sk.address, 'right', { scryptN: 1024 })
    expectErrorClean(await thrown(() => decryptKeystore(ks, 'wrong')), privateKey.slice(2))
  })

  it('a LocalKey GolemSigner built from a keystore renders without the key', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bardo-redact-'))
    dirs.push(dir)
    const path = join(dir, 'session-key.json')
    const { signer } = await createGolemSigner(
      {
        mode: 'LocalKey',
        privateKeyPath: path,
        delegationBounds: { maxDailySpendUsd: 1_000_000_000n, maxTotalCalls: 500, expiresAt: 2_000_000_000, allowedTargets: [] },
      },
      { policy: policy(), keystorePassphrase: 'pw', createKeystoreIfMissing: true, scryptN: 1024 },
    )
    const bytes = decryptKeystore(JSON.parse(await readFile(path, 'utf8')), 'pw')
    const hex = `0x${Buffer.from(bytes).toString('hex')}` as Hex
    bytes.fill(0)
    expectNoKey(signer, hex)
    expect(signer.kind).toBe('keystore')
  })

  it('redactText scrubs key-shaped hex but keeps addresses and signatures', () => {
    const address = '0x1111111111111111111111111111111111111111'
    const signature = `0x${'ab'.repeat(65)}`
    expect(redactText(`key ${privateKey} and bare ${privateKey.slice(2)}!`)).toBe(`key ${REDACTED} and bare ${REDACTED}!`)
    expect(redactText(`${address} ${signature}`)).toBe(`${address} ${signature}`)
    expect(redactText(keccak256('0x'))).toBe(REDACTED)
  })
})
