// The stable id of the Golem a key belongs to: the address of its first key. A rotation hands the id to
// the new key (golems.ts), so every history row can be found by one id across the Golem's whole life.
import type { Context } from 'ponder:registry'
import { golem } from 'ponder:schema'
import type { Address } from 'viem'

/** A key the oracle never saw (a Replicant's) is its own id. */
export async function golemIdOf(context: Context, address: Address): Promise<Address> {
  return (await context.db.find(golem, { address }))?.golemId ?? address
}
