import { describe, expect, it } from 'vitest'
import { concurrently, T0, type Backend } from './fixtures.ts'

const ARN = (n: number) => `arn:aws:kms:us-east-1:111122223333:key/0000000${n}-aaaa-bbbb-cccc-000000000000`
const A = '0x00000000000000000000000000000000000000a1'
const B = '0x00000000000000000000000000000000000000b2'

export function poolKeySuite(backend: Backend): void {
  describe('KMS pool key claims', () => {
    it('a key is taken once; its claimant asking again gets the same claim back, and finds it by claimant', async () => {
      const store = await backend.newStore()
      expect(await store.getPoolKeyClaim(ARN(1))).toBeNull()
      const first = await store.claimPoolKey({ keyId: ARN(1), address: A, claimant: `rotation:${B}`, now: T0 })
      expect(first).toEqual({ claimed: true, claim: { keyId: ARN(1), address: A, claimant: `rotation:${B}`, claimedAt: T0 } })
      const again = await store.claimPoolKey({ keyId: ARN(1), address: A, claimant: `rotation:${B}`, now: T0 + 5 })
      expect(again).toEqual(first)
      const other = await store.claimPoolKey({ keyId: ARN(1), address: A, claimant: 'onboard:golem-2', now: T0 + 6 })
      expect(other).toEqual({ claimed: false, claim: first.claim })
      expect(await store.findPoolKeyClaim(`rotation:${B}`)).toEqual(first.claim)
      expect(await store.findPoolKeyClaim('onboard:golem-2')).toBeNull()
    })

    it('of 10 concurrent claimants exactly one takes the key', async () => {
      const store = await backend.newStore()
      const results = await concurrently(10, (i) => store.claimPoolKey({ keyId: ARN(2), address: A, claimant: `tick-${i}`, now: T0 }))
      const winners = results.filter((r) => r.claimed)
      expect(winners).toHaveLength(1)
      expect(results.every((r) => r.claim.claimant === winners[0]!.claim.claimant)).toBe(true)
    })

    it('refuses bad input, writing nothing', async () => {
      const store = await backend.newStore()
      await expect(store.claimPoolKey({ keyId: '', address: A, claimant: 'c', now: T0 })).rejects.toMatchObject({ field: 'keyId' })
      await expect(store.claimPoolKey({ keyId: ARN(3), address: '0x12' as never, claimant: 'c', now: T0 })).rejects.toMatchObject({
        field: 'address',
      })
      await expect(store.claimPoolKey({ keyId: ARN(3), address: A, claimant: 'has space', now: T0 })).rejects.toMatchObject({
        field: 'claimant',
      })
      await expect(store.claimPoolKey({ keyId: ARN(3), address: A, claimant: 'c', now: -1 })).rejects.toMatchObject({ field: 'now' })
      expect(await store.getPoolKeyClaim(ARN(3))).toBeNull()
    })
  })
}
