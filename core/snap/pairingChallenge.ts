// The Snap pairing challenge: the text an owner signs to prove control of the owner account before the
// API issues the first Snap token. Recognised by its MAC (nothing is stored when it is issued, so the
// unauthenticated challenge route cannot fill the store); single use is enforced where it is redeemed.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { bytesToHex, concat, getAddress, hexToBytes, numberToBytes, type Address, type Hex } from 'viem'

/** Long enough to read the text in MetaMask and sign; short enough that a leaked one is stale. */
export const SNAP_PAIRING_TTL_SECONDS = 300

export type SnapPairingChallenge = {
  owner: Address
  chainId: number
  /** 16 random bytes followed by a 16-byte MAC over them and every other field. */
  nonce: Hex
  issuedAt: number
  expiresAt: number
}

const RANDOM_BYTES = 16

/** A key of its own, derived from the configured secret, so a pairing nonce never verifies as a Clade nonce. */
export class SnapPairingSecret {
  readonly #key: Buffer
  constructor(secret: Uint8Array) {
    if (secret.byteLength < 32) throw new RangeError(`secret: must be at least 32 bytes, got ${secret.byteLength}`)
    this.#key = createHmac('sha256', secret).update('bardo-snap/pairing/v1').digest()
  }
  mac(data: Uint8Array): Buffer {
    return createHmac('sha256', this.#key).update(data).digest()
  }
}

function nonceMac(secret: SnapPairingSecret, random: Uint8Array, c: Omit<SnapPairingChallenge, 'nonce'>): Uint8Array {
  const data = concat([
    random,
    numberToBytes(c.chainId, { size: 8 }),
    hexToBytes(c.owner),
    numberToBytes(c.issuedAt, { size: 8 }),
    numberToBytes(c.expiresAt, { size: 8 }),
  ])
  return secret.mac(data).subarray(0, 32 - RANDOM_BYTES)
}

export function issueSnapPairingChallenge(p: {
  secret: SnapPairingSecret
  owner: Address
  chainId: number
  nowMs: number
  ttlSeconds?: number
}): SnapPairingChallenge {
  const random = randomBytes(RANDOM_BYTES)
  const issuedAt = Math.floor(p.nowMs / 1000)
  const fields = {
    owner: getAddress(p.owner),
    chainId: p.chainId,
    issuedAt,
    expiresAt: issuedAt + (p.ttlSeconds ?? SNAP_PAIRING_TTL_SECONDS),
  }
  return { ...fields, nonce: bytesToHex(concat([random, nonceMac(p.secret, random, fields)])) }
}

/** True when this server issued exactly this challenge (no field changed since), in constant time. */
export function isIssuedSnapPairingChallenge(secret: SnapPairingSecret, c: SnapPairingChallenge): boolean {
  const nonce = hexToBytes(c.nonce)
  if (nonce.byteLength !== 32) return false
  return timingSafeEqual(
    nonce.subarray(RANDOM_BYTES),
    nonceMac(secret, nonce.subarray(0, RANDOM_BYTES), { ...c, owner: getAddress(c.owner) }),
  )
}

/**
 * The words the owner signs (personal_sign). It says what signing does, so a page that asks for it under
 * another pretext is visible in MetaMask's own dialog.
 */
export function snapPairingMessage(c: SnapPairingChallenge): string {
  return [
    'Bardo Snap pairing',
    '',
    'Signing this lets the Bardo Snap in your MetaMask read the status of your Golems. It moves no funds and grants nothing on-chain.',
    '',
    `Owner: ${getAddress(c.owner)}`,
    `Chain ID: ${c.chainId}`,
    `Nonce: ${c.nonce}`,
    `Issued at: ${new Date(c.issuedAt * 1000).toISOString()}`,
    `Expires at: ${new Date(c.expiresAt * 1000).toISOString()}`,
  ].join('\n')
}
