// The webhook route over the memory store: not configured -> 501; a refused delivery claims nothing and
// runs nothing; one delivery id wakes its Golems once, even when Alchemy's retry races the first try.
import { encodeAbiParameters, encodeEventTopics, getAddress, type Address, type Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { DelegationManager } from '@metamask/delegation-abis'
import { InMemoryStore } from '../../adapters/store/index.ts'
import { AlchemySigningKey } from '../../core/webhooks/index.ts'
import type { TickInvoker, TickRequest } from '../heartbeat/heartbeat.ts'
import { LambdaInvoker } from '../heartbeat/invokers.ts'
import { createApp } from './app.ts'
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

function disabledLog(delegate: Address): Record<string, unknown> {
  const delegation = { delegate, delegator: OWNER, authority: `0x${'ff'.repeat(32)}` as Hex, caveats: [], salt: 1n, signature: '0x' as Hex }
  const input = DelegationManager.find((x) => x.type === 'event' && x.name === 'DisabledDelegation')!.inputs.filter((i) => !i.indexed)
  return {
    index: 0,
    topics: encodeEventTopics({
      abi: DelegationManager,
      eventName: 'DisabledDelegation',
      args: { delegationHash: `0x${'ab'.repeat(32)}`, delegator: OWNER, delegate },
    }),
    data: encodeAbiParameters(input as never, [delegation] as never),
    account: { address: DM },
    transaction: { hash: `0x${'12'.repeat(32)}` },
  }
}

const delivery = (id: string, logs: unknown[]) =>
  JSON.stringify({
    webhookId: 'wh_1',
    id,
    createdAt: new Date(NOW).toISOString(),
    type: 'GRAPHQL',
    event: { data: { block: { number: 7, logs } } },
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
