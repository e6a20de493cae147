// The four Lambda functions, the walker queue and the 1-minute schedule. Each function gets exactly the
// IAM actions its code sends, on exactly the resources it touches, and exactly the secrets it reads (links).
//
//              DynamoDB (Store)        KMS (SessionKeys)          Lambda / SQS            secrets (links)
//   heartbeat  Query                   -                          SendMessage Walks       RpcUrl
//   walker     BatchGetItem, Query,    -                          Invoke tick; receive    RpcUrl
//              UpdateItem (walk record)
//                                                                 and delete from Walks
//   tick       + Put/Update/DeleteItem Sign, GetPublicKey (by     -                       RpcUrl, OperatorKey,
//                                                                                         PrivyAppSecret
//                                      tag); CreateKey, TagResource,
//                                      CreateAlias (rotation, by tag)
//              (and ssm:GetParameter on the one parameter holding the API's URL)
//   api        + Put/Update/DeleteItem Sign, GetPublicKey (by     Invoke tick     RpcUrl, SettlementKey,
//              BatchGetItem (councils) tag: the action path)                      CladeHmacSecret, ReadApiKeyHashes,
//                                                                                 AlchemyWebhookSigningKey, ReceiptSigningKey
import { DEFAULT_DUE_SHARDS, WALKS_PK } from '../adapters/store/keys.ts'
import type { StackConfig } from './config.ts'
import type { SessionKeyAccess } from './keys.ts'
import type { Secrets } from './secrets.ts'
import type { Storage } from './storage.ts'

export const HANDLERS = {
  heartbeat: 'functions/heartbeat/handler.handler',
  walker: 'functions/walker/handler.handler',
  tick: 'functions/tick/handler.handler',
  api: 'functions/api/handler.handler',
} as const

export const HEARTBEAT_SCHEDULE = 'rate(1 minute)'
/**
 * Shard walks in flight at once, across the account: at most one per due shard (small shards share a
 * walk), so a whole minute's walks run side by side, and a burst of redeliveries cannot take more of the account's Lambda concurrency than that.
 */
export const WALKER_MAX_CONCURRENCY = DEFAULT_DUE_SHARDS
/** What the walker reads: the due list (Query) and a page's records (BatchGetItem). */
export const WALKER_TABLE_READS = ['dynamodb:BatchGetItem', 'dynamodb:Query'] as const
/**
 * The walker's one write: the record that its shards were walked (UpdateItem), which says an idle
 * Golem's heartbeat is alive; allowed on that record's partition only.
 */
export const WALKER_WALK_RECORD = {
  actions: ['dynamodb:UpdateItem'],
  conditions: [{ test: 'ForAllValues:StringEquals', variable: 'dynamodb:LeadingKeys', values: [WALKS_PK] }],
} as const
/**
 * The API's batched read: the councils a lookup names (an owner's councils, the councils a Golem sits on)
 * read in one BatchGetItem, on the table only.
 */
export const API_TABLE_BATCH_READS = ['dynamodb:BatchGetItem'] as const
/** What the heartbeat reads: each due shard's first page (Query), to pack the small shards into one walk. */
export const HEARTBEAT_TABLE_ACTIONS = ['dynamodb:Query'] as const
/** What a Lambda event source mapping does on the queue for its function. */
export const QUEUE_CONSUMER_ACTIONS = [
  'sqs:ChangeMessageVisibility',
  'sqs:DeleteMessage',
  'sqs:GetQueueAttributes',
  'sqs:ReceiveMessage',
] as const
/** The SSM parameter holding the API's URL, for the tick's self-extension. */
export const apiUrlParameter = (stage: string) => `/bardo/${stage}/api-url`
/** Namespace of the metrics the handlers publish (CloudWatch embedded metric format); see alarms.ts. */
export const METRICS_NAMESPACE = 'Bardo'

export type Functions = {
  heartbeat: Sst.Function
  walker: Sst.Function
  walks: Sst.Queue
  tick: Sst.Function
  api: Sst.Function
}

export type FunctionDeps = {
  config: StackConfig
  secrets: Secrets
  storage: Storage
  sessionKeys: SessionKeyAccess
  indexerUrl: Sst.Output<string>
}

export function createFunctions({ config, secrets, storage, sessionKeys, indexerUrl }: FunctionDeps): Functions {
  const common = {
    runtime: 'nodejs22.x',
    architecture: 'arm64',
    logging: { retention: config.production ? '3 months' : '1 month', format: 'json' },
    nodejs: { format: 'esm', sourcemap: true },
  } satisfies Partial<Sst.FunctionArgs>
  // Plain configuration only: addresses, names, numbers. Secrets travel as links.
  const environment = {
    BARDO_STAGE: config.stage,
    BARDO_CHAIN_ID: String(config.chainId),
    BARDO_DEPLOYMENT: config.deploymentJson,
    BARDO_TABLE_NAME: storage.table.name,
    BARDO_METRICS_NAMESPACE: METRICS_NAMESPACE,
    BARDO_USDC: config.paymentAsset.asset,
    BARDO_USDC_NAME: config.paymentAsset.name,
    BARDO_USDC_VERSION: config.paymentAsset.version,
    // The MetaMask kit's createDelegation reports usage to MetaMask unless told not to.
    DO_NOT_TRACK: '1',
    NODE_OPTIONS: '--enable-source-maps',
  }

  const apiUrlParameterName = apiUrlParameter(config.stage)
  const tick = new sst.aws.Function('Tick', {
    ...common,
    handler: HANDLERS.tick,
    description: 'One Golem heartbeat: read the chain, move the phase, redeem the runway, reconcile',
    // Room to wait for a receipt and reconcile; a slower tick is caught by the slot lease.
    timeout: '2 minutes',
    memory: '1024 MB',
    // The Golems pay the API for their own runtime (self-extension). The API invokes the tick (webhooks),
    // so the tick cannot name the API's URL in its environment: it reads it from a parameter the stack
    // writes once the API exists, by a name known before either.
    // No key list: the keys are the stage's by their tags; rotation names its new key under the prefix.
    environment: {
      ...environment,
      BARDO_FRAMEWORK: config.tickFrameworkJson,
      BARDO_KMS_ALIAS_PREFIX: sessionKeys.aliasPrefix,
      BARDO_API_URL_PARAMETER: apiUrlParameterName,
      // Golems whose key is a Privy wallet: the app's id and API here, its secret by link (PrivyAppSecret).
      ...(config.privy.appId === undefined ? {} : { BARDO_PRIVY_APP_ID: config.privy.appId }),
      ...(config.privy.apiUrl === undefined ? {} : { BARDO_PRIVY_API_URL: config.privy.apiUrl }),
      // Failed ticks in a row that halt a Golem (docs/heartbeat.md "Heartbeat anomaly"); unset, 5.
      ...(config.maxFailedTicks === undefined ? {} : { BARDO_MAX_FAILED_TICKS: String(config.maxFailedTicks) }),
    },
    link: [secrets.RpcUrl, secrets.OperatorKey, secrets.PrivyAppSecret],
    permissions: [
      storage.readWrite,
      ...sessionKeys.signing,
      ...sessionKeys.creation,
      { actions: ['ssm:GetParameter'], resources: [`arn:aws:ssm:*:*:parameter${apiUrlParameterName}`] },
    ],
  })

  const api = new sst.aws.Function('Api', {
    ...common,
    // The docs page's script and stylesheet are read from the installed swagger-ui-dist (GET /docs), not
    // bundled: the package ships beside the handler.
    nodejs: { ...common.nodejs, install: ['swagger-ui-dist'] },
    handler: HANDLERS.api,
    description: 'Bardo HTTP API (Hono): permission health, history, x402 extend/feed, Clade, Snap',
    timeout: '30 seconds',
    memory: '1024 MB',
    // Hono answers CORS itself (BARDO_ALLOWED_ORIGINS); a second layer would double the headers.
    url: { authorization: 'none', cors: false },
    environment: {
      ...environment,
      BARDO_INDEXER_URL: indexerUrl,
      // The Alchemy webhook ticks the Golems a delivery concerns, as the heartbeat does.
      BARDO_TICK_FUNCTION_NAME: tick.name,
      // A function URL gives the caller's address in the request context: no proxy to trust.
      BARDO_TRUSTED_PROXY_HOPS: '0',
      ...(config.allowedOrigins === '' ? {} : { BARDO_ALLOWED_ORIGINS: config.allowedOrigins }),
    },
    link: [
      secrets.RpcUrl,
      secrets.SettlementKey,
      secrets.CladeHmacSecret,
      secrets.ReadApiKeyHashes,
      secrets.AlchemyWebhookSigningKey,
      secrets.ReceiptSigningKey,
    ],
    // Signing only (the action path runs with the Golem's key); creating keys stays the tick's.
    permissions: [
      storage.readWrite,
      { actions: [...API_TABLE_BATCH_READS], resources: [storage.table.arn] },
      ...sessionKeys.signing,
      { actions: ['lambda:InvokeFunction'], resources: [tick.arn] },
    ],
  })

  new aws.ssm.Parameter('ApiUrl', { name: apiUrlParameterName, type: 'String', value: api.url })

  // One message per walk each minute (a full shard alone, small ones packed). A walk is only worth doing in its minute: messages live 60 s
  // (SQS's least), and a walk that fails is seen again only within that, never a minute late.
  const walks = new sst.aws.Queue('Walks', {
    // AWS refuses a Lambda event source whose queue hides a message for less than the function's timeout.
    visibilityTimeout: '55 seconds',
    transform: {
      queue: (args: Record<string, unknown>) => {
        args.messageRetentionSeconds = 60
      },
    },
  })

  const walker = new sst.aws.Function('Walker', {
    ...common,
    handler: HANDLERS.walker,
    description: 'One due shard a minute: list its due Golems, read them in one multicall a page, invoke the tick',
    // Done before the next minute's walk of the same shard starts.
    timeout: '55 seconds',
    memory: '512 MB',
    // The tick buys its Golems' runtime and rotates their keys (its API URL parameter and KMS alias
    // prefix): the walker hands over the Golems due for either (core/lifecycle/tickNeed.ts).
    environment: { ...environment, BARDO_TICK_FUNCTION_NAME: tick.name, BARDO_TICK_SELF_EXTENSION: '1', BARDO_TICK_ROTATION: '1' },
    link: [secrets.RpcUrl],
    permissions: [
      { actions: [...WALKER_TABLE_READS], resources: [storage.table.arn] },
      {
        actions: [...WALKER_WALK_RECORD.actions],
        resources: [storage.table.arn],
        conditions: WALKER_WALK_RECORD.conditions.map((c) => ({ ...c, values: [...c.values] })),
      },
      // The unqualified ARN: the walker invokes the tick by name, never a version or alias.
      { actions: ['lambda:InvokeFunction'], resources: [tick.arn] },
      { actions: [...QUEUE_CONSUMER_ACTIONS], resources: [walks.arn] },
    ],
  })
  walks.subscribe(walker.arn, {
    // One shard per invocation, so the shards walk side by side; a failed walk is reported alone.
    batch: { size: 1, partialResponses: true },
    transform: {
      eventSourceMapping: (args: Record<string, unknown>) => {
        args.scalingConfig = { maximumConcurrency: WALKER_MAX_CONCURRENCY }
      },
    },
  })

  const heartbeat = new sst.aws.Function('Heartbeat', {
    ...common,
    handler: HANDLERS.heartbeat,
    description: 'Every minute: read the chain head, list the due shards, and send their walks to the walker queue',
    timeout: '30 seconds',
    memory: '256 MB',
    environment: { ...environment, BARDO_WALK_QUEUE_URL: walks.url, BARDO_INDEXER_URL: indexerUrl },
    link: [secrets.RpcUrl],
    // Not linked (SST's Queue link grants sqs:*): it only sends.
    permissions: [
      { actions: [...HEARTBEAT_TABLE_ACTIONS], resources: [storage.table.arn] },
      { actions: ['sqs:SendMessage'], resources: [walks.arn] },
    ],
  })

  new sst.aws.Cron('HeartbeatSchedule', { schedule: HEARTBEAT_SCHEDULE, function: heartbeat.arn })

  // A missed minute is replaced by the next one: never retry a heartbeat or deliver it late.
  new aws.lambda.FunctionEventInvokeConfig('HeartbeatAsync', {
    functionName: heartbeat.name,
    maximumRetryAttempts: 0,
    maximumEventAgeInSeconds: 60,
  })
  // Ticks are idempotent (slot claims, reconcile from the chain), so AWS's retries are safe; past
  // ten minutes the walkers have dispatched fresher ticks anyway.
  new aws.lambda.FunctionEventInvokeConfig('TickAsync', { functionName: tick.name, maximumRetryAttempts: 2, maximumEventAgeInSeconds: 600 })

  return { heartbeat, walker, walks, tick, api }
}
