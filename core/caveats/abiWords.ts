import { bytesToHex, getAddress, hexToBigInt, isHex, type Address, type Hex } from 'viem'
import { InvalidTermsError } from './errors.ts'

/**
 * A strict reader for `abi.encode` terms. The enforcers' getTermsInfo refuse non-canonical encodings
 * (dirty high bytes, a wrong array offset, trailing bytes), so decoding here refuses the same bytes and
 * says which field was wrong, instead of letting a lenient decoder accept what the chain would not.
 */
export type WordType = 'address' | 'uint8' | 'uint16' | 'uint32' | 'uint64' | 'uint256' | 'int8' | 'bytes4'
export type Field = readonly [name: string, type: WordType]
export type WordValue = bigint | number | Address | Hex

const TWO_256 = 1n << 256n

export function termsBytes(caveat: string, terms: Hex): Uint8Array {
  if (!isHex(terms, { strict: true }) || terms.length % 2 !== 0) {
    throw new InvalidTermsError(caveat, 'terms', 'must be 0x-prefixed hex with whole bytes')
  }
  const out = new Uint8Array((terms.length - 2) / 2)
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(terms.slice(2 + i * 2, 4 + i * 2), 16)
  return out
}

export const wordAt = (bytes: Uint8Array, index: number): bigint => hexToBigInt(bytesToHex(bytes.subarray(index * 32, index * 32 + 32)))

export function readWord(caveat: string, field: string, type: WordType, w: bigint): WordValue {
  switch (type) {
    case 'address':
      if (w >> 160n !== 0n) throw new InvalidTermsError(caveat, field, 'is not a clean address word (the high 12 bytes must be zero)')
      return getAddress(`0x${w.toString(16).padStart(40, '0')}`)
    case 'bytes4':
      if ((w & ((1n << 224n) - 1n)) !== 0n)
        throw new InvalidTermsError(caveat, field, 'is not a clean bytes4 word (the low 28 bytes must be zero)')
      return `0x${(w >> 224n).toString(16).padStart(8, '0')}`
    case 'int8':
      if (w < 128n) return Number(w)
      if (w >= TWO_256 - 128n) return Number(w - TWO_256)
      throw new InvalidTermsError(caveat, field, 'is not a sign-extended int8 (-128..127)')
    default: {
      const bits = BigInt(type.slice(4))
      if (w >> bits !== 0n) throw new InvalidTermsError(caveat, field, `does not fit ${type}`)
      return bits <= 32n ? Number(w) : w
    }
  }
}

/**
 * Reads `abi.encode(head..., T[] tail)` (tail optional, T a static tuple or a single word) and checks
 * the encoding is exactly canonical.
 */
export function readAbiTerms(
  caveat: string,
  terms: Hex,
  head: readonly Field[],
  tail?: { field: string; element: readonly Field[] },
): { head: WordValue[]; items: WordValue[][] } {
  const bytes = termsBytes(caveat, terms)
  const headWords = head.length + (tail ? 1 : 0)
  const headLength = headWords * 32
  for (let i = 0; i < headWords; i++) {
    if (bytes.length < (i + 1) * 32) {
      const name = i < head.length ? head[i]![0] : tail!.field
      throw new InvalidTermsError(caveat, name, `is missing or truncated: terms are ${bytes.length} bytes, the head needs ${headLength}`, {
        length: bytes.length,
      })
    }
  }
  const values = head.map(([name, type], i) => readWord(caveat, name, type, wordAt(bytes, i)))
  if (!tail) {
    if (bytes.length !== headLength) {
      const last = head[head.length - 1]![0]
      throw new InvalidTermsError(
        caveat,
        last,
        `is followed by ${bytes.length - headLength} unexpected bytes: terms must be exactly ${headLength} bytes`,
        {
          length: bytes.length,
        },
      )
    }
    return { head: values, items: [] }
  }
  const offset = wordAt(bytes, head.length)
  if (offset !== BigInt(headLength)) {
    throw new InvalidTermsError(caveat, tail.field, `offset must be ${headLength}, got ${offset}`)
  }
  if (bytes.length < headLength + 32) {
    throw new InvalidTermsError(
      caveat,
      `${tail.field}.length`,
      `is missing: terms are ${bytes.length} bytes, need at least ${headLength + 32}`,
    )
  }
  const count = wordAt(bytes, headWords)
  const elementBytes = BigInt(tail.element.length * 32)
  const available = BigInt(bytes.length - headLength - 32)
  if (count * elementBytes !== available) {
    throw new InvalidTermsError(
      caveat,
      tail.field,
      `declares ${count} entries (${count * elementBytes} bytes) but ${available} bytes follow its length word`,
      { length: bytes.length },
    )
  }
  const items: WordValue[][] = []
  for (let i = 0; i < Number(count); i++) {
    const base = headWords + 1 + i * tail.element.length
    items.push(
      tail.element.map(([name, type], j) =>
        readWord(caveat, name === '' ? `${tail.field}[${i}]` : `${tail.field}[${i}].${name}`, type, wordAt(bytes, base + j)),
      ),
    )
  }
  return { head: values, items }
}
