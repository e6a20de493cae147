// The API's three store needs, served by core/store's `Store` (DynamoDB or in-memory). core/store
// counts time in unix milliseconds; the API's interfaces use unix seconds where the wire does.
import { getAddress, type Address, type Hex } from 'viem'
import type { NonceStore } from '../../core/clade/nonceStore.ts'
import type { RateLimitCounterStore } from '../../core/ratelimit/counterStore.ts'
import { StoreConflictError } from '../../core/store/errors.ts'
import type { CounterStore, NonceStore as StoreNonces, SnapTokenStore as StoreSnapTokens } from '../../core/store/store.ts'
import type { Clock } from './deps.ts'
import type { SnapTokenStore } from '../../core/snap/snapToken.ts'

export function rateLimitCountersFromStore(store: CounterStore): RateLimitCounterStore {
  return {
    async incrementRateLimitCounter(bucket, windowStart, expiresAt, nowMs) {
      const value = await store.incrementCounter({
        key: bucket,
        windowStart: windowStart * 1000,
        windowSeconds: expiresAt - windowStart,
        now: nowMs,
      })
      return value.count
    },
  }
}

/**
 * A used Clade nonce is a store nonce issued at its first use: core/store refuses to issue a nonce
 * twice (a conditional put), which is exactly "single use".
 */
export function cladeNoncesFromStore(store: StoreNonces): NonceStore {
  return {
    async useNonce(nonce: Hex, expiresAt: number, nowSeconds: number) {
      try {
        await store.issueNonce({ nonce, issuedAt: nowSeconds * 1000, expiresAt: expiresAt * 1000, meta: { purpose: 'clade-challenge' } })
        return true
      } catch (err) {
        if (err instanceof StoreConflictError) return false
        throw err
      }
    },
  }
}

const scopeOf = (owner: Address) => `snap-owner:${getAddress(owner).toLowerCase()}`

/** One Snap token per owner (store scope `snap-owner:<address>`), no grace for the replaced token. */
export function snapTokensFromStore(store: StoreSnapTokens, clock: Clock): SnapTokenStore {
  return {
    async getSnapTokenHash(owner) {
      return (await store.getSnapToken({ scope: scopeOf(owner), now: clock.now() }))?.tokenHash
    },
    async setSnapTokenHash(owner, tokenHash, rotatedAt) {
      const scope = scopeOf(owner)
      // The rotation is conditional on the hash it replaces; one retry covers a concurrent rotation
      // (two heartbeats racing), after which the later one simply wins.
      for (let attempt = 0; attempt < 2; attempt++) {
        const current = await store.getSnapToken({ scope, now: rotatedAt * 1000 })
        const result = await store.rotateSnapToken({
          scope,
          tokenHash,
          expectedHash: current?.tokenHash ?? null,
          now: rotatedAt * 1000,
          graceMs: 0,
        })
        if (result.rotated) return
      }
      throw new StoreConflictError('snapToken', 'was rotated concurrently twice; retry the rotation', { owner })
    },
    async replaceSnapTokenHash(owner, expectedHash, tokenHash, rotatedAt) {
      const result = await store.rotateSnapToken({ scope: scopeOf(owner), tokenHash, expectedHash, now: rotatedAt * 1000, graceMs: 0 })
      return result.rotated
    },
  }
}
