// In-process implementations of core's small ports, for suites that run the API without a store.
// Deployed code and the local runner reach the same ports through the Store (functions/api/storeAdapters.ts,
// and storeOperatorRegistry in functions/api/wiring.ts), whose conformance suite pins their semantics.
import { getAddress, type Address, type Hex } from 'viem'
import type { NonceStore } from '../../core/clade/nonceStore.ts'
import type { OperatorRegistry } from '../../core/clade/operators.ts'
import type { RateLimitCounterStore } from '../../core/ratelimit/counterStore.ts'
import type { SnapTokenStore } from '../../core/snap/snapToken.ts'

export class MemoryNonceStore implements NonceStore {
  readonly #used = new Map<string, number>()

  async useNonce(nonce: Hex, expiresAt: number, nowSeconds: number): Promise<boolean> {
    const key = nonce.toLowerCase()
    const previous = this.#used.get(key)
    if (previous !== undefined && previous > nowSeconds) return false
    this.#used.set(key, expiresAt)
    if (this.#used.size > 10_000) for (const [k, exp] of this.#used) if (exp <= nowSeconds) this.#used.delete(k)
    return true
  }
}

/** In-process counters. Share one instance between apps to model several Lambda instances on one table. */
export class MemoryRateLimitCounterStore implements RateLimitCounterStore {
  readonly #counts = new Map<string, { count: number; expiresAt: number }>()

  async incrementRateLimitCounter(bucket: string, windowStart: number, expiresAt: number): Promise<number> {
    const key = `${bucket}@${windowStart}`
    const entry = this.#counts.get(key) ?? { count: 0, expiresAt }
    entry.count += 1
    this.#counts.set(key, entry)
    this.#sweep(windowStart)
    return entry.count
  }

  /** Drops counters of windows that closed, so a long-running local server does not grow forever. */
  #sweep(nowSeconds: number): void {
    if (this.#counts.size < 10_000) return
    for (const [key, entry] of this.#counts) if (entry.expiresAt <= nowSeconds) this.#counts.delete(key)
  }
}

export class MemorySnapTokenStore implements SnapTokenStore {
  readonly #hashes = new Map<Address, Hex>()
  async getSnapTokenHash(owner: Address): Promise<Hex | undefined> {
    return this.#hashes.get(getAddress(owner))
  }
  async setSnapTokenHash(owner: Address, tokenHash: Hex): Promise<void> {
    this.#hashes.set(getAddress(owner), tokenHash)
  }
  async replaceSnapTokenHash(owner: Address, expectedHash: Hex, tokenHash: Hex): Promise<boolean> {
    if (this.#hashes.get(getAddress(owner)) !== expectedHash) return false
    this.#hashes.set(getAddress(owner), tokenHash)
    return true
  }
}

/** Operators from a map (golem address -> operator address), for suites that name a Clade's operators outright. */
export class ConfigOperatorRegistry implements OperatorRegistry {
  readonly #operators: Map<string, Address>

  constructor(operators: Readonly<Record<string, string>>) {
    this.#operators = new Map(Object.entries(operators).map(([golem, op]) => [getAddress(golem), getAddress(op)]))
  }

  async operatorOf(agent: Address): Promise<Address | undefined> {
    return this.#operators.get(getAddress(agent))
  }
}
