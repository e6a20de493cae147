// Device-code sign-in (OAuth 2.0 Device Authorization Grant) for the CLI: the user code, the lifetimes
// of the device code and the tokens, the port that signs them, the text the owner signs, and the answer
// to a poll. Pure: randomness and hashing only; the store, the clock and the token signer are the caller's.
import { createHash, randomInt } from 'node:crypto'
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

/** `id` is the device code's hash: what the store keys it by. */
export type DeviceCodeGrant = { deviceCode: string; userCode: string; expiresAt: number; id: Hex }

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
/** `at` an access token, `rt` a refresh token. */
export type TokenKind = 'at' | 'rt'

export type TokenCheck = { ok: true; owner: Address; expiresAt: number; id: Hex } | { ok: false; reason: 'forged' | 'expired' }

/**
 * Signs and reads the device code and the CLI's tokens (adapters/auth holds the implementation). Each
 * carries its expiry under the API's signature with a key of its own kind, so a forged or altered one,
 * or one of another kind, is refused without a store read; `id` is its SHA-256, what the store may keep.
 */
export interface DeviceAuthTokens {
  issueDeviceCode(nowMs: number): Promise<DeviceCodeGrant>
  /** The device code's expiry, or undefined when this API did not issue it. */
  readDeviceCode(deviceCode: string): Promise<{ expiresAt: number; id: Hex } | undefined>
  /** Nothing is stored to verify a token; a refresh token's `id` is stored once it is spent. */
  issueToken(kind: TokenKind, owner: Address, nowMs: number): Promise<SignedToken>
  checkToken(kind: TokenKind, token: string, nowMs: number): Promise<TokenCheck>
}

/** True for a string shaped like an access token (so the tier middleware knows which verifier to ask). */
export function isAccessTokenShaped(token: string): boolean {
  return token.startsWith('bardo_at_')
}
