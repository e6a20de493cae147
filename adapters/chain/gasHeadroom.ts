// The gas limit a transaction is sent with when its gas was estimated: the estimate and 30 % more.
import type { Account, Chain, Client, EstimateGasParameters, Transport } from 'viem'
import { estimateContractGas, estimateGas } from 'viem/actions'

/**
 * The gas limit for a transaction whose gas was estimated: 30 % over the estimate, rounded down
 * (`estimate * 13 / 10` in integer math). A node's `eth_estimateGas` (anvil's, geth's) answers the exact
 * least gas the call needs in the block it simulates, and a call's gas can depend on the block it is
 * mined in: a contract that stamps `block.timestamp` into storage pays little to write the same second
 * again and a full storage write for a new one, so an estimate made in the second of the previous write
 * runs out of gas when the transaction is mined in a later second. Gas left unused is not paid for; the
 * sender only needs the balance to cover the limit at its fee.
 */
export function withGasHeadroom(estimate: bigint): bigint {
  return (estimate * 13n) / 10n
}

/** Estimates the call on `client`'s node (as viem would before sending it) and returns its gas limit with headroom. */
export async function estimateGasWithHeadroom<chain extends Chain | undefined, account extends Account | undefined>(
  client: Client<Transport, chain, account>,
  request: EstimateGasParameters<chain>,
): Promise<bigint> {
  return withGasHeadroom(await estimateGas(client, request))
}

/** A contract call's gas limit with headroom: estimated on the client's node, as viem would before writing it. */
export async function estimateContractGasWithHeadroom(...call: Parameters<typeof estimateContractGas>): Promise<bigint> {
  return withGasHeadroom(await estimateContractGas(...call))
}
