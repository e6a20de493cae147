// The three Lambda functions and the 1-minute schedule. Each function gets exactly the IAM actions
// its code sends, on exactly the resources it touches, and exactly the secrets it reads (links).
//
//              DynamoDB (Store)        KMS (SessionKeys)          Lambda          secrets (links)
//   heartbeat  GetItem, Query          -                          Invoke tick     RpcUrl
//   tick       + Put/Update/DeleteItem Sign, GetPublicKey (by     -               RpcUrl, OperatorKey
//                                      tag); CreateKey, TagResource,
//                                      CreateAlias (rotation, by tag)
//              (and ssm:GetParameter on the one parameter holding the API's URL)
//   api        + Put/Update/DeleteItem -                          Invoke tick     RpcUrl, SettlementKey,
//                                                                                 CladeHmacSecret, ReadApiKeyHashes,
//                                                                                 AlchemyWebhookSigningKey
import type { StackConfig } from './config.ts'
import type { SessionKeyAccess } from './keys.ts'
import type { Secrets } from './secrets.ts'
import type { Storage } from './storage.ts'

export const HANDLERS = {
  heartbeat: 'functions/heartbeat/handler.handler',
  tick: 'functions/tick/handler.handler',
  api: 'functions/api/handler.handler',
} as const

export const HEARTBEAT_SCHEDULE = 'rate(1 minute)'
/** The SSM parameter holding the API's URL, for the tick's self-extension. */
export const apiUrlParameter = (stage: string) => `/bardo/${stage}/api-url`
/** Namespace of the metrics the handlers publish (CloudWatch embedded metric format); see alarms.ts. */
export const METRICS_NAMESPACE = 'Bardo'

export type Functions = {
  heartbeat: Sst.Function
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
    environment: { ...environment, BARDO_KMS_ALIAS_PREFIX: sessionKeys.aliasPrefix, BARDO_API_URL_PARAMETER: apiUrlParameterName },
    link: [secrets.RpcUrl, secrets.OperatorKey],
    permissions: [
      storage.readWrite,
      ...sessionKeys.signing,
      ...sessionKeys.creation,
      { actions: ['ssm:GetParameter'], resources: [`arn:aws:ssm:*:*:parameter${apiUrlParameterName}`] },
    ],
  })

  const api = new sst.aws.Function('Api', {
    ...common,
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
    link: [secrets.RpcUrl, secrets.SettlementKey, secrets.CladeHmacSecret, secrets.ReadApiKeyHashes, secrets.AlchemyWebhookSigningKey],
    permissions: [storage.readWrite, { actions: ['lambda:InvokeFunction'], resources: [tick.arn] }],
  })

  new aws.ssm.Parameter('ApiUrl', { name: apiUrlParameterName, type: 'String', value: api.url })

  const heartbeat = new sst.aws.Function('Heartbeat', {
    ...common,
    handler: HANDLERS.heartbeat,
    description: 'Every minute: list due Golems and invoke the tick for each (asynchronously)',
    // Done before the next minute's run starts.
    timeout: '55 seconds',
    memory: '512 MB',
    environment: { ...environment, BARDO_TICK_FUNCTION_NAME: tick.name, BARDO_INDEXER_URL: indexerUrl },
    link: [secrets.RpcUrl],
    // The unqualified ARN: the heartbeat invokes the tick by name, never a version or alias.
    permissions: [storage.read, { actions: ['lambda:InvokeFunction'], resources: [tick.arn] }],
  })

  new sst.aws.Cron('HeartbeatSchedule', { schedule: HEARTBEAT_SCHEDULE, function: heartbeat.arn })

  // A missed minute is replaced by the next one: never retry a heartbeat or deliver it late.
  new aws.lambda.FunctionEventInvokeConfig('HeartbeatAsync', {
    functionName: heartbeat.name,
    maximumRetryAttempts: 0,
    maximumEventAgeInSeconds: 60,
  })
  // Ticks are idempotent (slot claims, reconcile from the chain), so AWS's retries are safe; past
  // ten minutes the heartbeat has dispatched fresher ticks anyway.
  new aws.lambda.FunctionEventInvokeConfig('TickAsync', { functionName: tick.name, maximumRetryAttempts: 2, maximumEventAgeInSeconds: 600 })

  return { heartbeat, tick, api }
}
