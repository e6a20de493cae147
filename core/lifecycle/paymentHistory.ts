// The x402 credits a Golem received, read back from its journal: each PaymentCredited event says who
// paid, for what (extend buys runtime, feed buys runtime and asks for a reprieve), how much and for how
// many seconds of runway. Pure: the events come in, the store is the caller's.
import { getAddress, type Address, type Hex } from 'viem'
import type { GolemEvent } from '../store/index.ts'
import { PAYMENT_CREDITED_EVENT } from './applyPaymentCredit.ts'

export type PaymentCredit = {
  kind: 'extend' | 'feed'
  /** Checksummed, whatever case the journal holds. */
  payer: Address
  /** The payment asset's atomic units (USDC: 6 decimals). */
  amount: bigint
  /** Runway seconds the payment bought. */
  seconds: bigint
  /** The EIP-3009 authorization nonce: with the payer, the payment's identity. */
  nonce: Hex
  /** The settlement transaction, when the journal has it. */
  txHash: Hex | null
  /** When the credit was journaled (ms). */
  creditedAt: number
}

const whole = (v: unknown): bigint | undefined =>
  typeof v === 'string' && /^\d+$/.test(v) ? BigInt(v) : typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? BigInt(v) : undefined
const hex = (v: unknown): v is Hex => typeof v === 'string' && /^0x[0-9a-fA-F]*$/.test(v)

/** The credit an event records, or undefined for any other event (or a malformed one, which is skipped rather than shown wrong). */
export function paymentCreditOf(event: GolemEvent): PaymentCredit | undefined {
  if (event.type !== PAYMENT_CREDITED_EVENT) return undefined
  const d = event.data
  const amount = whole(d.amount)
  const seconds = whole(d.seconds)
  if (
    (d.kind !== 'extend' && d.kind !== 'feed') ||
    !hex(d.payer) ||
    d.payer.length !== 42 ||
    !hex(d.nonce) ||
    amount === undefined ||
    seconds === undefined
  )
    return undefined
  return {
    kind: d.kind,
    payer: getAddress(d.payer),
    amount,
    seconds,
    nonce: d.nonce,
    txHash: hex(d.txHash) ? d.txHash : null,
    creditedAt: event.at,
  }
}
