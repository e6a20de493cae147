// The API's three store needs, served by core/store's `Store` (DynamoDB or in-memory). core/store
// counts time in unix milliseconds; the API's interfaces use unix seconds where the wire does.
import { getAddress, type Address, type Hex } from 'viem'
import type { NonceStore } from '../../core/clade/nonceStore.ts'
import type { RateLimitCounterStore } from '../../core/ratelimit/counterStore.ts'
import { RETRY, retry } from '../../core/retry.ts'
import { StoreConflictError } from '../../core/store/errors.ts'
import type { CounterStore, NonceStore as StoreNonces, SnapTokenStore as StoreSnapTokens } from '../../core/store/store.ts'
import type { Clock } from './deps.ts'
import type { SnapTokenStore } from '../../core/snap/snapToken.ts'
import type { DeviceDecision } from '../../core/auth/deviceCode.ts'
import type { DeviceAuthStore, TakeResult } from '../../core/auth/deviceStore.ts'

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
      const policy = {
        attempts: 2,
        exhausted: (): never => {
          throw new StoreConflictError('snapToken', 'was rotated concurrently twice; retry the rotation', { owner })
        },
      }
      await retry<void>(policy, async () => {
        const current = await store.getSnapToken({ scope, now: rotatedAt * 1000 })
        const result = await store.rotateSnapToken({
          scope,
          tokenHash,
          expectedHash: current?.tokenHash ?? null,
          now: rotatedAt * 1000,
          graceMs: 0,
        })
        return result.rotated ? undefined : RETRY
      })
    },
    async replaceSnapTokenHash(owner, expectedHash, tokenHash, rotatedAt) {
      const result = await store.rotateSnapToken({ scope: scopeOf(owner), tokenHash, expectedHash, now: rotatedAt * 1000, graceMs: 0 })
      return result.rotated
    },
  }
}

/**
 * Device-code sign-in over store nonces: each entry is a nonce issued once and consumed once (a
 * conditional write either way), so a user code confirms one device and a decision yields one token.
 */
export function deviceAuthFromStore(store: StoreNonces): DeviceAuthStore {
  const take = async <T>(nonce: string, now: number, read: (meta: Record<string, unknown>) => T): Promise<TakeResult<T>> => {
    const r = await store.consumeNonce({ nonce, now: now * 1000 })
    return r.consumed ? { taken: true, value: read((r.record.meta ?? {}) as Record<string, unknown>) } : { taken: false, reason: r.reason }
  }
  const issue = async (nonce: string, now: number, expiresAt: number, meta: Record<string, string>) => {
    try {
      await store.issueNonce({ nonce, issuedAt: now * 1000, expiresAt: expiresAt * 1000, meta })
      return true
    } catch (err) {
      if (err instanceof StoreConflictError) return false
      throw err
    }
  }
  return {
    openUserCode: (p) => issue(`auth-user:${p.userCode}`, p.now, p.expiresAt, { purpose: 'device-user-code', device: p.device }),
    takeUserCode: (p) => take(`auth-user:${p.userCode}`, p.now, (m) => ({ device: m.device as Hex })),
    async recordDecision(p) {
      // The user code was taken once, so there is one decision per device code; a conflict is a bug.
      if (
        !(await issue(`auth-device:${p.device}`, p.now, p.expiresAt, { purpose: 'device-decision', owner: p.owner, decision: p.decision }))
      )
        throw new StoreConflictError('deviceDecision', 'was already recorded for this device code')
    },
    takeDecision: (p) =>
      take(`auth-device:${p.device}`, p.now, (m) => ({ owner: getAddress(m.owner as string), decision: m.decision as DeviceDecision })),
    spendRefreshToken: (p) => issue(`auth-refresh:${p.id}`, p.now, p.expiresAt, { purpose: 'spent-refresh-token' }),
  }
}
