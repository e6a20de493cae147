// /v1/council-executions: the named councils' user operations as the chain ran them, newest first, for
// the dashboard (which marks the proposals the indexer has seen) and anyone auditing a council.
import { db } from 'ponder:api'
import { councilExecution } from 'ponder:schema'
import { Hono } from 'hono'
import { and, desc, eq } from 'ponder'
import { BadParam, errorResponse, hashParam, json, limitParam, optionalAddress } from './params.ts'

export const councilRoutes = new Hono()

councilRoutes.onError((error, c) => errorResponse(c, error))

function proposalIdParam(value: string | undefined): `0x${string}` | undefined {
  if (value === undefined) return undefined
  if (!/^0x[0-9a-fA-F]{32}$/.test(value)) throw new BadParam('proposalId', 'must be 0x and 16 bytes of hex (a council proposal id)')
  return value.toLowerCase() as `0x${string}`
}

councilRoutes.get('/council-executions', async (c) => {
  const council = optionalAddress(c.req.query('council'), 'council')
  const proposalId = proposalIdParam(c.req.query('proposalId'))
  const limit = limitParam(c.req.query('limit'), 100, 500)
  const filters = [
    ...(council === undefined ? [] : [eq(councilExecution.council, council)]),
    ...(proposalId === undefined ? [] : [eq(councilExecution.proposalId, proposalId)]),
  ]
  const rows = await db
    .select()
    .from(councilExecution)
    .where(filters.length === 0 ? undefined : and(...filters))
    .orderBy(desc(councilExecution.blockNumber), desc(councilExecution.logIndex))
    .limit(limit)
  return json(c, { items: rows })
})

councilRoutes.get('/council-executions/:userOpHash', async (c) => {
  const userOpHash = hashParam(c.req.param('userOpHash'), 'userOpHash')
  const row = (await db.select().from(councilExecution).where(eq(councilExecution.userOpHash, userOpHash)))[0]
  if (row === undefined)
    return c.json({ code: 'COUNCIL_EXECUTION_NOT_FOUND', message: `userOpHash: no council execution ${userOpHash} indexed` }, 404)
  return json(c, row)
})
