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
