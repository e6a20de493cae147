// A thin wrapper over the DocumentClient for one table: conditional put/update/delete that answer
// false/null when the condition fails (instead of throwing), the key guard on every write, and
// consistent reads unless a batch read or a Query asks otherwise. No TransactWrite: dynalite has none,
// and nothing here needs it (the deployed table's TTL only collects expired items, stacks/storage.ts).
import {
  BatchGetCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb'
import type { Item } from '../codec.ts'
import { RETRY, retry } from '../../../core/retry.ts'
import { StoreBackendError } from '../../../core/store/errors.ts'
import { assertNoKeyMaterial } from '../../../core/store/keyGuard.ts'

export type Key = { pk: string; sk: string }
export type Condition = { expression: string; names?: Record<string, string>; values?: Record<string, unknown> }
export type UpdateSpec = {
  /** Top-level attributes to SET. */
  set?: Item
  /** Top-level numeric attributes to ADD to (created at the value if absent). */
  add?: Record<string, number>
  /** Top-level attributes to SET only if absent. */
  setIfAbsent?: Item
  /** Top-level attributes to REMOVE. */
  remove?: string[]
}
export type QuerySpec = {
  pk: string
  /** Inclusive lower and upper bounds on sk. */
  skFrom?: string
  skTo?: string
  skBeginsWith?: string
  filter?: Condition
  limit: number
  /** Continue after this sk (exclusive). */
  after?: string | null
  forward?: boolean
  /** Strongly consistent unless false: an eventually consistent page costs half the read units. */
  consistent?: boolean
}

/** DynamoDB's limit of keys per BatchGetItem. */
export const BATCH_GET_MAX = 100

const isConditionFailure = (err: unknown) => err instanceof Error && err.name === 'ConditionalCheckFailedException'

export class DynamoTable {
  constructor(
    readonly doc: DynamoDBDocumentClient,
    readonly tableName: string,
  ) {}

  async get(key: Key): Promise<Item | null> {
    const out = await this.#call('GetItem', () =>
      this.doc.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true })),
    )
    return (out.Item as Item | undefined) ?? null
  }

  /**
   * Reads of up to BATCH_GET_MAX keys in one BatchGetItem (and again for any keys DynamoDB leaves
   * unprocessed under throttling, with a short backoff). Items come back in no particular order.
   * Consistent unless `consistent: false`: an eventually consistent read costs half the read units and
   * may miss a write of about the last second.
   */
  async batchGet(keys: readonly Key[], { consistent = true }: { consistent?: boolean } = {}): Promise<Item[]> {
    if (keys.length > BATCH_GET_MAX) throw new RangeError(`batchGet: at most ${BATCH_GET_MAX} keys, got ${keys.length}`)
    const items: Item[] = []
    let pending: Key[] = [...keys]
    if (pending.length === 0) return items
    // Unprocessed keys are DynamoDB shedding load: asked again until none is left, 50 ms doubling to 1 s apart.
    const untilProcessed = { attempts: Number.POSITIVE_INFINITY, backoff: { baseMs: 50, capMs: 1000 }, exhausted: () => items }
    return retry(untilProcessed, async () => {
      const out = await this.#call('BatchGetItem', () =>
        this.doc.send(new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: pending, ConsistentRead: consistent } } })),
      )
      items.push(...((out.Responses?.[this.tableName] as Item[] | undefined) ?? []))
      pending = (out.UnprocessedKeys?.[this.tableName]?.Keys as Key[] | undefined) ?? []
      return pending.length === 0 ? items : RETRY
    })
  }

  /** Writes the whole item; false if `condition` failed. */
  async put(item: Item, condition?: Condition): Promise<boolean> {
    assertNoKeyMaterial(item)
    try {
      await this.doc.send(new PutCommand({ TableName: this.tableName, Item: item, ...expression(condition) }))
      return true
    } catch (err) {
      if (isConditionFailure(err)) return false
      throw new StoreBackendError('PutItem', err)
    }
  }

  /** Updates (creating if absent) and returns the new item; null if `condition` failed. */
  async update(key: Key, spec: UpdateSpec, condition?: Condition): Promise<Item | null> {
    return this.#update(key, spec, condition, 'ALL_NEW')
  }

  /**
   * Updates an item that `condition` requires to exist and returns it as it was before the write (so the
   * caller knows what it changed without reading it first); null if `condition` failed.
   */
  async updateReturningOld(key: Key, spec: UpdateSpec, condition: Condition): Promise<Item | null> {
    return this.#update(key, spec, condition, 'ALL_OLD')
  }

  async #update(key: Key, spec: UpdateSpec, condition: Condition | undefined, returnValues: 'ALL_NEW' | 'ALL_OLD'): Promise<Item | null> {
    assertNoKeyMaterial({ ...spec.set, ...spec.add, ...spec.setIfAbsent })
    const names: Record<string, string> = { ...condition?.names }
    const values: Record<string, unknown> = { ...condition?.values }
    const sets: string[] = []
    const adds: string[] = []
    let n = 0
    const bind = (attr: string, value: unknown) => {
      const id = n++
      names[`#u${id}`] = attr
      values[`:u${id}`] = value
      return id
    }
    for (const [attr, value] of Object.entries(spec.set ?? {})) {
      const id = bind(attr, value)
      sets.push(`#u${id} = :u${id}`)
    }
    for (const [attr, value] of Object.entries(spec.setIfAbsent ?? {})) {
      const id = bind(attr, value)
      sets.push(`#u${id} = if_not_exists(#u${id}, :u${id})`)
    }
    for (const [attr, value] of Object.entries(spec.add ?? {})) {
      const id = bind(attr, value)
      adds.push(`#u${id} :u${id}`)
    }
    const removes = (spec.remove ?? []).map((attr) => {
      const id = n++
      names[`#u${id}`] = attr
      return `#u${id}`
    })
    const updateExpression = [
      sets.length ? `SET ${sets.join(', ')}` : '',
      adds.length ? `ADD ${adds.join(', ')}` : '',
      removes.length ? `REMOVE ${removes.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join(' ')
    try {
      const out = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: updateExpression,
          ...(condition ? { ConditionExpression: condition.expression } : {}),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: returnValues,
        }),
      )
      return (out.Attributes as Item | undefined) ?? null
    } catch (err) {
      if (isConditionFailure(err)) return null
      throw new StoreBackendError('UpdateItem', err)
    }
  }

  async delete(key: Key, condition?: Condition): Promise<boolean> {
    try {
      await this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: key, ...expression(condition) }))
      return true
    } catch (err) {
      if (isConditionFailure(err)) return false
      throw new StoreBackendError('DeleteItem', err)
    }
  }

  /** One Query page: the items that pass the filter, and the sk to continue after (null at the end). */
  async query(q: QuerySpec): Promise<{ items: Item[]; lastSk: string | null }> {
    const names: Record<string, string> = { '#pk': 'pk', ...q.filter?.names }
    const values: Record<string, unknown> = { ':pk': q.pk, ...q.filter?.values }
    let keyCondition = '#pk = :pk'
    if (q.skBeginsWith !== undefined) {
      names['#sk'] = 'sk'
      values[':skp'] = q.skBeginsWith
      keyCondition += ' AND begins_with(#sk, :skp)'
    } else if (q.skFrom !== undefined && q.skTo !== undefined) {
      names['#sk'] = 'sk'
      values[':skf'] = q.skFrom
      values[':skt'] = q.skTo
      keyCondition += ' AND #sk BETWEEN :skf AND :skt'
    }
    const out = await this.#call('Query', () =>
      this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: keyCondition,
          ...(q.filter ? { FilterExpression: q.filter.expression } : {}),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          Limit: q.limit,
          ConsistentRead: q.consistent ?? true,
          ScanIndexForward: q.forward ?? true,
          ...(q.after ? { ExclusiveStartKey: { pk: q.pk, sk: q.after } } : {}),
        }),
      ),
    )
    const lastSk = (out.LastEvaluatedKey?.sk as string | undefined) ?? null
    return { items: (out.Items as Item[] | undefined) ?? [], lastSk }
  }

  async #call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run()
    } catch (err) {
      throw new StoreBackendError(operation, err)
    }
  }
}

function expression(condition: Condition | undefined) {
  if (!condition) return {}
  return {
    ConditionExpression: condition.expression,
    ...(condition.names && Object.keys(condition.names).length ? { ExpressionAttributeNames: condition.names } : {}),
    ...(condition.values && Object.keys(condition.values).length ? { ExpressionAttributeValues: condition.values } : {}),
  }
}
