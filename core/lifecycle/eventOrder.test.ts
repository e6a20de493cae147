import { describe, expect, it } from 'vitest'
import { InMemoryStore } from '../../adapters/store/index.ts'
import type { CustodyEvent } from './custodyEvents.ts'
import { DEATH_EVENT_ORDER, deathEventTime, inTickOrder, ownerActTime, TICK_EVENT_ORDER, tickEventTime } from './eventOrder.ts'
import { hex32 } from '../../test/support/lifecycle/profile.ts'

const TICK_MS = 1_796_000_000_000

describe("the order of a tick's events", () => {
  it("places each type after the ones a tick writes before it, inside the tick's second", () => {
    const times = TICK_EVENT_ORDER.map((type) => tickEventTime(TICK_MS, type))
    expect(times).toEqual([...times].sort((a, b) => a - b))
    expect(new Set(times).size).toBe(TICK_EVENT_ORDER.length)
    for (const t of times) expect(Math.floor(t / 1000)).toBe(TICK_MS / 1000)
    expect(times[0]).toBeGreaterThan(TICK_MS)
  })

  it("places the death protocol's events after every event of the tick that runs it, in its order, inside the tick's second", () => {
    const lastOfTick = Math.max(...TICK_EVENT_ORDER.map((type) => tickEventTime(TICK_MS, type)))
    const times = DEATH_EVENT_ORDER.map((type) => deathEventTime(TICK_MS, type))
    expect(times).toEqual([...times].sort((a, b) => a - b))
    expect(new Set(times).size).toBe(DEATH_EVENT_ORDER.length)
    expect(times[0]).toBeGreaterThan(lastOfTick)
    for (const t of times) expect(Math.floor(t / 1000)).toBe(TICK_MS / 1000)
  })

  it('leaves the time of an event a tick never records as it is given', () => {
    expect(tickEventTime(TICK_MS, 'DelegationGranted')).toBe(TICK_MS)
  })

  it("sorts a death tick's findings in the order they happen, whatever order they were planned in", () => {
    const at = BigInt(TICK_MS / 1000)
    const planned: CustodyEvent[] = [
      { type: 'DeathProtocolStarted', at, trigger: 'owner-revoked', vitality: 0.4 },
      { type: 'PhaseChanged', at, from: 2, to: 4, survivalScoreBps: 0 },
      { type: 'DelegationRevoked', at, delegationHash: hex32('aa'), cause: 'owner' },
    ]
    expect(inTickOrder(planned).map((e) => e.type)).toEqual(['DelegationRevoked', 'PhaseChanged', 'DeathProtocolStarted'])
  })

  it("lists a tick's events from the store in the order written, though their ids sort otherwise", async () => {
    const store = new InMemoryStore()
    const written = ['DelegationRevoked', 'DeathProtocolStarted'] as const
    for (const type of written) await store.appendEvent({ golemId: 'g-1', type, at: tickEventTime(TICK_MS, type), eventId: type })
    // The death it started, run in the same tick: Terminal as the oracle took it, then the end.
    const death = ['PhaseChanged', 'DeathCompleted'] as const
    for (const type of death) await store.appendEvent({ golemId: 'g-1', type, at: deathEventTime(TICK_MS, type), eventId: type })
    const all = [...written, ...death]
    expect([...all].sort()).not.toEqual(all)
    const listed = await store.listEvents({ golemId: 'g-1', limit: 10 })
    expect(listed.events.map((e) => e.type)).toEqual(all)
  })

  it("places the owner's revocation at the start of its block's second: before every event of the tick that sees it", async () => {
    const block = BigInt(TICK_MS / 1000)
    const act = ownerActTime(block)
    expect(act).toBe(TICK_MS)
    for (const type of TICK_EVENT_ORDER) expect(tickEventTime(TICK_MS, type)).toBeGreaterThan(act)
    for (const type of DEATH_EVENT_ORDER) expect(deathEventTime(TICK_MS, type)).toBeGreaterThan(act)
    // A death tick in the same chain second lists after it (newest first from the store).
    const store = new InMemoryStore()
    await store.appendEvent({ golemId: 'g-1', type: 'OwnerRevoked', at: act, eventId: 'OwnerRevoked:0xaa' })
    for (const type of ['DelegationRevoked', 'DeathProtocolStarted'] as const)
      await store.appendEvent({ golemId: 'g-1', type, at: tickEventTime(TICK_MS, type), eventId: type })
    await store.appendEvent({
      golemId: 'g-1',
      type: 'DeathCompleted',
      at: deathEventTime(TICK_MS, 'DeathCompleted'),
      eventId: 'DeathCompleted',
    })
    const listed = await store.listEvents({ golemId: 'g-1', limit: 10 })
    expect(listed.events.map((e) => e.type)).toEqual(['OwnerRevoked', 'DelegationRevoked', 'DeathProtocolStarted', 'DeathCompleted'])
  })
})
