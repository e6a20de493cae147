// The OpenAPI 3.1 document, generated from the same zod schemas that validate requests
// (zod v4's toJSONSchema; @hono/zod-openapi needs zod ^4 as its peer, this package pins zod 3.25).
import { z } from 'zod/v4'
import { errorSchema } from './schemas.ts'

export type Security = 'none' | 'tier' | 'reader' | 'clade' | 'snap' | 'x402' | 'alchemy'

export type RouteDoc = {
  method: 'get' | 'post'
  /** Hono style (`/api/v1/golems/:id/phases`). */
  path: string
  operationId: string
  summary: string
  tags: string[]
  security: Security
  request?: { params?: z.ZodObject; query?: z.ZodObject; headers?: z.ZodObject; body?: z.ZodType }
  /** Success responses; the error responses every route can give are added by the builder. */
  responses: Record<number, { description: string; schema?: z.ZodType; headers?: Record<string, string> }>
  /** Error codes this route adds to the common ones, by status. */
  errors?: Record<number, string>
}

/** Collects route docs while the app registers routes, so a route cannot exist without its doc. */
export class RouteDocs {
  readonly routes: RouteDoc[] = []
  add(doc: RouteDoc): RouteDoc {
    this.routes.push(doc)
    return doc
  }
}

type JsonSchema = Record<string, unknown>

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', reused: 'inline' }) as JsonSchema
  return rest
}

function parameters(where: 'path' | 'query' | 'header', schema: z.ZodObject | undefined): JsonSchema[] {
  if (!schema) return []
  const object = jsonSchema(schema, 'input')
  const properties = (object.properties ?? {}) as Record<string, JsonSchema>
  const required = new Set((object.required ?? []) as string[])
  return Object.entries(properties).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || required.has(name),
    ...(typeof s.description === 'string' ? { description: s.description } : {}),
    schema: s,
  }))
}

const rateLimitHeaders = {
  'X-RateLimit-Limit': { description: 'requests allowed in the current 60 s window', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'requests left in the window', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'unix seconds when the window resets', schema: { type: 'integer' } },
}

const commonErrors: Record<number, string> = {
  400: 'VALIDATION_FAILED: a parameter, header or body field broke a rule (the message names both)',
  429: 'RATE_LIMITED: the tier limit of this window is used up; see Retry-After',
  500: 'INTERNAL_ERROR',
}

const securityOf: Record<Security, JsonSchema[]> = {
  none: [],
  tier: [{}, { readKey: [] }, { bearer: [] }],
  /** The tier's credentials without its anonymous entry: a read key or an owner token. */
  reader: [{ readKey: [] }, { bearer: [] }],
  clade: [{ cladeChallenge: [] }, { cladeToken: [] }],
  snap: [{ snapToken: [] }],
  x402: [{ x402: [] }],
  alchemy: [{ alchemySignature: [] }],
}

export function buildOpenApiDocument(routes: readonly RouteDoc[], info: { title: string; version: string }): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {}
  for (const r of routes) {
    const path = r.path.replace(/:(\w+)/g, '{$1}')
    const responses: Record<string, JsonSchema> = {}
    for (const [status, res] of Object.entries(r.responses)) {
      const headers: Record<string, unknown> = { ...rateLimitHeaders }
      for (const [name, description] of Object.entries(res.headers ?? {})) headers[name] = { description, schema: { type: 'string' } }
      responses[status] = {
        description: res.description,
        headers,
        ...(res.schema ? { content: { 'application/json': { schema: jsonSchema(res.schema, 'output') } } } : {}),
      }
    }
    for (const [status, description] of Object.entries({ ...commonErrors, ...r.errors })) {
      const headers: Record<string, unknown> = { ...rateLimitHeaders }
      if (status === '429') headers['Retry-After'] = { description: 'seconds until the window resets', schema: { type: 'integer' } }
      responses[status] = { description, headers, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } }
    }
    const operation: JsonSchema = {
      operationId: r.operationId,
      summary: r.summary,
      tags: r.tags,
      security: securityOf[r.security],
      parameters: [
        ...parameters('path', r.request?.params),
        ...parameters('query', r.request?.query),
        ...parameters('header', r.request?.headers),
      ],
      responses,
    }
    if (r.request?.body)
      operation.requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(r.request.body, 'input') } } }
    ;(paths[path] ??= {})[r.method] = operation
  }
  return {
    openapi: '3.1.0',
    info: { ...info, description: 'Bardo Custody HTTP API. Errors are { code, message, details }; see docs/api.md for the code table.' },
    paths,
    components: {
      schemas: { Error: jsonSchema(errorSchema, 'output') },
      securitySchemes: {
        readKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'bardo_read_* key: 300 requests/min/key' },
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An owner access token (bardo_at_..., from the device-code sign-in: bardo login) or a Portal user token: 1000 requests/min/user',
        },
        snapToken: { type: 'http', scheme: 'bearer', description: 'bardo_snap_* token, rotated on every heartbeat' },
        cladeChallenge: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'CladeChallenge <EIP-712 signature> with X-Clade-Challenge: <challenge JSON>',
        },
        cladeToken: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'CladeToken <session token from X-Clade-Token>' },
        x402: { type: 'apiKey', in: 'header', name: 'PAYMENT-SIGNATURE', description: 'x402 v2 exact payment (EIP-3009)' },
        alchemySignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Alchemy-Signature',
          description: "hex HMAC-SHA256 of the raw body under the Alchemy Notify webhook's signing key",
        },
      },
    },
  }
}
