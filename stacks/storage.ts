// The one DynamoDB table behind core/store's DynamoStore: string `pk` and `sk`, no secondary index
// (the due list is a sharded partition, DUE#<n>). TTL on `ttl` collects what expires (rate-limit
// counters, single-use nonces, payment-id bindings): garbage collection only, since every expiry is an
// attribute the store checks on read, and DynamoDB deletes expired items only within days.
// The table is not `link`ed anywhere: SST's Dynamo link grants dynamodb:* on it. Functions get the
// exact actions the store sends instead.
import type { StackConfig } from './config.ts'

/** The key schema adapters/store/dynamo/table.ts reads and writes. */
export const TABLE_FIELDS = { pk: 'string', sk: 'string' } as const
export const TABLE_PRIMARY_INDEX = { hashKey: 'pk', rangeKey: 'sk' } as const
/** The attribute adapters/store/codec.ts writes (unix seconds) on the items that expire. */
export const TABLE_TTL_ATTRIBUTE = 'ttl'

/** What DynamoStore's read paths send (getGolem, listDueGolems, list/get of history). */
export const TABLE_READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:Query'] as const
/**
 * DynamoStore's single-item reads and conditional single-item writes: no Scan or Transact. Its batched
 * reads (BatchGetItem: a walk's page of records, the councils a lookup names) are granted apart, to the
 * functions that send them.
 */
export const TABLE_READ_WRITE_ACTIONS = [...TABLE_READ_ACTIONS, 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'] as const

export type Storage = {
  table: Sst.Dynamo
  read: Sst.Permission
  readWrite: Sst.Permission
}

export function createStorage(config: StackConfig): Storage {
  const table = new sst.aws.Dynamo('Store', {
    fields: { ...TABLE_FIELDS },
    primaryIndex: { ...TABLE_PRIMARY_INDEX },
    ttl: TABLE_TTL_ATTRIBUTE,
    transform: {
      // SST already turns on point-in-time recovery; production also refuses DeleteTable.
      table: (args) => {
        args.deletionProtectionEnabled = config.production
      },
    },
  })
  // The table ARN alone: there is no index, so no `${arn}/index/*` resource is needed.
  return {
    table,
    read: { actions: [...TABLE_READ_ACTIONS], resources: [table.arn] },
    readWrite: { actions: [...TABLE_READ_WRITE_ACTIONS], resources: [table.arn] },
  }
}
