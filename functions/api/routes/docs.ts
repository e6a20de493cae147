// GET /openapi.json (the document, generated from the routes the app mounts) and GET /docs, Swagger UI
// over that document. The page's script and stylesheet are served here from the installed
// swagger-ui-dist, never from a CDN, so the page works wherever the API answers, offline included.
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi'
import { SwaggerUI } from '@hono/swagger-ui'
import type { ApiEnv } from '../env.ts'
import { ApiError } from '../errors.ts'
import { answered, apiRouter, errors, OPENAPI_INFO, security } from '../openapi.ts'

export const DOCS_PATH = '/docs'

/** The swagger-ui-dist files the page loads (@hono/swagger-ui names them under `<baseUrl>/swagger-ui-dist/`). */
const ASSETS = { 'swagger-ui-bundle.js': 'text/javascript; charset=utf-8', 'swagger-ui.css': 'text/css; charset=utf-8' } as const
type Asset = keyof typeof ASSETS

const openApiRoute = createRoute({
  method: 'get',
  path: '/openapi.json',
  operationId: 'getOpenApi',
  summary: 'This document',
  tags: ['meta'],
  security: security('tier'),
  responses: { 200: answered('OpenAPI 3.1 document'), ...errors() },
})

const docsRoute = createRoute({
  method: 'get',
  path: DOCS_PATH,
  operationId: 'getDocs',
  summary: 'This document as a page to read and try the routes in (Swagger UI)',
  tags: ['meta'],
  security: security('tier'),
  responses: { 200: answered('an HTML page'), ...errors() },
})

const assetRoute = createRoute({
  method: 'get',
  path: `${DOCS_PATH}/swagger-ui-dist/{file}`,
  operationId: 'getDocsAsset',
  summary: "The docs page's script and stylesheet (swagger-ui-dist, as installed with the API)",
  tags: ['meta'],
  security: security('tier'),
  request: { params: z.object({ file: z.enum(Object.keys(ASSETS) as [Asset, ...Asset[]]) }) },
  responses: {
    200: answered('the file'),
    ...errors({ 501: 'NOT_IMPLEMENTED: swagger-ui-dist is not installed beside the API' }),
  },
})

// No online validator: the page makes no request beyond this API.
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${OPENAPI_INFO.title}</title>
<link rel="icon" href="data:,">
</head>
<body>
${SwaggerUI({ url: '/openapi.json', baseUrl: DOCS_PATH, validatorUrl: 'none' })}
</body>
</html>
`

const installed = createRequire(import.meta.url)
const assets = new Map<Asset, Promise<string>>()

/** An asset from the installed package, read once (a failed read is not kept). */
function asset(file: Asset): Promise<string> {
  let text = assets.get(file)
  if (!text) {
    text = Promise.resolve()
      .then(() => readFile(installed.resolve(`swagger-ui-dist/${file}`), 'utf8'))
      .catch(() => {
        assets.delete(file)
        throw new ApiError('NOT_IMPLEMENTED', `docs: swagger-ui-dist/${file} is not installed beside the API`)
      })
    assets.set(file, text)
  }
  return text
}

/** The meta routes of `app`, whose document covers every route mounted on it when first asked for. */
export function docsRoutes(app: OpenAPIHono<ApiEnv>, version: string) {
  let document: unknown
  return apiRouter()
    .openapi(openApiRoute, (c) => c.json((document ??= app.getOpenAPI31Document({ openapi: '3.1.0', info: { ...OPENAPI_INFO, version } }))))
    .openapi(docsRoute, (c) => c.html(PAGE))
    .openapi(assetRoute, async (c) => {
      const { file } = c.req.valid('param')
      return c.body(await asset(file), 200, { 'content-type': ASSETS[file], 'cache-control': 'public, max-age=3600' })
    })
}
