// The action route's request schema, without a chain: a signed removeLiquidity request reaches the action
// path with its amounts as bigints, and a bad one is answered 400 VALIDATION_FAILED naming the field and
// the rule, before the action path is asked anything.
import { Hono } from 'hono'
import { getAddress, type Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { beforeAll, describe, expect, it } from 'vitest'
import { InMemoryStore } from '../../adapters/store/index.ts'
import type { ExecuteActionInput } from '../../app/actions/executeAction.ts'
import { postActionRequest } from '../../client/httpTransport.ts'
import { encodeActionCall, type ActionRequest } from '../../core/actions/index.ts'
import { actionRoutes } from './routes/actions.ts'

const CHAIN_ID = 31_337
const OWNER: Address = getAddress('0x00000000000000000000000000000000000A11CE')
const MANAGER: Address = getAddress('0x0000000000000000000000000000000000000b0b')
const account = privateKeyToAccount(generatePrivateKey())
const asked: ExecuteActionInput[] = []
let app: Hono
let documented: unknown
let seq = 0

/** Sends a signed request whose actions are taken as the body has them (strings, numbers, anything). */
const send = (actions: unknown[]) =>
  postActionRequest(
    {
      baseUrl: 'http://custody.local',
      account,
      chainId: CHAIN_ID,
      fetch: ((url: string, init: RequestInit) => app.request(url, init)) as typeof fetch,
    },
    { golemId: 'lp', requestId: `rm-${++seq}`, actions: actions as ActionRequest[] },
  )
const removal = (patch: Record<string, unknown> = {}) => ({
  kind: 'removeLiquidity',
  positionManager: MANAGER,
  tokenId: '7',
  liquidity: '1000',
  ...patch,
})

beforeAll(async () => {
  const store = new InMemoryStore()
  await store.createGolem({
    golemId: 'lp',
    owner: OWNER,
    sessionKeyAddress: account.address,
    custodyMode: 'Delegation',
    nextTickAt: 0,
    now: 0,
  })
  const router = actionRoutes({
    store,
    chainId: CHAIN_ID,
    // The action path's own encoding (field-named errors) without its chain: a request it accepts answers pending.
    execute: async (input) => {
      for (const [i, a] of input.actions.entries()) encodeActionCall(a as ActionRequest, OWNER, `actions[${i}]`)
      asked.push(input)
      return { status: 'pending', requestId: input.requestId, reason: 'not sent (test)' }
    },
  })
  documented = router.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'actions', version: '0' } })
  app = new Hono()
  app.route('/', router)
})

describe('removeLiquidity in the action request', () => {
  it('reaches the action path with the position, the liquidity and the minimums as bigints', async () => {
    const answer = await send([removal({ amount0Min: '5', amount1Min: '6', deadline: '1800000000' })])
    expect(answer.httpStatus).toBe(202)
    expect(asked.at(-1)!.actions).toEqual([
      {
        kind: 'removeLiquidity',
        positionManager: MANAGER,
        tokenId: 7n,
        liquidity: 1_000n,
        amount0Min: 5n,
        amount1Min: 6n,
        deadline: 1_800_000_000n,
      },
    ])
  })

  it('is documented in the OpenAPI request body, with its fields', () => {
    type Variant = { properties: { kind: { const?: string; enum?: string[] } }; required: string[] }
    const doc = documented as {
      paths: Record<
        string,
        {
          post: {
            requestBody: {
              content: { 'application/json': { schema: { properties: { actions: { items: { oneOf?: Variant[]; anyOf?: Variant[] } } } } } }
            }
          }
        }
      >
    }
    const items = doc.paths['/api/v1/golems/{id}/actions']!.post.requestBody.content['application/json'].schema.properties.actions.items
    const variant = (items.oneOf ?? items.anyOf ?? []).find(
      (v) => (v.properties.kind.const ?? v.properties.kind.enum?.[0]) === 'removeLiquidity',
    )
    expect(variant?.required.sort()).toEqual(['kind', 'liquidity', 'positionManager', 'tokenId'])
  })

  it('is a kind the route names when it refuses an unknown one', async () => {
    const answer = await send([{ kind: 'borrow' }])
    expect(answer.httpStatus).toBe(400)
    expect((answer.body.details as { kinds: string[] }).kinds).toContain('removeLiquidity')
  })

  it.each([
    ['a tokenId that is not a decimal integer', { tokenId: '0x07' }, 'body.actions.0.tokenId: must be a decimal integer string'],
    ['a tokenId given as a number', { tokenId: 7 }, 'body.actions.0.tokenId: '],
    ['a negative liquidity', { liquidity: '-1' }, 'body.actions.0.liquidity: must be a decimal integer string'],
    ['no liquidity', { liquidity: undefined }, 'body.actions.0.liquidity: '],
    [
      'a positionManager that is not an address',
      { positionManager: '0x1234' },
      'body.actions.0.positionManager: must be a 20-byte 0x address',
    ],
    ['an amount0Min past uint256', { amount0Min: '1'.repeat(79) }, 'body.actions.0.amount0Min: must be a decimal integer string'],
  ])('refuses %s, naming the field, and asks the action path nothing', async (_name, patch, message) => {
    const before = asked.length
    const answer = await send([removal(patch)])
    expect(answer.httpStatus).toBe(400)
    expect(answer.body).toMatchObject({ code: 'VALIDATION_FAILED' })
    expect(answer.body.message).toContain(message)
    expect(asked.length).toBe(before)
  })

  it.each([
    ['no liquidity to remove', { liquidity: '0' }, 'actions[0].liquidity', 'actions[0].liquidity must be positive'],
    ['liquidity past uint128', { liquidity: (2n ** 128n).toString() }, 'actions[0].liquidity', 'actions[0].liquidity must be a uint128'],
    ['a tokenId past uint256', { tokenId: (2n ** 256n).toString() }, 'actions[0].tokenId', 'actions[0].tokenId must be a uint256 bigint'],
  ])('refuses %s as the action path does, naming the field', async (_name, patch, field, message) => {
    const before = asked.length
    const answer = await send([removal(patch)])
    expect(answer.httpStatus).toBe(400)
    expect(answer.body).toMatchObject({ code: 'VALIDATION_FAILED', message, details: { field } })
    expect(asked.length).toBe(before)
  })
})
