import { KMSClient } from '@aws-sdk/client-kms'
import { mockClient } from 'aws-sdk-client-mock'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { answerFromFake, FakeKms, KmsFault } from '../../test/lambda/fakeKms.ts'
import { KmsSignerError } from '../../core/custody/errors.ts'
import { KmsKeyNameError, onboardingAlias, rotationAlias, sessionKeyAliasPrefix, stageOfPrefix } from './kmsKeyNames.ts'
import { ensureSessionKey, findSessionKey } from './kmsKeys.ts'

const kms = mockClient(KMSClient)
const client = new KMSClient({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } })
const PREFIX = 'alias/bardo-custody/dev'
let fake: FakeKms

beforeEach(() => {
  kms.reset()
  fake = new FakeKms()
  answerFromFake(kms, () => fake)
})
afterAll(() => kms.restore())

const ensure = (golemId = 'g-1', deleteLoser = false) =>
  ensureSessionKey({ kms: client, alias: onboardingAlias(PREFIX, golemId), stage: 'dev', golemId, description: 'test', deleteLoser })

describe('SessionKey names', () => {
  it('lives under alias/<app>/<stage>: one alias per Golem, one per rotation', () => {
    expect(sessionKeyAliasPrefix('bardo-custody', 'dev')).toBe(PREFIX)
    expect(stageOfPrefix(PREFIX)).toBe('dev')
    expect(onboardingAlias(PREFIX, 'g-1')).toBe('alias/bardo-custody/dev/golem/g-1')
    expect(rotationAlias(PREFIX, 'g-1', '0x00000000000000000000000000000000000000Ab')).toBe(
      'alias/bardo-custody/dev/golem/g-1/after-0x00000000000000000000000000000000000000ab',
    )
  })

  it('refuses a name KMS or the IAM prefix would not take, naming the field', () => {
    expect(() => sessionKeyAliasPrefix('bardo', 'dev stage')).toThrow(KmsKeyNameError)
    expect(() => sessionKeyAliasPrefix('bardo', 'dev stage')).toThrow('stage: must be 1-64 letters, digits, _ or -')
    expect(() => onboardingAlias('alias/bardo', 'g-1')).toThrow('BARDO_KMS_ALIAS_PREFIX: must be alias/<app>/<stage>')
    expect(() => onboardingAlias(PREFIX, 'G 1')).toThrow('golemId: must be 1-63 lowercase letters, digits or dashes')
  })
})

describe('ensureSessionKey', () => {
  it('creates one secp256k1 signing key, tagged for the stage, the role and the Golem, then names it', async () => {
    const key = await ensure()
    expect(fake.created).toEqual([key.keyId])
    expect(key).toEqual({ keyId: key.keyId, address: privateKeyToAccount(fake.keys[key.keyId]!).address, created: true })
    expect(fake.tags.get(key.keyId)).toEqual({ 'bardo:stage': 'dev', 'bardo:role': 'session-key', 'bardo:golem': 'g-1' })
    expect(fake.aliases.get('alias/bardo-custody/dev/golem/g-1')).toBe(key.keyId)
  })

  it('a retry finds the key by its alias and creates none; so does a retry after KMS refused the new key at first', async () => {
    let refused = false
    fake.fault = (operation, input) => {
      if (operation === 'GetPublicKey' && fake.created.includes(input.KeyId!) && !refused) {
        refused = true
        throw new KmsFault('AccessDeniedException', 'not authorized yet')
      }
    }
    await expect(ensure()).rejects.toThrow(KmsSignerError)
    const again = await ensure()
    expect(again.created).toBe(false)
    expect(fake.created).toEqual([again.keyId])
    expect(await ensure()).toEqual(again)
  })

  it('of two concurrent creators the alias picks one key; the operator CLI schedules its own loser for deletion', async () => {
    const [a, b] = await Promise.all([ensure('g-2', true), ensure('g-2', true)])
    expect(a.keyId).toBe(b.keyId)
    expect(a.address).toBe(b.address)
    expect(fake.aliases.get('alias/bardo-custody/dev/golem/g-2')).toBe(a.keyId)
    expect(fake.created).toHaveLength(2)
    expect(fake.scheduledForDeletion).toEqual(fake.created.filter((id) => id !== a.keyId))
  })

  it('names no key when CreateKey is refused, and passes KMS refusals on by name', async () => {
    fake.fault = (operation) => {
      if (operation === 'CreateKey') throw new KmsFault('AccessDeniedException', 'no kms:CreateKey')
    }
    await expect(ensure('g-3')).rejects.toThrow(/CreateKey failed: AccessDeniedException/)
    expect(fake.aliases.size).toBe(0)
    expect(await findSessionKey(client, onboardingAlias(PREFIX, 'g-3'))).toBeNull()
  })
})
