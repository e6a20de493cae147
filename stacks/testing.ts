// Recording stand-ins for SST's platform globals ($config, $app, sst, aws, $interpolate, ...), so a
// test can run sst.config.ts's run() without the sst CLI (which downloads Pulumi). Every component
// constructor records (type, name, args); outputs are placeholder strings such as `{{Tick.arn}}`, and
// secret-bearing outputs are `{{secret:RpcUrl.value}}` so a leak into plain configuration is visible.
// Link semantics mirror SST's getSSTLink() for the components used here (what a link grants and
// what it carries), because least privilege depends on them.

export type Condition = { test: string; variable: string; values: string[] }
export type Statement = { actions: string[]; resources: string[]; effect?: string; conditions?: Condition[] }
export type LinkDefinition = { properties: Record<string, unknown>; include: Statement[] }
export type Recorded = { type: string; name: string; args: Record<string, any>; resource: object }

export const SECRET_MARKER = '{{secret:'
const ref = (name: string, prop: string) => `{{${name}.${prop}}}`
const secretRef = (name: string, prop: string) => `${SECRET_MARKER}${name}.${prop}}}`

export type StandIns = {
  resources: Recorded[]
  byType(type: string): Recorded[]
  one(type: string, name: string): Recorded
  /** What linking this resource carries and grants, as SST defines it; undefined if not linkable. */
  linkOf(resource: unknown): LinkDefinition | undefined
  uninstall(): void
}

const GLOBALS = ['$config', '$app', '$dev', '$interpolate', '$jsonStringify', '$resolve', 'sst', 'aws'] as const

export function installStandIns(options: { stage: string; appName?: string }): StandIns {
  const resources: Recorded[] = []
  const links = new WeakMap<object, LinkDefinition>()

  type Shape = {
    outputs?: (name: string, args: Record<string, any>) => Record<string, unknown>
    link?: (name: string, args: Record<string, any>, self: Record<string, any>) => LinkDefinition
  }
  const component = (type: string, shape: Shape = {}) =>
    class {
      constructor(name: string, args: Record<string, any> = {}) {
        // Pulumi refuses two resources of one type with the same name (URN clash).
        if (resources.some((r) => r.type === type && r.name === name)) throw new Error(`duplicate ${type} named ${name}`)
        Object.defineProperties(this, Object.getOwnPropertyDescriptors(shape.outputs?.(name, args) ?? {}))
        if (shape.link) links.set(this, shape.link(name, args, this as Record<string, any>))
        resources.push({ type, name, args, resource: this })
      }
    }

  const arnName = (name: string) => ({ arn: ref(name, 'arn'), name: ref(name, 'name') })
  const sstGlobal = {
    Secret: component('sst:sst:Secret', {
      outputs: (name) => ({ name, value: secretRef(name, 'value') }),
      link: (_n, _a, self) => ({ properties: { value: self.value }, include: [] }),
    }),
    Linkable: component('sst:sst:Linkable', {
      outputs: (name, args) => ({ name, properties: args.properties }),
      link: (_n, args) => ({
        properties: args.properties,
        include: (args.include ?? []).filter((i: { type?: string }) => i.type === 'aws.permission'),
      }),
    }),
    aws: {
      permission: (args: Statement) => ({ type: 'aws.permission', ...args }),
      Function: component('sst:aws:Function', {
        outputs: (name, args) => ({
          ...arnName(name),
          get url() {
            if (!args.url) throw new Error(`Function ${name} has no url`)
            return ref(name, 'url')
          },
        }),
        link: (name, args) => ({
          properties: { name: ref(name, 'name'), ...(args.url ? { url: ref(name, 'url') } : {}) },
          include: [{ actions: ['lambda:InvokeFunction'], resources: [ref(name, 'arn')] }],
        }),
      }),
      Cron: component('sst:aws:Cron'),
      // subscribe() records the subscription (SST's QueueLambdaSubscriber: an event source mapping).
      Queue: (() => {
        const Base = component('sst:aws:Queue', {
          outputs: (name) => ({ ...arnName(name), url: ref(name, 'url') }),
          link: (name) => ({ properties: { url: ref(name, 'url') }, include: [{ actions: ['sqs:*'], resources: [ref(name, 'arn')] }] }),
        })
        const Subscriber = component('sst:aws:QueueLambdaSubscriber')
        return class extends Base {
          #subscribed = false
          #name: string
          constructor(name: string, args: Record<string, any> = {}) {
            super(name, args)
            this.#name = name
          }
          subscribe(subscriber: unknown, args: Record<string, any> = {}) {
            if (this.#subscribed) throw new Error(`Cannot subscribe to the "${this.#name}" queue multiple times`)
            this.#subscribed = true
            return new Subscriber(`${this.#name}Subscriber`, { queue: { arn: ref(this.#name, 'arn') }, subscriber, ...args })
          }
        }
      })(),
      // SST's Dynamo link grants dynamodb:* on the table and its indexes.
      Dynamo: component('sst:aws:Dynamo', {
        outputs: arnName,
        link: (name) => ({
          properties: { name: ref(name, 'name') },
          include: [{ actions: ['dynamodb:*'], resources: [ref(name, 'arn'), `${ref(name, 'arn')}/*`] }],
        }),
      }),
      Vpc: component('sst:aws:Vpc', {
        outputs: (name) => ({
          id: ref(name, 'id'),
          publicSubnets: [ref(name, 'publicSubnet')],
          privateSubnets: [ref(name, 'privateSubnet')],
          securityGroups: [ref(name, 'securityGroup')],
        }),
      }),
      // Postgres' link carries the password in clear: never link it to a container.
      Postgres: component('sst:aws:Postgres', {
        outputs: (name) => ({
          host: ref(name, 'host'),
          port: ref(name, 'port'),
          username: ref(name, 'username'),
          password: secretRef(name, 'password'),
          database: ref(name, 'database'),
        }),
        link: (_n, _a, self) => ({
          properties: { host: self.host, port: self.port, username: self.username, password: self.password, database: self.database },
          include: [],
        }),
      }),
      // route() records each path and its origin on the router's own record (args.routes).
      Router: (() => {
        const Base = component('sst:aws:Router', { outputs: (name) => ({ url: ref(name, 'url') }) })
        return class extends Base {
          route(path: string, url: unknown, args: Record<string, unknown> = {}) {
            const self = resources.find((r) => r.resource === this)!
            self.args.routes = [...(self.args.routes ?? []), { path, url, ...args }]
          }
        }
      })(),
      StaticSite: component('sst:aws:StaticSite', { outputs: (name) => ({ url: ref(name, 'url') }) }),
      Cluster: component('sst:aws:Cluster', { outputs: (name) => ({ nodes: { cluster: arnName(name) } }) }),
      Service: component('sst:aws:Service', {
        outputs: (name) => ({
          url: ref(name, 'url'),
          service: ref(name, 'service'),
          nodes: { loadBalancer: { arn: ref(name, 'loadBalancer.arn'), arnSuffix: ref(name, 'loadBalancer.arnSuffix') } },
        }),
        link: (name) => ({ properties: { url: ref(name, 'url'), service: ref(name, 'service') }, include: [] }),
      }),
    },
  }
  const awsGlobal = {
    kms: {
      Key: component('aws:kms/key:Key', { outputs: (name) => ({ arn: ref(name, 'arn'), keyId: ref(name, 'keyId') }) }),
      Alias: component('aws:kms/alias:Alias', { outputs: (name, args) => ({ arn: ref(name, 'arn'), name: args.name }) }),
    },
    ssm: { Parameter: component('aws:ssm/parameter:Parameter', { outputs: arnName }) },
    lambda: { FunctionEventInvokeConfig: component('aws:lambda/functionEventInvokeConfig:FunctionEventInvokeConfig') },
    sns: {
      Topic: component('aws:sns/topic:Topic', { outputs: (name) => ({ arn: ref(name, 'arn') }) }),
      TopicSubscription: component('aws:sns/topicSubscription:TopicSubscription'),
    },
    cloudwatch: { MetricAlarm: component('aws:cloudwatch/metricAlarm:MetricAlarm', { outputs: (name) => ({ arn: ref(name, 'arn') }) }) },
  }

  const g = globalThis as Record<string, unknown>
  const saved = new Map(GLOBALS.map((key) => [key, g[key]]))
  Object.assign(g, {
    $config: (config: unknown) => config,
    $app: { name: options.appName ?? 'bardo-custody', stage: options.stage },
    $dev: false,
    $interpolate: (literals: TemplateStringsArray, ...values: unknown[]) =>
      literals.reduce((out, s, i) => out + s + (i < values.length ? String(values[i]) : ''), ''),
    $jsonStringify: (value: unknown, replacer?: (k: string, v: unknown) => unknown, space?: string | number) =>
      JSON.stringify(value, replacer, space),
    // Outputs are plain values here, so "after deploy" is now.
    $resolve: (values: unknown[]) => ({ apply: (fn: (v: unknown[]) => unknown) => fn(values) }),
    sst: sstGlobal,
    aws: awsGlobal,
  })

  return {
    resources,
    byType: (type) => resources.filter((r) => r.type === type),
    one(type, name) {
      const found = resources.find((r) => r.type === type && r.name === name)
      if (!found) throw new Error(`no ${type} named ${name} was created`)
      return found
    },
    linkOf: (resource) => (typeof resource === 'object' && resource !== null ? links.get(resource) : undefined),
    uninstall() {
      for (const [key, value] of saved) {
        if (value === undefined) delete g[key]
        else g[key] = value
      }
    },
  }
}

/** A function's IAM statements: its `permissions` plus what each linked resource grants. */
export function effectiveStatements(standIns: StandIns, fn: Recorded): Statement[] {
  const own = ((fn.args.permissions ?? []) as Statement[]).map((s) => ({ ...s, resources: [...s.resources].map(String) }))
  const linked = ((fn.args.link ?? []) as unknown[]).flatMap((resource) => {
    const link = standIns.linkOf(resource)
    if (!link) throw new Error(`${fn.name} links something that is not linkable`)
    return link.include
  })
  return [...own, ...linked]
}

/** Every string inside `value` (objects, arrays), with its path. */
export function strings(value: unknown, path = ''): { path: string; value: string }[] {
  if (typeof value === 'string') return [{ path, value }]
  if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, `${path}[${i}]`))
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([k, v]) => strings(v, path ? `${path}.${k}` : k))
  return []
}

/** Why a plain configuration string must not be there, or undefined when it is harmless. */
export function secretLeak(value: string): string | undefined {
  if (value.includes(SECRET_MARKER)) return 'carries a secret output'
  if (/(^|[^0-9a-fA-F])(0x)?[0-9a-fA-F]{64}([^0-9a-fA-F]|$)/.test(value)) return 'looks like a private key'
  if (/[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:[^/\s@]+@/i.test(value)) return 'is a URL with credentials'
  if (/\b(alchemy\.com\/v2|infura\.io\/v3|quiknode\.pro)\/[A-Za-z0-9_-]{8,}/.test(value)) return 'is an RPC URL with an API key'
  if (/^(\w+\s+){11,23}\w+$/.test(value.trim()) && value.trim().split(/\s+/).length >= 12) return 'looks like a mnemonic'
  return undefined
}

/** The request a policy simulation asks about: one action on one resource, with its condition context. */
export type SimulatedRequest = { action: string; resource: string; context: Record<string, string | string[]> }

const glob = (pattern: string, value: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  ).test(value)

/** `${aws:PrincipalAccount}` and the like, from the request's context (IAM policy variables). */
const substitute = (value: string, context: SimulatedRequest['context']) =>
  value.replace(/\$\{([^}]+)\}/g, (_m, key: string) => {
    const v = context[key]
    return typeof v === 'string' ? v : `\u0000unresolved:${key}`
  })

/** One IAM condition against the context, for the operators the stacks write; any other one throws. */
function conditionHolds(condition: Condition, context: SimulatedRequest['context']): boolean {
  const raw = context[condition.variable]
  const present = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]
  const values = condition.values.map((v) => substitute(v, context))
  switch (condition.test) {
    case 'StringEquals':
      return present.length > 0 && present.some((p) => values.includes(p))
    case 'StringLike':
      return present.length > 0 && present.some((p) => values.some((v) => glob(v, p)))
    // Every value in the request is allowed; vacuously true when the request has none (as IAM has it).
    case 'ForAllValues:StringEquals':
      return present.every((p) => values.includes(p))
    case 'ForAnyValue:StringEquals':
      return present.some((p) => values.includes(p))
    case 'Null':
      return values.includes(String(raw === undefined))
    default:
      throw new Error(`the simulation does not know the condition operator ${condition.test}`)
  }
}

/**
 * A small IAM evaluator over recorded statements: an explicit deny wins, then any allow whose action,
 * resource and every condition match; otherwise the implicit deny.
 */
export function simulate(statements: Statement[], request: SimulatedRequest): 'allow' | 'deny' {
  const matches = (st: Statement) =>
    st.actions.some((a) => glob(a, request.action)) &&
    st.resources.some((r) => glob(substitute(r, request.context), request.resource)) &&
    (st.conditions ?? []).every((c) => conditionHolds(c, request.context))
  const matching = statements.filter(matches)
  if (matching.some((st) => st.effect === 'deny')) return 'deny'
  return matching.length > 0 ? 'allow' : 'deny'
}
