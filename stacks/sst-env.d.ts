// The slice of SST's platform globals (normally `/// <reference path="./.sst/platform/config.d.ts" />`,
// which only exists after `sst install` extracts the platform and downloads its Pulumi packages; the
// `sst` npm package ships the runtime SDK only) that sst.config.ts and stacks/ use.
// Names and shapes follow SST v3 (platform/src/components/**) and @pulumi/aws; keep them faithful so
// the same files compile against the real platform. Only what this project calls is declared.

declare namespace Sst {
  /** Pulumi's Output: a value known after deploy. Stacks never read it; they pass it on. */
  interface Output<T> {
    apply<U>(fn: (value: T) => Input<U>): Output<U>
  }
  type Input<T> = T | Promise<T> | Output<T>

  type AppInput = { stage?: string }
  type App = {
    name: string
    home: 'aws' | 'cloudflare' | 'local'
    removal?: 'remove' | 'retain' | 'retain-all'
    protect?: boolean
    providers?: Record<string, unknown>
  }
  type Config = {
    app(input: AppInput): App
    run(): Promise<Record<string, unknown> | void>
  }

  /** FunctionPermissionArgs; also the task-role statements of a Service. */
  type Permission = {
    effect?: 'allow' | 'deny'
    actions: string[]
    resources: Input<Input<string>[]>
    /** IAM conditions: every entry must hold; within one, any of its values. */
    conditions?: Input<Input<PermissionCondition>[]>
  }
  type PermissionCondition = { test: Input<string>; variable: Input<string>; values: Input<Input<string>[]> }
  /** What sst.aws.permission() returns: a link include that becomes an IAM statement. */
  type PermissionInclude = Permission & { type: 'aws.permission' }
  /** Anything with getSSTLink(): components, sst.Secret, sst.Linkable. */
  type Linkable = object

  type Duration = `${number} ${'second' | 'seconds' | 'minute' | 'minutes'}`
  type Size = `${number} MB` | `${number} GB`
  type Transform<T> = Partial<T> | ((args: T, opts: unknown, name: string) => void)

  type FunctionArgs = {
    handler: Input<string>
    description?: Input<string>
    runtime?: Input<'nodejs20.x' | 'nodejs22.x' | 'nodejs24.x'>
    architecture?: Input<'x86_64' | 'arm64'>
    timeout?: Input<Duration>
    memory?: Input<Size>
    environment?: Input<Record<string, Input<string>>>
    link?: Input<Linkable[]>
    permissions?: Input<Permission[]>
    url?: Input<boolean | { authorization?: Input<'none' | 'iam'>; cors?: Input<boolean> }>
    logging?: Input<false | { retention?: Input<string>; format?: Input<'text' | 'json'> }>
    concurrency?: Input<{ reserved?: Input<number>; provisioned?: Input<number> }>
    nodejs?: Input<{ format?: Input<'esm' | 'cjs'>; sourcemap?: Input<boolean>; install?: Input<string[]> }>
  }
  class Function {
    constructor(name: string, args: FunctionArgs)
    readonly arn: Output<string>
    readonly name: Output<string>
    /** Throws when the function has no `url`. */
    readonly url: Output<string>
  }

  type CronArgs = {
    schedule: Input<`rate(${string})` | `cron(${string})`>
    /** A handler path, FunctionArgs, or an existing function's ARN. */
    function?: Input<string | FunctionArgs | Output<string>>
    event?: Input<Record<string, Input<string>>>
    enabled?: Input<boolean>
  }
  class Cron {
    constructor(name: string, args: CronArgs)
  }

  type QueueArgs = {
    fifo?: Input<boolean | { contentBasedDeduplication?: Input<boolean> }>
    /** At least the subscriber's timeout (AWS refuses a shorter one for a Lambda event source). */
    visibilityTimeout?: Input<Duration | `${number} hour` | `${number} hours`>
    dlq?: Input<string | { queue: Input<string>; retry: Input<number> }>
    transform?: { queue?: Transform<Record<string, unknown>> }
  }
  type QueueSubscriberArgs = {
    filters?: Input<Input<Record<string, unknown>>[]>
    batch?: Input<{ size?: Input<number>; window?: Input<Duration>; partialResponses?: Input<boolean> }>
    transform?: { eventSourceMapping?: Transform<Record<string, unknown>> }
  }
  /** SST's Queue: an SQS queue; its link grants sqs:* on it, so functions get exact actions instead. */
  class Queue {
    constructor(name: string, args?: QueueArgs)
    readonly arn: Output<string>
    readonly url: Output<string>
    /** One subscriber per queue: a handler path, FunctionArgs, or an existing function's ARN. */
    subscribe(subscriber: Input<string | FunctionArgs | Output<string>>, args?: QueueSubscriberArgs): unknown
  }

  type DynamoArgs = {
    fields: Input<Record<string, 'string' | 'number' | 'binary'>>
    primaryIndex: Input<{ hashKey: Input<string>; rangeKey?: Input<string> }>
    globalIndexes?: Input<Record<string, Input<{ hashKey: Input<string>; rangeKey?: Input<string> }>>>
    ttl?: Input<string>
    transform?: { table?: Transform<Record<string, unknown>> }
  }
  class Dynamo {
    constructor(name: string, args: DynamoArgs)
    readonly arn: Output<string>
    readonly name: Output<string>
  }

  class Vpc {
    constructor(name: string, args?: { az?: Input<number>; nat?: Input<'managed' | 'ec2'>; bastion?: Input<boolean> })
    readonly id: Output<string>
    readonly publicSubnets: Output<string[]>
    readonly privateSubnets: Output<string[]>
    readonly securityGroups: Output<string[]>
  }

  type PostgresArgs = {
    vpc: Vpc
    version?: Input<string>
    instance?: Input<string>
    storage?: Input<`${number} GB`>
    database?: Input<string>
    multiAz?: Input<boolean>
    transform?: { instance?: Transform<Record<string, unknown>> }
  }
  class Postgres {
    constructor(name: string, args: PostgresArgs)
    readonly host: Output<string>
    readonly port: Output<number>
    readonly username: Output<string>
    readonly password: Output<string>
    readonly database: Output<string>
  }

  class Cluster {
    constructor(name: string, args: { vpc: Vpc })
  }

  type Port = `${number}/${'http' | 'https' | 'tcp' | 'udp' | 'tcp_udp' | 'tls'}`
  type ServiceArgs = {
    cluster: Cluster
    architecture?: Input<'x86_64' | 'arm64'>
    cpu?: '0.25 vCPU' | '0.5 vCPU' | '1 vCPU' | '2 vCPU' | '4 vCPU'
    memory?: `${number} GB`
    image?: Input<string | { context?: Input<string>; dockerfile?: Input<string>; args?: Input<Record<string, Input<string>>> }>
    command?: Input<Input<string>[]>
    environment?: Input<Record<string, Input<string>>>
    /** Env var name -> SSM parameter or Secrets Manager ARN; ECS resolves it at task start. */
    ssm?: Input<Record<string, Input<string>>>
    link?: Input<Linkable[]>
    permissions?: Input<Permission[]>
    /** The container health check ECS runs (docker HEALTHCHECK). */
    health?: Input<{
      command: Input<string[]>
      startPeriod?: Input<Duration>
      timeout?: Input<Duration>
      interval?: Input<Duration>
      retries?: Input<number>
    }>
    loadBalancer?: Input<{
      public?: Input<boolean>
      domain?: Input<string | { name: Input<string> }>
      rules?: Input<{ listen: Input<Port>; forward?: Input<Port>; redirect?: Input<Port> }[]>
      /** Keyed by the forwarded `port/protocol`: the load balancer's target health check. */
      health?: Input<
        Record<
          string,
          Input<{
            path?: Input<string>
            interval?: Input<Duration>
            timeout?: Input<Duration>
            healthyThreshold?: Input<number>
            unhealthyThreshold?: Input<number>
            successCodes?: Input<string>
          }>
        >
      >
    }>
    scaling?: Input<{ min?: Input<number>; max?: Input<number> }>
    logging?: Input<{ retention?: Input<string> }>
    dev?: false | { command?: Input<string> }
    transform?: { executionRole?: Transform<Record<string, unknown>>; taskRole?: Transform<Record<string, unknown>> }
  }
  class Service {
    constructor(name: string, args: ServiceArgs)
    /** The load balancer URL (or custom domain). */
    readonly url: Output<string>
    readonly nodes: { loadBalancer: { arn: Output<string>; arnSuffix: Output<string> } }
  }

  /** A CloudFront distribution routing paths of one origin to URLs and sites. */
  class Router {
    constructor(name: string, args?: Record<string, never>)
    readonly url: Output<string>
    /** Routes requests whose path starts with `path` to `url`, the path unchanged. */
    route(path: string, url: Input<string>): void
  }
  type StaticSiteArgs = {
    /** The directory the build runs in. */
    path?: Input<string>
    build?: Input<{ command: Input<string>; output: Input<string> }>
    /** Given to the build command's environment. */
    environment?: Input<Record<string, Input<string>>>
    /** Serves the site at the router's `/` instead of a distribution of its own. */
    router?: Input<{ instance: Router; path?: Input<string> }>
  }
  class StaticSite {
    constructor(name: string, args?: StaticSiteArgs)
    readonly url: Output<string>
  }

  class Secret {
    constructor(name: string, placeholder?: string)
    readonly name: Output<string>
    readonly value: Output<string>
  }
  class Linkable<T extends Record<string, unknown> = Record<string, unknown>> {
    constructor(name: string, definition: { properties: T; include?: PermissionInclude[] })
  }
}

declare namespace PulumiAws {
  type Input<T> = Sst.Input<T>
  type Output<T> = Sst.Output<T>

  namespace kms {
    type KeyArgs = {
      description?: Input<string>
      keyUsage?: Input<'ENCRYPT_DECRYPT' | 'SIGN_VERIFY' | 'GENERATE_VERIFY_MAC'>
      customerMasterKeySpec?: Input<string>
      deletionWindowInDays?: Input<number>
      enableKeyRotation?: Input<boolean>
      isEnabled?: Input<boolean>
      policy?: Input<string>
      tags?: Input<Record<string, Input<string>>>
    }
    class Key {
      constructor(name: string, args: KeyArgs)
      readonly arn: Output<string>
      readonly keyId: Output<string>
    }
    class Alias {
      constructor(name: string, args: { name: Input<string>; targetKeyId: Input<string> })
      readonly arn: Output<string>
      readonly name: Output<string>
    }
  }
  namespace ssm {
    class Parameter {
      constructor(
        name: string,
        args: {
          name?: Input<string>
          type: Input<'String' | 'StringList' | 'SecureString'>
          value: Input<string>
          description?: Input<string>
          tags?: Input<Record<string, Input<string>>>
        },
      )
      readonly arn: Output<string>
      readonly name: Output<string>
    }
  }
  namespace lambda {
    class FunctionEventInvokeConfig {
      constructor(
        name: string,
        args: { functionName: Input<string>; maximumRetryAttempts?: Input<number>; maximumEventAgeInSeconds?: Input<number> },
      )
    }
  }
  namespace sns {
    class Topic {
      constructor(name: string, args?: { displayName?: Input<string>; tags?: Input<Record<string, Input<string>>> })
      readonly arn: Output<string>
    }
    class TopicSubscription {
      constructor(name: string, args: { topic: Input<string>; protocol: Input<string>; endpoint: Input<string> })
    }
  }
  namespace cloudwatch {
    type MetricAlarmArgs = {
      name?: Input<string>
      alarmDescription?: Input<string>
      namespace: Input<string>
      metricName: Input<string>
      dimensions?: Input<Record<string, Input<string>>>
      statistic: Input<'SampleCount' | 'Average' | 'Sum' | 'Minimum' | 'Maximum'>
      period: Input<number>
      evaluationPeriods: Input<number>
      datapointsToAlarm?: Input<number>
      threshold: Input<number>
      comparisonOperator: Input<
        'GreaterThanOrEqualToThreshold' | 'GreaterThanThreshold' | 'LessThanThreshold' | 'LessThanOrEqualToThreshold'
      >
      treatMissingData?: Input<'missing' | 'ignore' | 'breaching' | 'notBreaching'>
      alarmActions?: Input<Input<string>[]>
      okActions?: Input<Input<string>[]>
      tags?: Input<Record<string, Input<string>>>
    }
    class MetricAlarm {
      constructor(name: string, args: MetricAlarmArgs)
      readonly arn: Output<string>
    }
  }
}

declare const $config: (input: Sst.Config) => Sst.Config
declare const $app: Readonly<{ name: string; stage: string }>
declare const $dev: boolean
declare function $interpolate(literals: TemplateStringsArray, ...placeholders: unknown[]): Sst.Output<string>
declare function $jsonStringify(
  value: unknown,
  replacer?: (key: string, value: unknown) => unknown,
  space?: string | number,
): Sst.Output<string>
/** pulumi.all: waits for every value, then `.apply` sees them plain. */
declare function $resolve<const T extends readonly unknown[]>(
  values: T,
): Sst.Output<{ -readonly [K in keyof T]: T[K] extends Sst.Output<infer U> ? U : Awaited<T[K]> }>

declare const sst: {
  Secret: typeof Sst.Secret
  Linkable: typeof Sst.Linkable
  aws: {
    Function: typeof Sst.Function
    Cron: typeof Sst.Cron
    Queue: typeof Sst.Queue
    Dynamo: typeof Sst.Dynamo
    Vpc: typeof Sst.Vpc
    Postgres: typeof Sst.Postgres
    Cluster: typeof Sst.Cluster
    Service: typeof Sst.Service
    Router: typeof Sst.Router
    StaticSite: typeof Sst.StaticSite
    permission(args: Sst.Permission): Sst.PermissionInclude
  }
}

declare const aws: {
  kms: { Key: typeof PulumiAws.kms.Key; Alias: typeof PulumiAws.kms.Alias }
  ssm: { Parameter: typeof PulumiAws.ssm.Parameter }
  lambda: { FunctionEventInvokeConfig: typeof PulumiAws.lambda.FunctionEventInvokeConfig }
  sns: { Topic: typeof PulumiAws.sns.Topic; TopicSubscription: typeof PulumiAws.sns.TopicSubscription }
  cloudwatch: { MetricAlarm: typeof PulumiAws.cloudwatch.MetricAlarm }
}
