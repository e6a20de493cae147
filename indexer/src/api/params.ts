// Query-parameter parsing for the /v1 routes: a bad value answers 400 with a stable code and a message
// naming the parameter and the rule.
import type { Context } from 'hono'
import { replaceBigInts } from 'ponder'
import { isAddress, isHex, type Address, type Hex } from 'viem'
import { decodeCursor, type Position } from '../../lib/cursor.ts'
import { parseDayLabel } from '../../lib/spend.ts'

export class BadParam extends Error {
  constructor(
    readonly param: string,
    readonly rule: string,
  ) {
    super(`${param}: ${rule}`)
  }
}

export function addressParam(value: string | undefined, name: string): Address {
  if (value === undefined || !isAddress(value, { strict: false })) throw new BadParam(name, 'must be a 0x-prefixed 20-byte address')
  return value.toLowerCase() as Address
}

export function optionalAddress(value: string | undefined, name: string): Address | undefined {
  return value === undefined ? undefined : addressParam(value, name)
}

export function hashParam(value: string | undefined, name: string): Hex {
  if (value === undefined || !isHex(value, { strict: true }) || value.length !== 66)
    throw new BadParam(name, 'must be a 0x-prefixed 32-byte hash')
  return value.toLowerCase() as Hex
}

export function limitParam(value: string | undefined, fallback = 100, max = 1000): number {
  if (value === undefined) return fallback
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max)
    throw new BadParam('limit', `must be a whole number from 1 to ${max}`)
  return Number(value)
}

export function cursorParam(value: string | undefined): Position | undefined {
  if (value === undefined) return undefined
  const position = decodeCursor(value)
  if (position === undefined) throw new BadParam('cursor', 'must be a nextCursor value returned by this API')
  return position
}

export function blockParam(value: string | undefined, name: string): bigint | undefined {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value)) throw new BadParam(name, 'must be a block number')
  return BigInt(value)
}

export function dayParam(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback
  const day = parseDayLabel(value)
  if (day === undefined) throw new BadParam(name, 'must be a UTC date YYYY-MM-DD')
  return day
}

/** JSON with every bigint as a decimal string (the same convention as Ponder's GraphQL BigInt). */
export function json(c: Context, body: unknown, status: 200 | 404 = 200) {
  return c.json(replaceBigInts(body, (v) => String(v)) as object, status)
}

export function errorResponse(c: Context, error: unknown) {
  if (error instanceof BadParam) return c.json({ code: 'INVALID_PARAMETER', message: error.message, param: error.param }, 400)
  throw error
}
