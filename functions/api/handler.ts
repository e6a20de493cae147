// AWS Lambda entry: the same Hono app, wrapped by hono/aws-lambda (API Gateway v1/v2, function URLs, ALB).
import { handle } from 'hono/aws-lambda'
import { createApp } from './app.ts'
import { loadApiConfig } from './config.ts'
import type { ApiConfig, ApiDeps } from './deps.ts'

export type ApiServices = Omit<ApiDeps, 'config'>

/** The Lambda handler for an app built from `services` and a config read from `env`. */
export function createApiHandler(services: ApiServices, env: Record<string, string | undefined> = process.env) {
  const config: ApiConfig = loadApiConfig(env)
  return handle(createApp({ ...services, config }))
}
