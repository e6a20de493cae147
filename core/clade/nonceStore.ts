// Single-use Clade nonces. Only nonces that were *used* are stored (issued ones are recognised by their
// MAC, see challenge.ts), so the store holds at most one record per successful authentication.
import type { Hex } from 'viem'

export interface NonceStore {
  /**
   * Marks `nonce` used and returns true, or returns false when it was already used and that record has
   * not expired (`expiresAt` > `nowSeconds`). Must be atomic across processes: a conditional put
   * (`attribute_not_exists(pk) OR expiresAt <= :now`), since the store has no transactions and no TTL.
   */
  useNonce(nonce: Hex, expiresAt: number, nowSeconds: number): Promise<boolean>
}

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
