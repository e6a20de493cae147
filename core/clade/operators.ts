import type { Address } from 'viem'

/** Who operates a Golem: two Golems may authenticate each other only when they share an operator. */
export interface OperatorRegistry {
  /** The operator of `agent`, or undefined when the agent is not registered. */
  operatorOf(agent: Address): Promise<Address | undefined>
}
