// AWS Lambda entry: the same Hono app, wrapped by hono/aws-lambda (API Gateway v1/v2, function URLs,
// ALB). `handler` builds the app on its first invocation from the deployed configuration (deployed.ts):
// importing this module reads no configuration, so tests and bundlers can load it anywhere.
import { handle, type LambdaContext, type LambdaEvent } from 'hono/aws-lambda'
import { createApp } from './app.ts'
import { loadApiConfig } from './config.ts'
import { loadDeployedWiring } from './deployed.ts'
import type { ApiConfig, ApiDeps } from './deps.ts'
import { createApiDeps, type ApiWiring } from './wiring.ts'

export type ApiServices = Omit<ApiDeps, 'config'>

type LambdaHandler = ReturnType<typeof handle>

/** The Lambda handler for an app built from `services` and a config read from `env`. */
export function createApiHandler(services: ApiServices, env: Record<string, string | undefined> = process.env): LambdaHandler {
  const config: ApiConfig = loadApiConfig(env)
  return handle(createApp({ ...services, config, eventStream: BUFFERED_EVENT_STREAM }))
}

/**
 * A buffered Lambda answer cannot stream: the custody event stream answers once with what is new, and
 * the client (an EventSource) reconnects with Last-Event-ID, polling in effect.
 */
const BUFFERED_EVENT_STREAM = { pollMs: 0, maxSeconds: 0, batch: 100 }

/**
 * A handler that builds its app on the first invocation, once per cold start; concurrent first
 * invocations share the build, and a failed build is retried by the next invocation (a transient RPC
 * error at cold start must not poison the instance).
 */
export function createLazyApiHandler(load: () => Promise<ApiWiring>): LambdaHandler {
  let built: Promise<LambdaHandler> | undefined
  return (async (event: LambdaEvent, context?: LambdaContext) => {
    const current = (built ??= load().then((wiring) => handle(createApp({ ...createApiDeps(wiring), eventStream: BUFFERED_EVENT_STREAM }))))
    let h: LambdaHandler
    try {
      h = await current
    } catch (error) {
      if (built === current) built = undefined
      throw error
    }
    return h(event, context)
  }) as LambdaHandler
}

/** The deployed API (stacks/functions.ts: `functions/api/handler.handler`). */
export const handler: LambdaHandler = createLazyApiHandler(() => loadDeployedWiring())
