// Where a Golem's operator is looked up: from configuration, or from an ERC-8004 identity registry on-chain.
import { BaseError, ContractFunctionRevertedError, getAddress, zeroAddress, type Address, type Client } from 'viem'
import { readContract } from 'viem/actions'
import type { OperatorRegistry } from '../../core/clade/operators.ts'

/**
 * Operators from configuration (golem address -> operator address). The default: it works on a local
 * chain and for a single-operator deployment without an identity contract.
 */
export class ConfigOperatorRegistry implements OperatorRegistry {
  readonly #operators: Map<string, Address>

  constructor(operators: Readonly<Record<string, string>>) {
    this.#operators = new Map(Object.entries(operators).map(([golem, op]) => [getAddress(golem), getAddress(op)]))
  }

  async operatorOf(agent: Address): Promise<Address | undefined> {
    return this.#operators.get(getAddress(agent))
  }
}

/** The one view an ERC-8004-style identity registry must expose for Clade auth. */
export const erc8004OperatorAbi = [
  {
    type: 'function',
    name: 'operatorOf',
    stateMutability: 'view',
    inputs: [{ name: 'agent', type: 'address' }],
    outputs: [{ name: 'operator', type: 'address' }],
  },
] as const

/**
 * Reads `operatorOf(agent)` from an identity contract. The zero address and a revert both mean "not
 * registered" (a 401 at the edge); an RPC failure is thrown, because an outage is not a bad credential.
 */
export function erc8004OperatorRegistry(client: Client, registry: Address): OperatorRegistry {
  return {
    async operatorOf(agent) {
      try {
        const op = await readContract(client, { address: registry, abi: erc8004OperatorAbi, functionName: 'operatorOf', args: [agent] })
        return op === zeroAddress ? undefined : getAddress(op)
      } catch (err) {
        if (err instanceof BaseError && err.walk((e) => e instanceof ContractFunctionRevertedError)) return undefined
        throw err
      }
    },
  }
}
