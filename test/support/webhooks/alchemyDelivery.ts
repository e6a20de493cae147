// What Alchemy delivers for a custom-webhook query, for tests: every `logs(filter: ...)` field of the
// registered query text, under its alias, holds the block's logs its filter selects with eth_getLogs
// semantics (an empty address or topic list admits anything; `$name` is the webhook variable's items).
// Tests build deliveries from the query the code registers, so a query that lets a stranger's logs
// through shows up as the delivery Alchemy would really send.
import type { Address, Hex } from 'viem'

export type BlockLog = { address: Address; topics: readonly Hex[]; data: Hex; transactionHash: Hex; logIndex: number }
type TopicSpec = string[] | { variable: string }
type LogsField = { field: string; addresses: string[]; topics: TopicSpec[] }

/** The `[...]` list starting at `text[at]`: quoted strings, `$variables` and nested lists. */
function readList(text: string, at: number): { value: unknown[]; end: number } {
  if (text[at] !== '[') throw new Error(`query: expected '[' at ${at}`)
  const value: unknown[] = []
  let i = at + 1
  while (i < text.length) {
    const c = text[i]!
    if (c === ']') return { value, end: i + 1 }
    if (c === '[') {
      const inner = readList(text, i)
      value.push(inner.value)
      i = inner.end
    } else if (c === '"') {
      const close = text.indexOf('"', i + 1)
      value.push(text.slice(i + 1, close))
      i = close + 1
    } else if (c === '$') {
      const name = /^\$([A-Za-z_]\w*)/.exec(text.slice(i))![1]!
      value.push({ variable: name })
      i += name.length + 1
    } else i++
  }
  throw new Error('query: unclosed list')
}

function logsFields(query: string): LogsField[] {
  const fields: LogsField[] = []
  for (const m of query.matchAll(/(?:([A-Za-z_]\w*)\s*:\s*)?logs\s*\(\s*filter\s*:\s*\{([^}]*)\}\s*\)/g)) {
    const body = m[2]!
    const addressesAt = body.search(/addresses\s*:\s*\[/)
    const topicsAt = body.search(/topics\s*:\s*\[/)
    const addresses = addressesAt < 0 ? [] : (readList(body, body.indexOf('[', addressesAt)).value as string[])
    const topics = topicsAt < 0 ? [] : (readList(body, body.indexOf('[', topicsAt)).value as TopicSpec[])
    fields.push({ field: m[1] ?? 'logs', addresses, topics })
  }
  return fields
}

function admits(f: LogsField, log: BlockLog, variable: (name: string) => readonly Hex[]): boolean {
  if (f.addresses.length > 0 && !f.addresses.some((a) => a.toLowerCase() === log.address.toLowerCase())) return false
  return f.topics.every((spec, i) => {
    const values = Array.isArray(spec) ? spec : variable(spec.variable)
    if (values.length === 0) return true
    const topic = log.topics[i]?.toLowerCase()
    return topic !== undefined && values.some((v) => v.toLowerCase() === topic)
  })
}

/** The delivered block's log lists, by field, for this query over this block's logs. */
export function queryBlockLogs(query: string, logs: readonly BlockLog[], variable: (name: string) => readonly Hex[]) {
  const fields = logsFields(query)
  if (fields.length === 0) throw new Error('query: no logs field')
  return Object.fromEntries(
    fields.map((f) => [
      f.field,
      logs
        .filter((l) => admits(f, l, variable))
        .map((l) => ({
          index: l.logIndex,
          data: l.data,
          topics: l.topics,
          account: { address: l.address },
          transaction: { hash: l.transactionHash },
        })),
    ]),
  )
}

/** A whole delivery's body, as Alchemy sends it for one block. */
export function alchemyDelivery(o: {
  id: string
  query: string
  blockNumber: bigint | number
  logs: readonly BlockLog[]
  variable: (name: string) => readonly Hex[]
  createdAt?: Date
  blockHash?: Hex
}): string {
  return JSON.stringify({
    webhookId: 'wh_bardo_test',
    id: o.id,
    createdAt: (o.createdAt ?? new Date()).toISOString(),
    type: 'GRAPHQL',
    event: {
      data: {
        block: {
          number: Number(o.blockNumber),
          ...(o.blockHash ? { hash: o.blockHash } : {}),
          ...queryBlockLogs(o.query, o.logs, o.variable),
        },
      },
      network: 'ETH_MAINNET',
    },
  })
}
