// Device-code sign-in (OAuth 2.0 Device Authorization Grant) for the CLI: the formats of the device
// code, the user code and the signed tokens, their lifetimes, the text the owner signs, and the answer
// to a poll. Pure: randomness and HMAC only; the store and the clock are the caller's.
import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto'
import { getAddress, type Address, type Hex } from 'viem'
import { BardoError } from '../errors.ts'

/** How long a device code and its user code may wait for the owner (ten minutes). */
export const DEVICE_CODE_TTL_SECONDS = 600
/** The least number of seconds between two polls of one device code; faster polls get `slow_down`. */
export const POLL_INTERVAL_SECONDS = 5
/** The signed access token's life (30 days). */
export const ACCESS_TOKEN_TTL_SECONDS = 30 * 86_400
/** The refresh token's life; each use returns a new one, so an active CLI never signs in again. */
export const REFRESH_TOKEN_TTL_SECONDS = 90 * 86_400

/** Consonants only (no vowels, so no words; no look-alikes such as 0/O or 1/I): 20^8 codes. */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ'
const USER_CODE_LENGTH = 8
const USER_CODE = new RegExp(`^[${USER_CODE_ALPHABET}]{${USER_CODE_LENGTH}}$`)

/** A code typed or sent by a person or a client broke its format; the message names the field. */
export class AuthCodeError extends BardoError {
  readonly field: string
  constructor(field: string, rule: string) {
    super('AUTH_CODE_INVALID', `${field}: ${rule}`, { details: { field } })
    this.field = field
  }
}

/** A key of its own, derived from the API's secret, so no other MAC of the API verifies as a token. */
export class AuthSecret {
  readonly #key: Buffer
  constructor(secret: Uint8Array) {
    if (secret.byteLength < 32) throw new RangeError(`secret: must be at least 32 bytes, got ${secret.byteLength}`)
    this.#key = createHmac('sha256', secret).update('bardo-auth/device/v1').digest()
  }
  mac(text: string): string {
    return createHmac('sha256', this.#key).update(text, 'utf8').digest('base64url')
  }
  verify(text: string, mac: string): boolean {
    const given = Buffer.from(mac, 'utf8')
    const expected = Buffer.from(this.mac(text), 'utf8')
    return given.byteLength === expected.byteLength && timingSafeEqual(given, expected)
  }
}

/** SHA-256 of a code or token: what the store keeps instead of the secret itself. */
export function hashAuthSecret(value: string): Hex {
  return `0x${createHash('sha256').update(value, 'utf8').digest('hex')}`
}

export function newUserCode(): string {
  let code = ''
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)]
  return code
}

/** XXXX-XXXX, as shown to the owner. */
export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`
}

/** What the owner typed, in canonical form: case, spaces and the dash do not matter. */
export function normalizeUserCode(input: string): string {
  const code = input.toUpperCase().replace(/[\s-]/g, '')
  if (!USER_CODE.test(code)) {
    throw new AuthCodeError('userCode', `must be ${USER_CODE_LENGTH} letters of ${USER_CODE_ALPHABET}, shown as XXXX-XXXX`)
  }
  return code
}

const DEVICE_CODE = /^bardo_dc_(\d{1,12})\.([A-Za-z0-9_-]{43})\.([A-Za-z0-9_-]{43})$/

/** `id` is the device code's hash: what the store keys it by. */
export type DeviceCodeGrant = { deviceCode: string; userCode: string; expiresAt: number; id: Hex }

/**
 * A device code carries its expiry and a MAC over it and 32 random bytes: a forged or altered one is
 * refused without a store read, and the store keys it by hash only.
 */
export function issueDeviceCode(secret: AuthSecret, nowMs: number): DeviceCodeGrant {
  const expiresAt = Math.floor(nowMs / 1000) + DEVICE_CODE_TTL_SECONDS
  const body = `bardo_dc_${expiresAt}.${randomBytes(32).toString('base64url')}`
  const deviceCode = `${body}.${secret.mac(body)}`
  return { deviceCode, userCode: newUserCode(), expiresAt, id: hashAuthSecret(deviceCode) }
}

/** The device code's expiry, or undefined when this API did not issue it. */
export function readDeviceCode(secret: AuthSecret, deviceCode: string): { expiresAt: number; id: Hex } | undefined {
  const m = DEVICE_CODE.exec(deviceCode)
  if (!m) return undefined
  const body = deviceCode.slice(0, deviceCode.lastIndexOf('.'))
  if (!secret.verify(body, m[3]!)) return undefined
  return { expiresAt: Number(m[1]), id: hashAuthSecret(deviceCode) }
}

export type DeviceDecision = 'approve' | 'deny'

/** The text the owner signs (personal_sign) to let, or refuse, the CLI showing `userCode` act as them. */
export function deviceConfirmMessage(p: { userCode: string; owner: Address; chainId: number; decision: DeviceDecision }): string {
  const verb = p.decision === 'approve' ? 'Sign in' : 'Refuse sign-in of'
  return [
    `${verb} the Bardo CLI showing code ${formatUserCode(p.userCode)}`,
    `Owner: ${getAddress(p.owner)}`,
    `Chain: ${p.chainId}`,
    `Decision: ${p.decision}`,
    'This signature moves no funds and grants no spending power.',
  ].join('\n')
}

/** RFC 8628 names for a device-code poll that yields no token yet, or never will. */
export type DevicePollError = 'authorization_pending' | 'slow_down' | 'expired_token' | 'access_denied' | 'invalid_grant'

export type DevicePollState =
  | { kind: 'forged' }
  | { kind: 'expired' }
  | { kind: 'too-fast' }
  | { kind: 'pending' }
  | { kind: 'redeemed' }
  | { kind: 'decided'; decision: DeviceDecision; owner: Address }

/** The answer to one poll: a token for the owner who approved, or the RFC 8628 error. */
export function devicePollOutcome(state: DevicePollState): { owner: Address } | { error: DevicePollError } {
  switch (state.kind) {
    case 'forged':
    case 'redeemed':
      return { error: 'invalid_grant' }
    case 'expired':
      return { error: 'expired_token' }
    case 'too-fast':
      return { error: 'slow_down' }
    case 'pending':
      return { error: 'authorization_pending' }
    case 'decided':
      return state.decision === 'approve' ? { owner: state.owner } : { error: 'access_denied' }
  }
}

export type SignedToken = { token: string; expiresAt: number; id: Hex }
export type TokenKind = 'at' | 'rt'

const SIGNED_TOKEN = /^bardo_(at|rt)_([0-9a-f]{40})\.(\d{1,12})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/

/**
 * An access (`at`) or refresh (`rt`) token: owner, expiry and 16 random bytes under the API's MAC.
 * Nothing is stored to verify one; a refresh token's hash is stored once it is spent.
 */
export function issueSignedToken(secret: AuthSecret, kind: TokenKind, owner: Address, nowMs: number): SignedToken {
  const ttl = kind === 'at' ? ACCESS_TOKEN_TTL_SECONDS : REFRESH_TOKEN_TTL_SECONDS
  const expiresAt = Math.floor(nowMs / 1000) + ttl
  const body = `bardo_${kind}_${getAddress(owner).slice(2).toLowerCase()}.${expiresAt}.${randomBytes(16).toString('base64url')}`
  const token = `${body}.${secret.mac(body)}`
  return { token, expiresAt, id: hashAuthSecret(token) }
}

export type TokenCheck = { ok: true; owner: Address; expiresAt: number; id: Hex } | { ok: false; reason: 'forged' | 'expired' }

export function checkSignedToken(secret: AuthSecret, kind: TokenKind, token: string, nowMs: number): TokenCheck {
  const m = SIGNED_TOKEN.exec(token)
  if (!m || m[1] !== kind) return { ok: false, reason: 'forged' }
  const body = token.slice(0, token.lastIndexOf('.'))
  if (!secret.verify(body, m[5]!)) return { ok: false, reason: 'forged' }
  const expiresAt = Number(m[3])
  if (Math.floor(nowMs / 1000) >= expiresAt) return { ok: false, reason: 'expired' }
  return { ok: true, owner: getAddress(`0x${m[2]}`), expiresAt, id: hashAuthSecret(token) }
}

/** True for a string shaped like an access token (so the tier middleware knows which verifier to ask). */
export function isAccessTokenShaped(token: string): boolean {
  return token.startsWith('bardo_at_')
}
