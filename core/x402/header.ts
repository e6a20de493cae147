// Parses the x402 v2 PAYMENT-SIGNATURE header: base64 (RFC 4648, standard alphabet, canonical) of
// UTF-8 JSON of a PaymentPayload whose `payload` is an EIP-3009 authorization and signature, or an
// ERC-7710 delegation when the accepted requirement says `assetTransferMethod: "erc7710"`. Never
// throws: every bad input becomes a refusal that names the field and the rule. Everything that
// reaches the facilitator has been checked here, so the facilitator never throws on our input.
import { isAddress, parseErc6492Signature, type Address, type Hex } from 'viem'
import * as z from 'zod/v4'
import { asksForErc7710 } from './erc7710.ts'
import type { X402ErrorCode } from './errors.ts'
import { CAIP2_NETWORK, DECIMAL_UINT, HEX_ADDRESS } from './patterns.ts'

/** The header name x402 v2 uses for the payment (v1's X-PAYMENT is not accepted). */
export const PAYMENT_SIGNATURE_HEADER = 'PAYMENT-SIGNATURE'

/** A real header is about 1 KB; an ERC-1271 signature can make it a few. The API caps it at 16 KiB too. */
export const MAX_PAYMENT_HEADER_LENGTH = 16_384

const UINT256_MAX = 2n ** 256n - 1n
// ERC-6492 wrapped signatures end with this magic suffix; the facilitator decodes them.
const ERC6492_SUFFIX = '6492649264926492649264926492649264926492649264926492649264926492'

// zod v4 runs every check even after one fails, so a refine must not assume the regex held.
const uint256String = z
  .string()
  .regex(DECIMAL_UINT, 'must be a decimal integer string without sign or leading zeros')
  .refine((v) => !DECIMAL_UINT.test(v) || BigInt(v) <= UINT256_MAX, 'must fit in uint256')

// Strict: a mixed-case address must carry a valid EIP-55 checksum (viem's getAddress would throw later).
const address = z
  .string()
  .regex(HEX_ADDRESS, 'must be a 0x-prefixed 20-byte hex address')
  .refine((v) => isAddress(v, { strict: true }), 'has an invalid EIP-55 checksum')
  .transform((v) => v as Address)

const bytes32 = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 0x-prefixed 32-byte hex string')
  .transform((v) => v as Hex)

const signature = z
  .string()
  .regex(/^0x(?:[0-9a-fA-F]{2}){65,4096}$/, 'must be 0x-prefixed hex of 65 to 4096 bytes')
  .refine((v) => {
    if (!v.toLowerCase().endsWith(ERC6492_SUFFIX)) return true
    try {
      parseErc6492Signature(v as Hex)
      return true
    } catch {
      return false
    }
  }, 'is an ERC-6492 wrapper that does not decode')
  .transform((v) => v as Hex)

// CAIP-2: namespace:reference.
const network = z
  .string()
  .regex(CAIP2_NETWORK, 'must be a CAIP-2 chain id such as eip155:8453')
  .transform((v) => v as `${string}:${string}`)

const jsonRecord = z.record(z.string(), z.unknown())

const acceptedSchema = z.object({
  scheme: z.string().min(1).max(64),
  network,
  asset: address,
  amount: uint256String,
  payTo: address,
  maxTimeoutSeconds: z.number().int().min(0).max(31_536_000),
  extra: jsonRecord.optional(),
})

const envelope = {
  x402Version: z.number('must be a number').int('must be an integer'),
  resource: z
    .object({ url: z.string().max(2048) })
    .loose()
    .optional(),
  accepted: acceptedSchema,
}

export const paymentPayloadSchema = z.object({
  ...envelope,
  payload: z.object({
    signature,
    authorization: z.object({
      from: address,
      to: address,
      value: uint256String,
      validAfter: uint256String,
      validBefore: uint256String,
      nonce: bytes32,
    }),
  }),
  extensions: jsonRecord.optional(),
})

// A delegation chain of a few delegations with their caveats; the header's own cap bounds it anyway.
const permissionContext = z
  .string()
  .regex(/^0x(?:[0-9a-fA-F]{2}){1,8192}$/, 'must be non-empty 0x-prefixed hex of at most 8192 bytes')
  .transform((v) => v as Hex)

/** An ERC-7710 payment (`accepted.extra.assetTransferMethod: "erc7710"`), as @metamask/x402's client sends it. */
export const erc7710PaymentPayloadSchema = z.object({
  ...envelope,
  payload: z.object({ delegationManager: address, permissionContext, delegator: address }),
  extensions: jsonRecord.optional(),
})

export type ParsedExactPayload = z.output<typeof paymentPayloadSchema>
export type ParsedErc7710Payload = z.output<typeof erc7710PaymentPayloadSchema>
/** An EIP-3009 payment or an ERC-7710 one; `accepted.extra.assetTransferMethod` tells which. */
export type ParsedPaymentPayload = ParsedExactPayload | ParsedErc7710Payload

export function isErc7710Payment(p: ParsedPaymentPayload): p is ParsedErc7710Payload {
  return asksForErc7710(p.accepted.extra)
}

export type HeaderRefusal = {
  ok: false
  code: Extract<
    X402ErrorCode,
    'PAYMENT_HEADER_TOO_LARGE' | 'PAYMENT_HEADER_NOT_BASE64' | 'PAYMENT_HEADER_NOT_JSON' | 'PAYMENT_HEADER_INVALID'
  >
  message: string
  /** The JSON path of the first offending field, when the JSON parsed. */
  field?: string
}

export type ParseHeaderResult = { ok: true; payload: ParsedPaymentPayload } | HeaderRefusal

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/
const utf8 = new TextDecoder('utf-8', { fatal: true })

// JSON.parse makes "__proto__" an own property, but a later spread or zod record copy could turn it
// into a prototype write; such a payload has no business here, so it is refused outright.
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype'])
class ForbiddenKeyError extends Error {}
function reviver(key: string, value: unknown): unknown {
  if (FORBIDDEN_KEYS.has(key)) throw new ForbiddenKeyError(key)
  return value
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let node = root
  for (const key of path) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined
    node = (node as Record<PropertyKey, unknown>)[key]
  }
  return node
}

export function parsePaymentHeader(header: string): ParseHeaderResult {
  if (header.length > MAX_PAYMENT_HEADER_LENGTH) {
    return {
      ok: false,
      code: 'PAYMENT_HEADER_TOO_LARGE',
      message: `${PAYMENT_SIGNATURE_HEADER}: must be at most ${MAX_PAYMENT_HEADER_LENGTH} characters, got ${header.length}`,
    }
  }
  if (header.length === 0 || header.length % 4 !== 0 || !BASE64.test(header)) {
    return {
      ok: false,
      code: 'PAYMENT_HEADER_NOT_BASE64',
      message: `${PAYMENT_SIGNATURE_HEADER}: must be padded standard base64 (A-Z a-z 0-9 + /)`,
    }
  }
  const bytes = Buffer.from(header, 'base64')
  // Non-zero padding bits decode silently; refusing them keeps one payment to one header spelling.
  if (bytes.toString('base64') !== header) {
    return {
      ok: false,
      code: 'PAYMENT_HEADER_NOT_BASE64',
      message: `${PAYMENT_SIGNATURE_HEADER}: is not canonical base64 (non-zero padding bits)`,
    }
  }
  let json: unknown
  try {
    json = JSON.parse(utf8.decode(bytes), reviver)
  } catch (error) {
    if (error instanceof ForbiddenKeyError) {
      return {
        ok: false,
        code: 'PAYMENT_HEADER_INVALID',
        message: `${PAYMENT_SIGNATURE_HEADER}: JSON must not contain the key "${error.message}"`,
        field: error.message,
      }
    }
    return { ok: false, code: 'PAYMENT_HEADER_NOT_JSON', message: `${PAYMENT_SIGNATURE_HEADER}: must be base64 of UTF-8 JSON` }
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return {
      ok: false,
      code: 'PAYMENT_HEADER_INVALID',
      message: `${PAYMENT_SIGNATURE_HEADER}: must be a JSON object (an x402 PaymentPayload)`,
      field: '',
    }
  }
  // The payer's accepted requirement says which payload it carries; each is checked field by field.
  const accepted = (json as { accepted?: { extra?: unknown } }).accepted
  const extra = typeof accepted === 'object' && accepted !== null ? accepted.extra : undefined
  const erc7710 = typeof extra === 'object' && extra !== null && asksForErc7710(extra as Record<string, unknown>)
  const parsed = (erc7710 ? erc7710PaymentPayloadSchema : paymentPayloadSchema).safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    const field = issue.path.map(String).join('.')
    const rule = issue.code === 'invalid_type' && valueAt(json, issue.path) === undefined ? 'is required' : issue.message
    return { ok: false, code: 'PAYMENT_HEADER_INVALID', message: `${PAYMENT_SIGNATURE_HEADER}: ${field || 'payload'} ${rule}`, field }
  }
  return { ok: true, payload: parsed.data }
}
