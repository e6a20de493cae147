// Snap bearer tokens (a leaked token must not expose the owner's Golems for long): one current token per owner, stored only
// as a hash. The Snap's own cron ("heartbeat", every 5 minutes) calls /api/snap/status, and every
// successful call replaces the token with the next one it returns (refresh-token rotation); the
// previous token stops working at once, with no grace. The Golem heartbeat may rotate too.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { getAddress, type Address, type Hex } from 'viem'

export interface SnapTokenStore {
  getSnapTokenHash(owner: Address): Promise<Hex | undefined>
  /** Replaces the owner's token hash: after this resolves, only the new token is accepted. */
  setSnapTokenHash(owner: Address, tokenHash: Hex, rotatedAt: number): Promise<void>
  /**
   * Compare-and-swap: replaces the hash only if it is still `expectedHash`. False when another
   * rotation came first (then `tokenHash` is not valid and the caller's token is not either).
   */
  replaceSnapTokenHash(owner: Address, expectedHash: Hex, tokenHash: Hex, rotatedAt: number): Promise<boolean>
}

const PREFIX = 'bardo_snap_'
// The owner rides in the token so verification is one keyed read (no index over hashes in the store);
// it is public on-chain anyway. The 32 random bytes are the secret.
const TOKEN = /^bardo_snap_([0-9a-f]{40})\.([A-Za-z0-9_-]{43})$/

export function hashSnapToken(token: string): Hex {
  return `0x${createHash('sha256').update(token, 'utf8').digest('hex')}`
}

/**
 * Issues the owner's next Snap token and makes it the only valid one. The heartbeat calls this every
 * tick and hands the token to the Snap (Portal's `updateAuthToken` RPC); the token is returned once
 * and never stored in clear.
 */
export async function rotateSnapToken(store: SnapTokenStore, owner: Address, nowMs: number): Promise<string> {
  const token = newSnapToken(owner)
  await store.setSnapTokenHash(owner, hashSnapToken(token), Math.floor(nowMs / 1000))
  return token
}

function newSnapToken(owner: Address): string {
  return `${PREFIX}${getAddress(owner).slice(2).toLowerCase()}.${randomBytes(32).toString('base64url')}`
}

/**
 * The status call's rotation: replaces `presented` (the token that authenticated the call) with the
 * next one, only if `presented` is still current. Undefined when another call rotated it first: two
 * concurrent calls with one token get one successor, so a leaked token cannot fork the chain.
 */
export async function rotateSnapTokenFrom(
  store: SnapTokenStore,
  owner: Address,
  presented: string,
  nowMs: number,
): Promise<string | undefined> {
  const token = newSnapToken(owner)
  const replaced = await store.replaceSnapTokenHash(owner, hashSnapToken(presented), hashSnapToken(token), Math.floor(nowMs / 1000))
  return replaced ? token : undefined
}

/** True for a string shaped like a Snap token (so the tier middleware knows which verifier to ask). */
export function isSnapTokenShaped(token: string): boolean {
  return token.startsWith(PREFIX)
}

/** The owner whose *current* token this is, or undefined (unknown, malformed or rotated away). */
export async function verifySnapToken(store: SnapTokenStore, token: string): Promise<Address | undefined> {
  const m = TOKEN.exec(token)
  if (!m) return undefined
  const owner = getAddress(`0x${m[1]}`)
  const stored = await store.getSnapTokenHash(owner)
  if (stored === undefined) return undefined
  const given = Buffer.from(hashSnapToken(token).slice(2), 'hex')
  const expected = Buffer.from(stored.slice(2), 'hex')
  return given.byteLength === expected.byteLength && timingSafeEqual(given, expected) ? owner : undefined
}
