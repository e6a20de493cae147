// The row a Golem gets the first time any oracle mentions it. VitalityOracle registers Golems, but the
// Dream and Daimon oracles accept any key, and a deployment may start indexing after a registration.
import type { Address } from 'viem'

export function newGolemRow(address: Address, blockNumber: bigint) {
  return {
    address,
    // A key is its own first key until a rotation says it continues an older Golem.
    firstKey: address,
    registered: false,
    dead: false,
    phase: 0,
    survivalScore: 10_000,
    reportCount: 0,
    transitionCount: 0,
    dreaming: false,
    dreamCount: 0,
    dreamSeconds: 0n,
    updatedBlock: blockNumber,
  }
}
