// Field validators. Each returns the normalised value or throws StoreInputError naming the field and
// the rule; none repeats the value (it could be a secret pasted into the wrong field).
import { isAddress, type Address, type Hex } from 'viem'
import { StoreInputError } from './errors.ts'
import type { JsonInputValue, JsonObject, JsonValue } from './records.ts'

// Ids become parts of keys ('#' separates key parts), so they are a plain, bounded alphabet.
const ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/
const STEP = /^[a-z][A-Za-z0-9_-]{0,47}$/
const HEX32 = /^0x[0-9a-fA-F]{64}$/
const NONCE = /^[A-Za-z0-9_.:-]{8,256}$/
const EVENT_TYPE = /^[A-Z][A-Za-z0-9]{1,63}$/
const PERIOD_LIMIT = 10n ** 20n
const MAX_JSON_BYTES = 64 * 1024
const MAX_JSON_DEPTH = 16

export function id(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new StoreInputError(field, 'must be a non-empty string')
  if (!ID.test(value))
    throw new StoreInputError(field, "must be 1-128 letters, digits, '_', '.', ':' or '-', starting with a letter or digit")
  return value
}

export function golemId(value: unknown, field = 'golemId'): string {
  return id(value, field)
}

export function owner(value: unknown, field = 'owner'): string {
  return id(value, field)
}

export function step(value: unknown, field = 'step'): string {
  if (typeof value !== 'string' || !STEP.test(value))
    throw new StoreInputError(field, 'must be a lowerCamel word of 1-48 letters, digits, - or _')
  return value
}

export function address(value: unknown, field: string): Address {
  if (typeof value !== 'string' || !isAddress(value))
    throw new StoreInputError(field, 'must be a 20-byte 0x address (valid checksum if mixed case)')
  return value.toLowerCase() as Address
}

export function hex32(value: unknown, field: string): Hex {
  if (typeof value !== 'string' || !HEX32.test(value)) throw new StoreInputError(field, 'must be 0x followed by 64 hex digits')
  return value.toLowerCase() as Hex
}

const HEX_DATA = /^0x(?:[0-9a-fA-F]{2})+$/
const MAX_HEX_DATA_BYTES = 128 * 1024

/** Hex bytes (a signed transaction), lowercased and bounded. */
export function hexData(value: unknown, field: string): Hex {
  if (typeof value !== 'string' || !HEX_DATA.test(value)) throw new StoreInputError(field, 'must be 0x followed by whole bytes of hex')
  if ((value.length - 2) / 2 > MAX_HEX_DATA_BYTES) throw new StoreInputError(field, `must be at most ${MAX_HEX_DATA_BYTES} bytes`)
  return value.toLowerCase() as Hex
}

/** A Clade challenge nonce: hex is lowercased so 0xAB.. and 0xab.. are one nonce. */
const PAYMENT_ID = /^[A-Za-z0-9_-]{16,128}$/

/** A client's payment identifier: x402's format (16-128 letters, digits, '_' or '-'). */
export function paymentId(value: unknown, field = 'paymentId'): string {
  if (typeof value !== 'string' || !PAYMENT_ID.test(value)) throw new StoreInputError(field, "must be 16-128 letters, digits, '_' or '-'")
  return value
}

export function nonceText(value: unknown, field = 'nonce'): string {
  if (typeof value !== 'string' || !NONCE.test(value))
    throw new StoreInputError(field, "must be 8-256 letters, digits, '_', '.', ':' or '-'")
  return /^0x[0-9a-fA-F]+$/.test(value) ? value.toLowerCase() : value
}

export function amount(value: unknown, field: string, min: 0n | 1n = 1n): bigint {
  if (typeof value !== 'bigint') throw new StoreInputError(field, 'must be a bigint (token base units), never a number')
  if (value < min) throw new StoreInputError(field, min === 1n ? 'must be greater than 0' : 'must not be negative')
  return value
}

export function period(value: unknown, field = 'period'): bigint {
  if (typeof value !== 'bigint' || value < 0n || value >= PERIOD_LIMIT) throw new StoreInputError(field, 'must be a bigint in [0, 1e20)')
  return value
}

/** A point in time: unix milliseconds. */
export function time(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw new StoreInputError(field, 'must be unix milliseconds (a non-negative integer)')
  return value
}

export function positiveInt(value: unknown, field: string, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0 || value > max)
    throw new StoreInputError(field, `must be an integer in [1, ${max}]`)
  return value
}

export function nonNegativeInt(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw new StoreInputError(field, 'must be a non-negative integer')
  return value
}

export function basisPoints(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > 10_000)
    throw new StoreInputError(field, 'must be an integer in [0, 10000] (basis points)')
  return value
}

export function oneOf<const T extends readonly string[]>(value: unknown, allowed: T, field: string): T[number] {
  if (typeof value !== 'string' || !allowed.includes(value)) throw new StoreInputError(field, `must be one of ${allowed.join(', ')}`)
  return value as T[number]
}

export function eventType(value: unknown, field = 'type'): string {
  if (typeof value !== 'string' || !EVENT_TYPE.test(value))
    throw new StoreInputError(field, 'must be an UpperCamel event name (e.g. PhaseChanged)')
  return value
}

export function shortText(value: unknown, field: string, max = 256): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the rule
  if (typeof value !== 'string' || value.length === 0 || value.length > max || /[\u0000-\u001f]/.test(value)) {
    throw new StoreInputError(field, `must be 1-${max} characters without control characters`)
  }
  return value
}

/** Rate-limit bucket: any printable text (an IP, "key:<id>", a hash), bounded. */
export function counterKey(value: unknown, field = 'key'): string {
  return shortText(value, field, 512)
}

/** JSON text (the Golem profile, a signed delegation): must parse as a JSON object or array. */
export function jsonText(value: unknown, field: string): string {
  if (typeof value !== 'string') throw new StoreInputError(field, 'must be JSON text')
  if (Buffer.byteLength(value) > MAX_JSON_BYTES) throw new StoreInputError(field, `must be at most ${MAX_JSON_BYTES} bytes`)
  let parsed: unknown
  try {
    parsed = JSON.parse(value)
  } catch {
    throw new StoreInputError(field, 'must be valid JSON')
  }
  if (typeof parsed !== 'object' || parsed === null) throw new StoreInputError(field, 'must be a JSON object or array')
  return value
}

/** Free-form data: plain JSON where bigints become decimal strings. Bounded in depth and size. */
export function jsonObject(value: unknown, field: string): JsonObject {
  if (!isPlainObject(value)) throw new StoreInputError(field, 'must be a plain object')
  const out = toJson(value, field, 0) as JsonObject
  if (Buffer.byteLength(JSON.stringify(out)) > MAX_JSON_BYTES)
    throw new StoreInputError(field, `must be at most ${MAX_JSON_BYTES} bytes as JSON`)
  return out
}

function toJson(value: unknown, path: string, depth: number): JsonValue {
  if (depth > MAX_JSON_DEPTH) throw new StoreInputError(path, `must nest at most ${MAX_JSON_DEPTH} levels`)
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value
  if (typeof value === 'bigint') return value.toString(10)
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new StoreInputError(path, 'must be a finite number')
    return value
  }
  if (Array.isArray(value)) return value.map((item, i) => toJson(item as JsonInputValue, `${path}[${i}]`, depth + 1))
  if (isPlainObject(value)) {
    const out: JsonObject = {}
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue
      out[k] = toJson(v, `${path}.${k}`, depth + 1)
    }
    return out
  }
  throw new StoreInputError(path, 'must be JSON data (string, number, boolean, null, bigint, array or plain object)')
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

export function object(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null) throw new StoreInputError(field, 'must be an object')
  return value as Record<string, unknown>
}
