// The deployed functions' secrets come through SST's own runtime SDK: a resource file encrypted the way
// SST writes it into a bundle (AES-256-GCM, zero nonce, tag at the end, key in SST_KEY), and an
// SST_RESOURCE_<Name> variable, read through functions/shared/resource.ts; the local BARDO_SECRET_*
// spelling is the fallback. SST's Resource reads the environment once, on first use, so the whole
// file shares one environment set up before that. It keeps what it read in its module and on the global
// object: the suites load its module afresh in every file (vitest.config.ts), and this file clears the
// global copy before and after, so neither an earlier file's reading nor this file's links leak.
import { createCipheriv, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'

const RPC_URL = 'https://rpc.example/v1/secret-token'
const OPERATOR_KEY = `0x${'ab'.repeat(32)}`
const dir = mkdtempSync(join(tmpdir(), 'bardo-sst-'))

/** SST's Resource keeps the links it read on the global object, under these names. */
function forgetSstLinks() {
  const state = globalThis as Record<string, unknown>
  delete state.__SST_RESOURCE_RAW__
  delete state.__SST_RESOURCE_ENVIRONMENT__
}

/** What SST writes into a function's bundle for its links: the JSON of every linked resource, sealed. */
function sealResources(resources: Record<string, unknown>, key: Buffer): Buffer {
  const cipher = createCipheriv('aes-256-gcm', key, Buffer.alloc(12, 0))
  const sealed = Buffer.concat([cipher.update(JSON.stringify(resources), 'utf8'), cipher.final()])
  return Buffer.concat([sealed, cipher.getAuthTag()])
}

let resource: typeof import('./resource.ts')

beforeAll(async () => {
  const key = randomBytes(32)
  const file = join(dir, 'resource.enc')
  writeFileSync(
    file,
    sealResources(
      {
        App: { name: 'bardo-custody', stage: 'test' },
        RpcUrl: { type: 'sst.sst.Secret', value: RPC_URL },
        OperatorKey: { type: 'sst.sst.Secret', value: OPERATOR_KEY },
      },
      key,
    ),
  )
  vi.stubEnv('SST_KEY', key.toString('base64'))
  vi.stubEnv('SST_KEY_FILE', file)
  vi.stubEnv('SST_RESOURCE_ReadApiKeyHashes', JSON.stringify({ type: 'sst.sst.Secret', value: 'hash-a,hash-b' }))
  // A linked value wins over the local spelling of the same secret.
  vi.stubEnv('BARDO_SECRET_RPC_URL', 'http://127.0.0.1:8545')
  forgetSstLinks()
  resource = await import('./resource.ts')
})

afterAll(() => {
  vi.unstubAllEnvs()
  forgetSstLinks()
  rmSync(dir, { recursive: true, force: true })
})

describe('secrets through SST Resource', () => {
  it('reads linked secrets from the encrypted resource file (SST_KEY + SST_KEY_FILE)', () => {
    expect(resource.secret('RpcUrl')).toBe(RPC_URL)
    expect(resource.secret('OperatorKey')).toBe(OPERATOR_KEY)
  })

  it('reads a secret linked as an SST_RESOURCE_<Name> variable', () => {
    expect(resource.optionalSecret('ReadApiKeyHashes')).toBe('hash-a,hash-b')
  })

  it('falls back to BARDO_SECRET_<NAME> for a secret SST does not link (the local stack)', () => {
    expect(resource.linkedValue('CladeHmacSecret')).toBeUndefined()
    expect(resource.secret('CladeHmacSecret', { BARDO_SECRET_CLADE_HMAC_SECRET: 'local-hmac' })).toBe('local-hmac')
    expect(resource.localSecretVariable('SettlementKey')).toBe('BARDO_SECRET_SETTLEMENT_KEY')
  })

  it('a secret linked nowhere is refused by name, without its value or any other', () => {
    expect(() => resource.secret('SettlementKey', {})).toThrow('config: secret SettlementKey is not linked to this function')
    expect(resource.optionalSecret('SettlementKey', {})).toBe('')
    try {
      resource.secret('SettlementKey', {})
    } catch (error) {
      expect(String(error)).not.toContain(RPC_URL)
      expect(String(error)).not.toContain(OPERATOR_KEY)
    }
  })
})
