// A multi-hop swap's route as SwapRouter02 reads it: a Uniswap V3 path, the tokens packed with the fee
// tier of the pool between each pair (token, fee, token, fee, ..., token: 20 bytes, 3 bytes, 20 bytes...).
// The first token is what the owner's account pays, the last what it receives; the tokens between are
// only passed through within the one transaction and never held.
import { encodePacked, getAddress, size, slice, type Address, type Hex } from 'viem'

/** One pool of a route: the token it leads to and its fee tier (hundredths of a bip). */
export type SwapHop = { readonly token: Address; readonly fee: number }

const ADDRESS_BYTES = 20
const HOP_BYTES = 23

/** The packed path from `tokenIn` through each hop, in order; the last hop's token is the output. */
export function encodeSwapPath(tokenIn: Address, hops: readonly SwapHop[]): Hex {
  const types: ('address' | 'uint24')[] = ['address']
  const values: (Address | number)[] = [tokenIn]
  for (const hop of hops) {
    types.push('uint24', 'address')
    values.push(hop.fee, hop.token)
  }
  return encodePacked(types, values)
}

/** The first and last token of a packed path; undefined when the bytes are not one (fewer than one hop, or ragged). */
export function swapPathEnds(path: Hex): { tokenIn: Address; tokenOut: Address } | undefined {
  const n = size(path)
  if (n < ADDRESS_BYTES + HOP_BYTES || (n - ADDRESS_BYTES) % HOP_BYTES !== 0) return undefined
  return { tokenIn: getAddress(slice(path, 0, ADDRESS_BYTES)), tokenOut: getAddress(slice(path, n - ADDRESS_BYTES)) }
}
