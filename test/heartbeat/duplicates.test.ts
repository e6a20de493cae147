// At-least-once delivery: AWS may deliver the same tick more than once, at the same time or later. Ten
// Golems over six days (60 slots), every tick request delivered three times concurrently (three
// invocation ids, the same observation and record) and once more after the others finished (a late
// retry with a stale observation and a stale copy of the record). Exactly one redemption per (Golem, period), on-chain and in the store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import type { TickInvoker, TickRequest } from '../../app/heartbeat/handOver.ts'
import { decodeTickPayload, encodeTickPayload } from '../../app/heartbeat/tickPayload.ts'
import { runTick } from '../../app/tick/runTick.ts'
import type { TickResult } from '../../app/tick/types.ts'
import type { OwnerAccount } from '../../local/devnet.ts'
import { provisionFleet, type FleetGolem } from './fleet.ts'
import {
  DAY,
  USDC,
  allEvents,
  passStaggerOffsets,
  periodAt,
  redemptionsBy,
  sentCount,
  startHeartbeatEnv,
  usdcTransfersFrom,
  type HeartbeatEnv,
  WHOLE_RUNWAY_ON_KEY,
} from './harness.ts'

const GOLEMS = 10
const DAYS = 6
const COPIES = 3

let env: HeartbeatEnv
let owner: OwnerAccount
let fleet: FleetGolem[]
type Delivery = { day: number; golemId: string; copy: number; result?: TickResult; error?: unknown }
const deliveries: Delivery[] = []

/** Hands every request over COPIES times at once, then once more when those are done. */
class DuplicatingInvoker implements TickInvoker {
  day = 0
  async invoke(requests: readonly TickRequest[]): Promise<void> {
    const decoded = decodeTickPayload(encodeTickPayload(requests))
    const deliver = async (request: TickRequest, copy: number) => {
      const d: Delivery = { day: this.day, golemId: request.golemId, copy }
      deliveries.push(d)
      try {
        d.result = await runTick(env.deps(`dup-d${this.day}-${request.golemId}-${copy}`), request)
      } catch (error) {
        d.error = error
      }
    }
    await Promise.all(decoded.map((r) => Promise.all(Array.from({ length: COPIES }, (_, copy) => deliver(r, copy)))))
    await Promise.all(decoded.map((r) => deliver(r, COPIES)))
  }
}

beforeAll(async () => {
  env = await startHeartbeatEnv()
  owner = await env.devnet.createOwner({ usdc: USDC(100_000) })
  fleet = await provisionFleet({
    keyCeiling: WHOLE_RUNWAY_ON_KEY,
    devnet: env.devnet,
    store: env.store,
    signers: env.signers,
    owner,
    count: GOLEMS,
    idPrefix: 'dup',
    periodAmount: USDC(10),
  })
  // Whole days later each tick is past the Golem's stagger offset, so every period's tick redeems.
  await passStaggerOffsets(
    env.devnet,
    fleet.map((g) => g.golemId),
  )
  const invoker = new DuplicatingInvoker()
  for (let day = 0; day < DAYS; day++) {
    invoker.day = day
    const hb = await runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker, batchSize: 5 })
    expect(hb.invoked).toBe(GOLEMS)
    await env.devnet.increaseTime(DAY)
  }
})
afterAll(async () => env?.stop())

describe(`duplicates: ${GOLEMS} Golems x ${DAYS} periods, each tick delivered ${COPIES}x concurrently and once late`, () => {
  it('delivers every copy without an error; of each concurrent trio exactly one ticks, the others find the Golem busy', () => {
    expect(deliveries).toHaveLength(GOLEMS * DAYS * (COPIES + 1))
    expect(deliveries.filter((d) => d.error !== undefined).map((d) => String(d.error))).toEqual([])
    for (let day = 0; day < DAYS; day++) {
      for (const g of fleet) {
        const trio = deliveries.filter((d) => d.day === day && d.golemId === g.golemId && d.copy < COPIES)
        expect(trio.map((d) => d.result?.outcome).sort(), `${g.golemId} day ${day}`).toEqual(['busy', 'busy', 'ticked'])
        expect(trio.find((d) => d.result?.outcome === 'ticked')?.result?.redemption?.status).toBe('confirmed')
        // The late copy carries the stale observation (the full allowance) and the stale record: the lease,
        // conditional on that record's version, stops it before anything is planned.
        const late = deliveries.find((d) => d.day === day && d.golemId === g.golemId && d.copy === COPIES)
        expect(late?.result, `${g.golemId} day ${day} late`).toEqual({ golemId: g.golemId, outcome: 'busy' })
      }
    }
  })

  it(`puts exactly one redemption per (Golem, period) on-chain: ${GOLEMS * DAYS} slots, ${GOLEMS * DAYS} transactions`, async () => {
    let total = 0
    for (const g of fleet) {
      const redemptions = await redemptionsBy(env.client, env.devnet.deployment.environment.DelegationManager, g.golemKey)
      const periods = redemptions.map((r) => periodAt(g.profile, r.timestamp))
      expect(periods, g.golemId).toHaveLength(DAYS)
      expect(new Set(periods).size, g.golemId).toBe(DAYS)
      // The session key sent nothing else: one transaction per period, no replaced or stray sends.
      expect(await sentCount(env.client, g.golemKey)).toBe(DAYS)
      total += redemptions.length
    }
    expect(total).toBe(GOLEMS * DAYS)
  })

  it("moves exactly one period's runway per slot out of the owner's account", async () => {
    const transfers = await usdcTransfersFrom(env.client, env.devnet.deployment.assets.usdc, owner.address)
    expect(transfers).toHaveLength(GOLEMS * DAYS)
    expect(transfers.every((t) => t.value === USDC(10))).toBe(true)
    for (const g of fleet) expect(transfers.filter((t) => t.to === g.golemKey)).toHaveLength(DAYS)
  })

  // The tick that redeemed leaves its slot `sent`: its confirmed outcome on the record stands for the
  // slot's completion, and no copy of the tick settled it again.
  it('records each slot once in the store: sent, claimed once, one RunwayRedeemed', async () => {
    for (const g of fleet) {
      const redemptions = await redemptionsBy(env.client, env.devnet.deployment.environment.DelegationManager, g.golemKey)
      for (const r of redemptions) {
        const period = periodAt(g.profile, r.timestamp)
        expect(await env.store.getSlot({ golemId: g.golemId, period, step: 'runway' })).toMatchObject({
          status: 'sent',
          txHash: r.txHash,
          claims: 1,
        })
      }
      const redeemed = (await allEvents(env.store, g.golemId)).filter((e) => e.type === 'RunwayRedeemed')
      expect(redeemed.map((e) => e.data.txHash).sort()).toEqual(redemptions.map((r) => r.txHash).sort())
      expect(redeemed.map((e) => e.data.amount)).toEqual(redeemed.map(() => USDC(10).toString()))
    }
  })
})
