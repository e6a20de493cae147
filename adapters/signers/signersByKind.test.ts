import { describe, expect, it } from 'vitest'
import type { SignerResolver } from '../../core/custody/signerResolver.ts'
import type { GolemProfile } from '../../core/lifecycle/profile.ts'
import { SignerNotHeldError, SignerResolutionError } from '../../core/custody/errors.ts'
import { SignersByKind } from './signersByKind.ts'

const profile = (signer: GolemProfile['signer']) => ({ signer }) as GolemProfile

function recording(name: string, calls: string[]): SignerResolver {
  return {
    resolve: async (p) => {
      calls.push(`${name}:resolve:${p.signer.kind}`)
      return {} as never
    },
    retire: async (p) => {
      calls.push(`${name}:retire:${p.signer.kind}`)
    },
  }
}

describe('SignersByKind', () => {
  it("hands each profile to its signer kind's resolver, for resolving and retiring", async () => {
    const calls: string[] = []
    const signers = new SignersByKind({ memory: recording('memory', calls), keystore: recording('keystore', calls) })
    await signers.resolve(profile({ kind: 'keystore', path: '/k.json' }))
    await signers.resolve(profile({ kind: 'memory', ref: 'demo' }))
    await signers.retire(profile({ kind: 'keystore', path: '/k.json' }))
    expect(calls).toEqual(['keystore:resolve:keystore', 'memory:resolve:memory', 'keystore:retire:keystore'])
  })

  it('refuses a kind it holds no resolver for, naming the kind and what would add it; retiring one is a no-op', async () => {
    const signers = new SignersByKind({ memory: recording('memory', []) }, { keystore: 'set BARDO_KEYSTORE_PASSPHRASE' })
    const refused = signers.resolve(profile({ kind: 'keystore', path: '/k.json' }))
    await expect(refused).rejects.toBeInstanceOf(SignerResolutionError)
    await expect(refused).rejects.toThrow('signer: this heartbeat holds no keystore keys (set BARDO_KEYSTORE_PASSPHRASE)')
    // Another heartbeat's Golem: its tick's failure is not counted against it (core/lifecycle/heartbeatAnomaly.ts).
    await expect(refused).rejects.toBeInstanceOf(SignerNotHeldError)
    await expect(refused).rejects.toMatchObject({ code: 'SIGNER_NOT_HELD' })
    await expect(signers.resolve(profile({ kind: 'kms', keyId: 'k' }))).rejects.toThrow('signer: this heartbeat holds no kms keys')
    await expect(signers.retire(profile({ kind: 'kms', keyId: 'k' }))).resolves.toBeUndefined()
  })
})
