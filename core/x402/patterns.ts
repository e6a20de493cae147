// The x402 wire formats both sides of a payment check: the seller's checks of a PAYMENT-SIGNATURE
// (header.ts) and a Golem's of the PAYMENT-REQUIRED it pays (exactPayment.ts).

/** A CAIP-2 chain id, namespace:reference (eip155:8453). */
export const CAIP2_NETWORK = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/
/** A 0x-prefixed 20-byte hex address, any case (a checksum is checked apart). */
export const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/
/** A decimal integer string of at most 78 digits (uint256's width), without sign or leading zeros. */
export const DECIMAL_UINT = /^(0|[1-9][0-9]{0,77})$/
