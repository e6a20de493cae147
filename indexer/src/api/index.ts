// The indexer's read API: GraphQL (/graphql, GraphiQL on GET), SQL over HTTP (/sql/*, for
// @ponder/client) and the /v1 routes the Bardo HTTP API reads (phase history, redemptions, spend).
import { db } from 'ponder:api'
import schema from 'ponder:schema'
import { Hono } from 'hono'
import { client, graphql } from 'ponder'
import { councilRoutes } from './council.ts'
import { routes } from './routes.ts'

const app = new Hono()

app.use('/graphql', graphql({ db, schema }))
app.use('/sql/*', client({ db, schema }))
app.route('/v1', routes)
app.route('/v1', councilRoutes)

export default app
