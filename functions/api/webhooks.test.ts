// The webhook route over the memory store: not configured -> 501; a refused delivery claims nothing and
// runs nothing; one delivery id wakes its Golems once, even when Alchemy's retry races the first try; a
// busy block's delivery over the common body limit is still read.
import { encodeAbiParameters, encodeEventTopics, getAddress, type Address, type Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { DelegationManager } from '@metamask/delegation-abis'
import { InMemoryStore } from '../../adapters/store/index.ts'
import { AlchemySigningKey } from '../../core/webhooks/index.ts'
import type { TickInvoker, TickRequest } from '../../app/heartbeat/handOver.ts'
import { LambdaInvoker } from '../heartbeat/lambdaInvoker.ts'
import { createApp, MAX_BODY_BYTES, MAX_WEBHOOK_BODY_BYTES } from './app.ts'
import { loadAlchemyWebhookWiring } from './deployed.ts'
import { storeCustodyWebhook } from './services/custodyWebhook.ts'
import { testApiDeps } from './testing.ts'

const A = (n: number) => getAddress(`0x${n.toString(16).padStart(40, '0')}`)
const DM = A(0xd1)
const ORACLE = A(0x01)
const OWNER = A(0xaa)
const KEY = A(0xbb)
const signingKey = new AlchemySigningKey('whsec_unit_test_signing_key')
const NOW = Date.parse('2026-11-24T21:00:00Z')

/** A DisabledDelegation as the chain logs it; `terms` bytes of caveat terms make it as large as its delegator likes. */
function disabledLog(delegate: Address, o: { delegator?: Address; index?: number; terms?: number } = {}): Record<string, unknown> {
  const delegator = o.delegator ?? OWNER
  const caveats = o.terms ? [{ enforcer: delegator, terms: `0x${'00'.repeat(o.terms)}` as Hex, args: '0x' as Hex }] : []
  const delegation = { delegate, delegator, authority: `0x${'ff'.repeat(32)}` as Hex, caveats, salt: 1n, signature: '0x' as Hex }
  const input = DelegationManager.find((x) => x.type === 'event' && x.name === 'DisabledDelegation')!.inputs.filter((i) => !i.indexed)
  return {
    index: o.index ?? 0,
    topics: encodeEventTopics({
      abi: DelegationManager,
      eventName: 'DisabledDelegation',
      args: { delegationHash: `0x${'ab'.repeat(32)}`, delegator, delegate },
    }),
    data: encodeAbiParameters(input as never, [delegation] as never),
    account: { address: DM },
    transaction: { hash: `0x${'12'.repeat(32)}` },
  }
}

const delivery = (id: string, delegations: unknown[]) =>
  JSON.stringify({
    webhookId: 'wh_1',
    id,
    createdAt: new Date(NOW).toISOString(),
    type: 'GRAPHQL',
    event: { data: { block: { number: 7, delegations, redemptions: [], oracle: [] } } },
  })

async function setup() {
  const store = new InMemoryStore()
  // No readable profile: the Golem whose key is the disabled delegation's delegate is the one concerned.
  await store.createGolem({ golemId: 'g-1', owner: OWNER, sessionKeyAddress: KEY, custodyMode: 'Delegation', nextTickAt: 0, now: NOW })
  const invoked: TickRequest[] = []
  const invoker: TickInvoker = {
    async invoke(requests) {
      invoked.push(...requests)
    },
  }
  const deps = testApiDeps({ config: { rateLimits: { public: 1000 } } })
  deps.clock.ms = NOW
  const alchemyWebhook = storeCustodyWebhook({ store, invoker, signingKey, contracts: { delegationManager: DM, vitalityOracle: ORACLE } })
  const app = createApp({ ...deps, alchemyWebhook })
  const post = (body: string, signature = signingKey.sign(body)) =>
    app.request('/api/v1/webhooks/alchemy', { method: 'POST', headers: { 'x-alchemy-signature': signature }, body })
  return { invoked, post }
}

describe('POST /api/v1/webhooks/alchemy (memory store)', () => {
  it('answers 501 NOT_IMPLEMENTED where no signing key is configured', async () => {
    const app = createApp(testApiDeps())
    const res = await app.request('/api/v1/webhooks/alchemy', { method: 'POST', body: '{}' })
    expect(res.status).toBe(501)
    expect(await res.json()).toMatchObject({ code: 'NOT_IMPLEMENTED' })
  })

  it('a forged delivery claims nothing: the genuine one with the same id still wakes the Golem', async () => {
    const { invoked, post } = await setup()
    const body = delivery('whevt_1', [disabledLog(KEY)])
    expect((await post(body, new AlchemySigningKey('whsec_not_the_webhooks_key').sign(body))).status).toBe(401)
    expect(invoked).toEqual([])
    const res = await post(body)
    expect(await res.json()).toMatchObject({ duplicate: false, woken: [{ golemId: 'g-1', reasons: ['DisabledDelegation'] }] })
    expect(invoked).toEqual([{ golemId: 'g-1' }])
  })

  it('a delivery and its racing retry wake the Golem once', async () => {
    const { invoked, post } = await setup()
    const body = delivery('whevt_2', [disabledLog(KEY)])
    const answers = await Promise.all([post(body), post(body)])
    const bodies = (await Promise.all(answers.map((r) => r.json()))) as { duplicate: boolean }[]
    expect(bodies.map((b) => b.duplicate).sort()).toEqual([false, true])
    expect(invoked).toEqual([{ golemId: 'g-1' }])
  })

  it("reads a delivery over the common body limit: another watched owner's large logs do not hide the revocation", async () => {
    const { invoked, post } = await setup()
    const other = A(0xee)
    // Another owner's own disables, each with 16 KiB of caveat terms, logged before the revocation.
    const noise = Array.from({ length: 12 }, (_, i) => disabledLog(A(0x500 + i), { delegator: other, index: i, terms: 16 * 1024 }))
    const body = delivery('whevt_busy', [...noise, disabledLog(KEY, { index: 12 })])
    expect(body.length).toBeGreaterThan(MAX_BODY_BYTES)
    expect(body.length).toBeLessThan(MAX_WEBHOOK_BODY_BYTES)
    const res = await post(body)
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ signals: 13, woken: [{ golemId: 'g-1', reasons: ['DisabledDelegation'] }] })
    expect(invoked).toEqual([{ golemId: 'g-1' }])
  })

  it('refuses a body over the webhook limit with 413 naming it, and runs nothing; other routes keep the common limit', async () => {
    const { invoked, post } = await setup()
    const res = await post(delivery('whevt_huge', [disabledLog(KEY, { terms: MAX_WEBHOOK_BODY_BYTES / 2 })]))
    expect(res.status).toBe(413)
    expect(await res.json()).toEqual({
      code: 'PAYLOAD_TOO_LARGE',
      message: `body: must be at most ${MAX_WEBHOOK_BODY_BYTES} bytes`,
      details: { limitBytes: MAX_WEBHOOK_BODY_BYTES },
    })
    expect(invoked).toEqual([])
    // The id was not claimed: the delivery Alchemy sends again is still acted on.
    expect((await (await post(delivery('whevt_huge', [disabledLog(KEY)]))).json()) as object).toMatchObject({ duplicate: false })
    const app = createApp(testApiDeps({ config: { rateLimits: { public: 1000 } } }))
    const elsewhere = await app.request('/api/v1/extend', { method: 'POST', body: 'x'.repeat(MAX_BODY_BYTES + 1) })
    expect(elsewhere.status).toBe(413)
    expect(await elsewhere.json()).toMatchObject({ details: { limitBytes: MAX_BODY_BYTES } })
  })

  it('refuses a delivery of another query (no delegations list) with 400 naming the field, and runs nothing', async () => {
    const { invoked, post } = await setup()
    const old = JSON.stringify({
      ...JSON.parse(delivery('whevt_old', [])),
      event: { data: { block: { number: 7, logs: [disabledLog(KEY)] } } },
    })
    const res = await post(old)
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: {
        issues: [
          { path: 'body.event.data.block.delegations', rule: 'must be a list of logs (a field of the query bardo deploy registers)' },
        ],
      },
    })
    expect(invoked).toEqual([])
  })

  it('a signal for a key no Golem holds wakes nothing', async () => {
    const { invoked, post } = await setup()
    const res = await post(delivery('whevt_3', [disabledLog(A(0x404))]))
    expect(await res.json()).toMatchObject({ signals: 1, woken: [] })
    expect(invoked).toEqual([])
  })
})

describe('loadAlchemyWebhookWiring (the deployed API)', () => {
  const KEY = 'whsec_deployed_signing_key_0001'
  it('is off without the AlchemyWebhookSigningKey secret (its default is empty)', () => {
    expect(loadAlchemyWebhookWiring({})).toBeUndefined()
    expect(loadAlchemyWebhookWiring({ BARDO_SECRET_ALCHEMY_WEBHOOK_SIGNING_KEY: '' })).toBeUndefined()
  })

  it('with the secret, ticks through the tick function, and names what is missing', () => {
    expect(() => loadAlchemyWebhookWiring({ BARDO_SECRET_ALCHEMY_WEBHOOK_SIGNING_KEY: KEY })).toThrow(
      /BARDO_TICK_FUNCTION_NAME: must name the tick function/,
    )
    expect(() => loadAlchemyWebhookWiring({ BARDO_SECRET_ALCHEMY_WEBHOOK_SIGNING_KEY: 'short', BARDO_TICK_FUNCTION_NAME: 'tick' })).toThrow(
      /AlchemyWebhookSigningKey: must be the webhook signing key/,
    )
    const wiring = loadAlchemyWebhookWiring({ BARDO_SECRET_ALCHEMY_WEBHOOK_SIGNING_KEY: KEY, BARDO_TICK_FUNCTION_NAME: 'tick' })!
    expect(wiring.invoker).toBeInstanceOf(LambdaInvoker)
    expect(() => wiring.signingKey.verify('{}', new AlchemySigningKey(KEY).sign('{}'))).not.toThrow()
  })
})
