// The fee data a heartbeat reads once and hands to its ticks, and how a tick prices a transaction from it.

/** EIP-1559 fee data of one block: its base fee and the node's suggested priority fee (wei per gas). */
export type TickFees = { baseFeePerGas: bigint; maxPriorityFeePerGas: bigint }

/**
 * A tick signs up to a heartbeat after the fees were read, so the cap is twice the base fee plus the
 * tip: the base fee may rise 12.5 % a full block, and doubling covers about six full blocks in a row.
 */
export function feesPerGasOf(fees: TickFees): { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } {
  return { maxFeePerGas: 2n * fees.baseFeePerGas + fees.maxPriorityFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas }
}
