// The first key of the Golem a key belongs to: stable across its life. A rotation hands the first key to
// the new key (golems.ts), so every history row can be found by one address across the Golem's whole life.
import type { Context } from 'ponder:registry'
import { golem } from 'ponder:schema'
import type { Address } from 'viem'

/** A key the oracle never saw (a Replicant's) is its own first key. */
export async function firstKeyOf(context: Context, address: Address): Promise<Address> {
  return (await context.db.find(golem, { address }))?.firstKey ?? address
}
