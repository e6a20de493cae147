// Signatures the chain refuses, made from valid ones: what a member could send to veto a proposal.
import { concat, hexToBigInt, numberToHex, slice, type Hex } from 'viem'

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

/** The high-s twin of a valid signature (s' = n - s, v flipped): it recovers to the same signer off-chain. */
export function highS(signature: Hex): Hex {
  const s = hexToBigInt(slice(signature, 32, 64))
  const v = hexToBigInt(slice(signature, 64, 65))
  return concat([slice(signature, 0, 32), numberToHex(N - s, { size: 32 }), numberToHex(v === 27n ? 28 : 27, { size: 1 })])
}

/** The same signature with another v byte (0 or 1 is the recovery id some signers emit). */
export function withV(signature: Hex, v: number): Hex {
  return concat([slice(signature, 0, 64), numberToHex(v, { size: 1 })])
}
