// The indexer: Ponder (`ponder start`, indexer/) as one Fargate service behind a load balancer, on
// RDS Postgres. The VPC has no NAT gateway: the service runs in public subnets with a public IP (SST
// Cluster v2's default) to reach the RPC; Postgres sits in the private subnets.
//
// A container's `link`s and `environment` are plain text in its ECS task definition, so the RPC URL
// and the database URL (it carries the password) reach it through `ssm`: SecureString parameters
// that ECS resolves when the task starts. The execution role may read exactly those two parameters.
import { INDEXER_PORT, type StackConfig } from './config.ts'
import type { Secrets } from './secrets.ts'

export const INDEXER_HEALTH_PATH = '/health'
/** Where stacks/indexer.Dockerfile puts the RDS CA bundle, for sslmode=verify-full. */
export const RDS_CA_PATH = '/etc/ssl/certs/rds-global-bundle.pem'

// node:22-slim has no curl; Node's fetch does the probe.
const probe = `fetch('http://127.0.0.1:${INDEXER_PORT}${INDEXER_HEALTH_PATH}').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))`

export type Indexer = {
  service: Sst.Service
  url: Sst.Output<string>
}

export function createIndexer(config: StackConfig, secrets: Secrets): Indexer {
  const vpc = new sst.aws.Vpc('Vpc')
  const database = new sst.aws.Postgres('Database', {
    vpc,
    instance: 't4g.micro',
    storage: '20 GB',
    database: 'bardo',
    transform: {
      instance: (args) => {
        args.deletionProtection = config.production
      },
    },
  })
  const parameterPath = `/${$app.name}/${config.stage}/indexer`
  const rpcUrl = new aws.ssm.Parameter('IndexerRpcUrl', {
    name: `${parameterPath}/rpc-url`,
    type: 'SecureString',
    value: secrets.RpcUrl.value,
    description: 'JSON-RPC URL the indexer reads the chain from (sst secret RpcUrl)',
  })
  const databaseUrl = new aws.ssm.Parameter('IndexerDatabaseUrl', {
    name: `${parameterPath}/database-url`,
    type: 'SecureString',
    value: $resolve([database.username, database.password, database.host, database.port, database.database]).apply(
      ([user, password, host, port, name]) =>
        `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${host}:${port}/${name}?sslmode=verify-full&sslrootcert=${RDS_CA_PATH}`,
    ),
    description: 'Postgres connection string for Ponder (from the Database component)',
  })

  const cluster = new sst.aws.Cluster('Cluster', { vpc })
  const https = config.indexerDomain !== undefined
  const service = new sst.aws.Service('Indexer', {
    cluster,
    cpu: '0.5 vCPU',
    memory: '1 GB',
    image: { context: '.', dockerfile: 'stacks/indexer.Dockerfile' },
    environment: {
      BARDO_CHAIN_ID: String(config.chainId),
      BARDO_DEPLOYMENT: config.indexerDeploymentJson,
      BARDO_START_BLOCK: String(config.startBlock),
      DATABASE_SCHEMA: config.indexerSchema,
      NODE_ENV: 'production',
      PONDER_TELEMETRY_DISABLED: 'true',
      DO_NOT_TRACK: '1',
    },
    ssm: { BARDO_RPC_URL: rpcUrl.arn, DATABASE_URL: databaseUrl.arn },
    health: { command: ['CMD', 'node', '-e', probe], startPeriod: '300 seconds', interval: '30 seconds', timeout: '5 seconds', retries: 3 },
    loadBalancer: {
      ...(https ? { domain: config.indexerDomain } : {}),
      rules: https
        ? [
            { listen: '80/http', redirect: '443/https' },
            { listen: '443/https', forward: `${INDEXER_PORT}/http` },
          ]
        : [{ listen: '80/http', forward: `${INDEXER_PORT}/http` }],
      // Ponder answers /health with 503 until the backfill is done (or its 240 s grace has passed).
      health: {
        [`${INDEXER_PORT}/http`]: { path: INDEXER_HEALTH_PATH, interval: '30 seconds', healthyThreshold: 2, unhealthyThreshold: 5 },
      },
    },
    // One instance: a Ponder schema has one writer. Zero-downtime needs a new schema per release.
    scaling: { min: 1, max: 1 },
    logging: { retention: config.production ? '3 months' : '1 month' },
    transform: {
      // SST's execution role may read every SSM parameter and secret in the account; this one may
      // read the two parameters above.
      executionRole: (args) => {
        args.inlinePolicies = [
          {
            name: 'inline',
            policy: $jsonStringify({
              Version: '2012-10-17',
              Statement: [
                { Sid: 'ReadIndexerParameters', Effect: 'Allow', Action: ['ssm:GetParameters'], Resource: [rpcUrl.arn, databaseUrl.arn] },
              ],
            }),
          },
        ]
      },
    },
  })
  return { service, url: service.url }
}
