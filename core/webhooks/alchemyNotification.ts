// The body of an Alchemy Notify custom (GraphQL) webhook delivery, for the query `bardo deploy`
// registers (core/webhooks/custodyQuery.ts): one block and, in one list per field of the query, the
// custody logs our contracts emitted in it.
import * as z from 'zod/v4'
import { getAddress, isAddress, isHex, type Address, type Hex } from 'viem'
import { CUSTODY_LOG_FIELDS, type CustodyLogField } from './custodyQuery.ts'
import { WebhookBodyError } from './errors.ts'

const address = z
  .string()
  .refine((v) => isAddress(v, { strict: false }), 'must be a 20-byte hex address')
  .transform((v) => getAddress(v))
const hex = z
  .string()
  .refine((v) => isHex(v, { strict: true }), 'must be 0x-prefixed hex')
  .transform((v) => v as Hex)
const topic = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 32-byte hex topic')
  .transform((v) => v as Hex)

const log = z.object({
  data: hex,
  topics: z.array(topic).max(4, 'must hold at most 4 topics'),
  index: z.number().int().nonnegative().optional(),
  account: z.object({ address }),
  transaction: z.object({ hash: topic }),
})

/**
 * Above what the webhook route's body limit can carry, so the count never refuses a delivery the limit
 * admits: a busy block's custody logs are all read.
 */
export const MAX_LOGS_PER_FIELD = 10_000

// GraphQL answers a list field with [] or null when the block has none; a missing field means another query.
const logs = z
  .array(log, 'must be a list of logs (a field of the query bardo deploy registers)')
  .max(MAX_LOGS_PER_FIELD, `must hold at most ${MAX_LOGS_PER_FIELD} logs`)
  .nullable()
/**
 * Fields a query may lack: `nonces` is asked for only where the deployment's framework has a NonceEnforcer,
 * and a webhook registered before it was added delivers without it.
 */
const OPTIONAL_FIELDS: readonly CustodyLogField[] = ['nonces']
const blockLogs = Object.fromEntries(CUSTODY_LOG_FIELDS.map((f) => [f, OPTIONAL_FIELDS.includes(f) ? logs.optional() : logs])) as Record<
  CustodyLogField,
  typeof logs
>

/** The delivery body as Alchemy sends it (also the API's documented request body). */
export const alchemyNotificationSchema = z.object({
  webhookId: z.string().min(1, 'must name the webhook'),
  id: z.string().regex(/^[A-Za-z0-9_.:-]{1,200}$/, "must be 1-200 letters, digits, '_', '.', ':' or '-'"),
  createdAt: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 time' }),
  type: z.literal('GRAPHQL', 'must be GRAPHQL (a custom webhook)'),
  event: z.object({
    data: z.object({
      block: z.object({
        number: z.number().int().nonnegative(),
        hash: topic.optional(),
        timestamp: z.number().int().nonnegative().optional(),
        ...blockLogs,
      }),
    }),
    network: z.string().optional(),
  }),
})

export type AlchemyLog = {
  address: Address
  topics: Hex[]
  data: Hex
  txHash: Hex
  logIndex: number | null
}

export type AlchemyNotification = {
  webhookId: string
  /** Unique per delivery; Alchemy resends a failed delivery with the same id. */
  id: string
  createdAtMs: number
  blockNumber: bigint
  /** Every field's logs, in the block's order. */
  logs: AlchemyLog[]
}

/** Parses a delivery's JSON; throws WebhookBodyError naming the first field that breaks its rule. */
export function parseAlchemyNotification(raw: unknown): AlchemyNotification {
  const parsed = alchemyNotificationSchema.safeParse(raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    const field = ['body', ...issue.path.map(String)].join('.')
    throw new WebhookBodyError(field, issue.message)
  }
  const n = parsed.data
  const block = n.event.data.block
  const all = CUSTODY_LOG_FIELDS.flatMap((f) => block[f] ?? [])
  return {
    webhookId: n.webhookId,
    id: n.id,
    createdAtMs: Date.parse(n.createdAt),
    blockNumber: BigInt(block.number),
    logs: all
      .map((l) => ({
        address: l.account.address,
        topics: l.topics,
        data: l.data,
        txHash: l.transaction.hash,
        logIndex: l.index ?? null,
      }))
      .sort((a, b) => (a.logIndex ?? Number.MAX_SAFE_INTEGER) - (b.logIndex ?? Number.MAX_SAFE_INTEGER)),
  }
}

/** How old a delivery may be: Alchemy's retries end well within it, and the dedupe record outlives it. */
export const MAX_NOTIFICATION_AGE_MS = 24 * 60 * 60 * 1000
/** Clock skew allowed between Alchemy and this API. */
export const MAX_NOTIFICATION_SKEW_MS = 5 * 60 * 1000

/** A replayed old delivery is refused even if its id record was ever dropped from the store. */
export function checkNotificationAge(n: AlchemyNotification, nowMs: number): void {
  if (n.createdAtMs < nowMs - MAX_NOTIFICATION_AGE_MS) throw new WebhookBodyError('body.createdAt', 'must be within the last 24 hours')
  if (n.createdAtMs > nowMs + MAX_NOTIFICATION_SKEW_MS) throw new WebhookBodyError('body.createdAt', 'must not be in the future')
}
