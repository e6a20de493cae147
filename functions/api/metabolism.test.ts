// GET /api/v1/golems/:id/metabolism on the in-memory store: costs folded from the journal by kind and
// period, the projected lifespan, 404 for an unknown Golem and 501 without a runtime price.
import { describe, expect, it } from 'vitest'
import { InMemoryStore } from '../../adapters/store/index.ts'
import { born, DAY_S, testProfile } from '../../test/support/lifecycle/profile.ts'
import { createApp } from './app.ts'
import { StoreMetabolism } from './services/metabolism.ts'
import { sampleGolem, testApiDeps } from './testing.ts'

const profile = testProfile()
const golem = sampleGolem({ profile })
const PRICE = 500_000n

async function journal() {
  const store = new InMemoryStore()
  const add = (type: string, atS: bigint, amount: bigint) =>
    store.appendEvent({ golemId: golem.id, type, at: Number(atS) * 1000, eventId: `${type}:${atS}`, data: { amount } })
  await add('RunwayRedeemed', born + 10n, 3_000_000n)
  await add('GasRedeemed', born + 20n, 10n ** 16n)
  await add('RuntimeBought', born + 30n, PRICE)
  await add('RunwayRedeemed', born + DAY_S + 10n, 1_000_000n)
  await add('PhaseChanged', born + 40n, 0n)
  return store
}

describe('GET /api/v1/golems/:id/metabolism', () => {
  it('answers the costs per period by kind, the runway held and the projected lifespan', async () => {
    const now = born + DAY_S + 100n
    const metabolism = new StoreMetabolism({ store: await journal(), runtimeCostPerHour: PRICE, now: async () => now })
    const app = createApp(testApiDeps({ golems: [golem], overrides: { metabolism } }))
    const res = await app.request(`/api/v1/golems/${golem.id}/metabolism`)
    expect(res.status).toBe(200)
    const period = profile.runway.periodDuration
    const start = (s: bigint) => ((s / period) * period).toString()
    const held = 3_500_000n
    const ttl = profile.life.runwayEndsAt
    const end = ttl + 7n * 3600n < profile.runway.expiresAt ? ttl + 7n * 3600n : profile.runway.expiresAt
    expect(await res.json()).toEqual({
      golemId: golem.id,
      periodSeconds: period.toString(),
      periods: [
        { start: start(born + 10n), runwayRedeemed: '3000000', runtimeBought: '500000', gasRedeemed: (10n ** 16n).toString() },
        { start: start(born + DAY_S + 10n), runwayRedeemed: '1000000', runtimeBought: '0', gasRedeemed: '0' },
      ],
      totals: { runwayRedeemed: '4000000', runtimeBought: '500000', gasRedeemed: (10n ** 16n).toString() },
      held: held.toString(),
      projectedEnd: end.toString(),
      projectedLifespanSeconds: (end - now).toString(),
    })
  })

  it('answers 404 for an unknown Golem and 501 when no runtime price is configured', async () => {
    const app = createApp(testApiDeps({ golems: [golem] }))
    expect((await app.request('/api/v1/golems/nobody/metabolism')).status).toBe(404)
    const res = await app.request(`/api/v1/golems/${golem.id}/metabolism`)
    expect(res.status).toBe(501)
    expect(await res.json()).toMatchObject({ code: 'NOT_IMPLEMENTED' })
  })
})
