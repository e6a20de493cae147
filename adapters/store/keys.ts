// Key layout of the single table (pk, sk). Everything about one Golem shares its partition
// (GOLEM#<id>), so a Golem's slots, budgets and events are one Query away. See docs/store.md.
import { randomBytes } from 'node:crypto'
import { StoreInputError } from '../../core/store/errors.ts'

export const SK = {
  golem: 'GOLEM',
  death: 'DEATH',
  payment: 'PAYMENT',
  paymentId: 'PAYID',
  nonce: 'NONCE',
  counter: 'RATE',
  snap: 'TOKEN',
  poolKey: 'CLAIM',
  councilProposal: 'PROPOSAL',
  council: 'COUNCIL',
  walks: 'WALKS',
} as const
/** The one item that says when each due shard was last walked (attribute `walked<shard>`). */
export const WALKS_PK = 'HEARTBEAT'
export const walkedAttr = (shard: number) => `walked${shard}`
export const SLOT_PREFIX = 'SLOT#'
export const BUDGET_PREFIX = 'BUDGET#'
export const EVENT_PREFIX = 'EVENT#'

/**
 * Default number of due-index partitions, each one walker invocation a minute. 16 keeps a shard at 6,250
 * Golems (32 pages, ~25 s of walking) at 100,000 Golems, inside the minute with room to grow, while a small
 * fleet pays only 16 multicalls a minute (one per non-empty shard). Idle ticks no longer rewrite their due
 * entries, so the shards' write load no longer sets the number (docs/scaling.md).
 */
export const DEFAULT_DUE_SHARDS = 16

// Fixed widths make lexical order the numeric order.
const padPeriod = (period: bigint) => period.toString(10).padStart(20, '0')
const padTime = (ms: number) => String(ms).padStart(15, '0')

export const golemPk = (golemId: string) => `GOLEM#${golemId}`
export const slotSk = (period: bigint, step: string) => `${SLOT_PREFIX}${padPeriod(period)}#${step}`
export const budgetSk = (period: bigint) => `${BUDGET_PREFIX}${padPeriod(period)}`
export const eventSk = (at: number, eventId: string) => `${EVENT_PREFIX}${padTime(at)}#${eventId}`
export const eventSkFrom = (at: number) => `${EVENT_PREFIX}${padTime(at)}#`
export const duePk = (shard: number) => `DUE#${shard}`
/** Lookup entries: an owner's Golems, and the Golem behind a session key (docs/store.md). */
export const ownerPk = (owner: string) => `OWNER#${owner.toLowerCase()}`
export const keyPk = (sessionKey: string) => `KEY#${sessionKey.toLowerCase()}`
/** The most Golems one lookup returns. */
export const MAX_GOLEMS_PER_LOOKUP = 1000
export const dueSk = (golemId: string) => `GOLEM#${golemId}`
export const paymentPk = (payer: string, nonce: string) => `PAYMENT#${payer}#${nonce}`
/** A payment identifier is the payer's: two payers never share one. */
export const paymentIdPk = (payer: string, paymentId: string) => `PAYID#${payer}#${paymentId}`
export const noncePk = (nonce: string) => `NONCE#${nonce}`
/** The window start comes first: it is digits, so a key containing '#' stays unambiguous. */
export const counterPk = (key: string, windowStart: number) => `RATE#${windowStart}#${key}`
export const snapPk = (scope: string) => `SNAP#${scope}`
/** A KMS pool key's claim, and the pointer from its claimant to it. */
export const poolKeyPk = (keyId: string) => `POOLKEY#${keyId}`
export const poolClaimantPk = (claimant: string) => `POOLCLAIM#${claimant}`
/** A council proposal's partition: the proposal item and one item per signer. */
export const councilPk = (proposalId: string) => `COUNCIL#${proposalId}`
export const COUNCIL_SIGNATURE_PREFIX = 'SIG#'
export const councilSignatureSk = (signer: string) => `${COUNCIL_SIGNATURE_PREFIX}${signer.toLowerCase()}`
/** A council's proposals' entries in one list partition, sorted by councilListKey (newest first when read backwards). */
export const councilListPk = (council: string) => `COUNCILS#${council.toLowerCase()}`
export const councilListSk = (listKey: string) => `PROPOSAL#${listKey}`
/** A council the owner formed (by its MultiSig DeleGator's address), and its owner's and members' lookup entries. */
export const councilRecordPk = (council: string) => `MULTISIG#${council.toLowerCase()}`
export const ownerCouncilsPk = (owner: string) => `OWNERCOUNCILS#${owner.toLowerCase()}`
export const golemCouncilsPk = (golemId: string) => `GOLEMCOUNCILS#${golemId}`
export const councilEntrySk = (recordKey: string) => `COUNCIL#${recordKey}`
export const LOG_PREFIX = 'SEQ#'
export const logPk = (log: string) => `LOG#${log}`
/** Twelve digits: a log holds at most MAX_LOG_SEQ records. */
export const logSk = (seq: number) => `${LOG_PREFIX}${String(seq).padStart(12, '0')}`
export const MAX_LOG_SEQ = 999_999_999_999

/** Default event id: random, so two events in the same millisecond do not collide. */
export const randomEventId = () => randomBytes(8).toString('hex')

/** FNV-1a: a stable, dependency-free spread of Golem ids over the due shards. */
export function dueShard(golemId: string, shards: number): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < golemId.length; i++) {
    hash ^= golemId.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash % shards
}

export type DueCursor = { shard: number; after: string | null }
export type SkCursor = { after: string }

export function encodeCursor(value: DueCursor | SkCursor): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url')
}

/** `only`: the one shard a walker lists; a cursor from another shard is refused. */
export function decodeDueCursor(text: string | null, shards: number, only: number | null = null): DueCursor {
  if (text === null) return { shard: only ?? 0, after: null }
  const value = decode(text)
  if (typeof value.shard !== 'number' || !Number.isInteger(value.shard) || value.shard < 0 || value.shard >= shards) bad()
  if (only !== null && value.shard !== only) bad()
  if (value.after !== null && typeof value.after !== 'string') bad()
  return { shard: value.shard as number, after: value.after as string | null }
}

export function decodeSkCursor(text: string | null): string | null {
  if (text === null) return null
  const value = decode(text)
  if (typeof value.after !== 'string') bad()
  return value.after as string
}

function decode(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'))
    if (typeof value === 'object' && value !== null) return value as Record<string, unknown>
  } catch {
    // fall through
  }
  return bad()
}

function bad(): never {
  throw new StoreInputError('cursor', 'must be a cursor returned by the previous page')
}
