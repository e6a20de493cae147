// The Snap's custody event rules as pure functions: which events are new (first read remembers, a
// late-written event inside the lookback still counts, nothing twice), which events notify and in what
// words, and how event alerts and status alerts tell one piece of news once.
import { describe, expect, it } from 'vitest'
import { planAlerts } from '../../snap/src/alerts.ts'
import {
  eventAlert,
  eventAlertsOf,
  LOOKBACK_MS,
  MAX_EVENT_ALERTS,
  mergeEventAlerts,
  newEvents,
  type CustodyEvent,
} from '../../snap/src/eventAlerts.ts'
import type { GolemStatus } from '../../snap/src/types.ts'

const NOW = 1_767_225_600
const T = NOW * 1000
const atlas = { id: 'atlas', name: 'Atlas' }
const ev = (type: string, at: number, data: Record<string, unknown> = {}, eventId = `${type}:${at}`): CustodyEvent => ({
  eventId,
  type,
  at,
  data,
})
/** The API pages newest first. */
const page = (...events: CustodyEvent[]) => [...events].sort((a, b) => b.at - a.at)

describe('newEvents', () => {
  it('remembers the backlog on the first read and tells nothing of it, even when there is none', () => {
    const first = newEvents(undefined, page(ev('DelegationRevoked', T, { cause: 'owner' })))
    expect(first.fresh).toEqual([])
    expect(first.cursor).toEqual({ newestAt: T, seen: [`${T}:DelegationRevoked:${T}`] })
    const empty = newEvents(undefined, [])
    expect(empty).toEqual({ fresh: [], cursor: { newestAt: 0, seen: [] } })
    // A Golem without events yet: its first event is news.
    expect(newEvents(empty.cursor, [ev('SessionKeyRotated', T)]).fresh.map((e) => e.type)).toEqual(['SessionKeyRotated'])
  })

  it('tells each new event once, oldest first, including one written late with a time inside the lookback', () => {
    const a = ev('RunwayRedeemed', T)
    const { cursor } = newEvents(undefined, [a])
    const b = ev('SessionKeyRotated', T + 1_000)
    const late = ev('RotationRenewalRequested', T - 10 * 60_000)
    const next = newEvents(cursor, page(a, b, late))
    expect(next.fresh.map((e) => e.type)).toEqual(['RotationRenewalRequested', 'SessionKeyRotated'])
    expect(newEvents(next.cursor, page(a, b, late)).fresh).toEqual([])
    // Older than the lookback before what was seen: not news any more.
    expect(newEvents(cursor, [ev('SessionKeyRotated', T - LOOKBACK_MS - 1)]).fresh).toEqual([])
    // Positions older than the lookback are forgotten.
    const far = newEvents(next.cursor, [ev('PhaseChanged', T + 2 * LOOKBACK_MS)])
    expect(far.cursor.seen).toEqual([`${T + 2 * LOOKBACK_MS}:PhaseChanged:${T + 2 * LOOKBACK_MS}`])
  })
})

describe('eventAlert', () => {
  it('tells the owner what to do, in words, within the native and in-app limits', () => {
    const name = 'Atlas the Unreasonably Long-Named Yield Farmer of the North'
    const g = { id: 'atlas', name }
    const events = [
      ev('DelegationRevoked', T, { cause: 'owner' }),
      ev('DelegationRevoked', T, { cause: 'expired' }),
      ev('DelegationRevoked', T, { cause: 'exhausted' }),
      ev('DelegationRevoked', T, { cause: 'terminal' }),
      ev('DelegationExpiringWarning', T, { hoursRemaining: 19.7 }),
      ev('RenewalRequested', T, { grantEndsAt: String(NOW + 86_400), runwayEndsAt: String(NOW + 5 * 86_400), secondsLeft: '86400' }),
      ev('RotationRenewalRequested', T, { newAddress: '0x90F79bf6EB2c4f870365E785982E1f101E93b906', startAt: '1', grantEndsAt: '2' }),
      ev('SessionKeyRotated', T, { newAddress: '0x90F79bf6EB2c4f870365E785982E1f101E93b906', reason: 'max-age' }),
      ev('DeathProtocolStarted', T, { trigger: 'terminal', vitality: 0 }),
      ev('DeathCompleted', T, { cause: 'NaturalExpiry' }),
      ev('HeartbeatAnomaly', T, { failures: 5, maxConsecutiveFailures: 5, reason: `Error: ${'signer unavailable '.repeat(8)}` }),
      ev('HeartbeatResumed', T, { failures: 5 }),
      ev('PolicyViolation', T, { rule: 'maxConcentration', revoke: true }),
    ]
    for (const e of events) {
      const a = eventAlert(g, e)!
      expect(a.short.length, e.type).toBeLessThanOrEqual(50)
      expect(a.short.startsWith('Atlas the'), e.type).toBe(true)
      expect(a.long.length, e.type).toBeLessThanOrEqual(500)
      expect(a.long, e.type).toContain(name)
    }
  })

  it('says which news each event carries', () => {
    const short = (e: CustodyEvent) => eventAlert(atlas, e)?.short
    expect(short(ev('DelegationRevoked', T, { cause: 'owner' }))).toBe('Atlas: grant revoked')
    expect(short(ev('DelegationRevoked', T, { cause: 'exhausted' }))).toBe('Atlas: grant used up')
    expect(short(ev('DelegationExpiringWarning', T, { hoursRemaining: 19.7 }))).toBe('Atlas: grant ends in 19 h')
    expect(short(ev('DelegationExpiringWarning', T, { hoursRemaining: 0.4 }))).toBe('Atlas: grant ends in under 1 h')
    expect(short(ev('RotationRenewalRequested', T, {}))).toBe('Atlas: sign grant for new key')
    expect(short(ev('SessionKeyRotated', T, {}))).toBe('Atlas: session key rotated')
    expect(short(ev('DeathProtocolStarted', T, {}))).toBe('Atlas is dying')
    expect(short(ev('DeathCompleted', T, {}))).toBe('Atlas has died')
    const renewal = eventAlert(atlas, ev('RenewalRequested', T, { grantEndsAt: String(NOW + 86_400), runwayEndsAt: NOW + 5 * 86_400 }))!
    expect(renewal).toMatchObject({ key: 'atlas:grant:renewal', short: 'Atlas: renew its grant' })
    expect(renewal.long).toContain('ends 2026-01-02, before the runway paid for it (until 2026-01-06). Sign the renewal in the Portal')
    const halted = eventAlert(
      atlas,
      ev('HeartbeatAnomaly', T, { failures: 5, maxConsecutiveFailures: 5, reason: 'Error: signer unavailable' }),
    )!
    expect(halted).toMatchObject({ key: 'atlas:halted', short: 'Atlas: halted after 5 failed ticks' })
    expect(halted.long).toContain('failed 5 times in a row (last: Error: signer unavailable), so Bardo stopped it')
    expect(eventAlert(atlas, ev('HeartbeatAnomaly', T, { failures: '7', reason: 'see https://evil.example/fix' }))!.long).not.toContain(
      'evil',
    )
    // The operator's lift of a halt: news each time, under the event's own key.
    const resumed = eventAlert(atlas, ev('HeartbeatResumed', T, { failures: 5 }))!
    expect(resumed).toMatchObject({ key: `atlas:event:${T}:HeartbeatResumed:${T}`, short: 'Atlas: heartbeat resumed' })
    expect(resumed.long).toContain('Bardo lifted the halt on Golem Atlas (5 failed ticks in a row had stopped it): it ticks and redeems')
    expect(eventAlert(atlas, ev('HeartbeatResumed', T, { failures: 'many' }))!.long).toContain('lifted the halt on Golem Atlas: it ticks')
    // A hostile string in the data is not repeated to the owner.
    expect(eventAlert(atlas, ev('SessionKeyRotated', T, { reason: 'visit https://evil.example/claim' }))!.long).not.toContain('evil')
    const caged = eventAlert(atlas, ev('PolicyViolation', T, { source: 'policy_violation', rule: 'approvedAsset', revoke: true }))!
    expect(caged).toMatchObject({ key: 'atlas:policy:revoked', short: 'Atlas: stopped by its constitution' })
    expect(caged.long).toContain("broke its constitution's approvedAsset rule, which your constitution says revokes it")
    // A refusal the constitution only records is not news for a notification.
    expect(eventAlert(atlas, ev('PolicyViolation', T, { rule: 'maxTransaction', revoke: false }))).toBeUndefined()
    expect(eventAlert(atlas, ev('PolicyViolation', T, { rule: '<a href=x>', revoke: true }))!.long).not.toContain('href')
    for (const type of ['RunwayRedeemed', 'GasRedeemed', 'PhaseChanged', 'DelegationGranted', 'DelegationRenewed', 'PaymentCredited'])
      expect(eventAlert(atlas, ev(type, T)), type).toBeUndefined()
  })

  it(`notifies at most ${MAX_EVENT_ALERTS} events of one Golem per cron, the newest`, () => {
    const many = Array.from({ length: 8 }, (_, i) => ev('SessionKeyRotated', T + i))
    const alerts = eventAlertsOf(atlas, many)
    expect(alerts).toHaveLength(MAX_EVENT_ALERTS)
    expect(alerts.at(-1)!.key).toBe(`atlas:event:${T + 7}:SessionKeyRotated:${T + 7}`)
  })
})

describe('mergeEventAlerts', () => {
  const golem = (over: Partial<GolemStatus> = {}): GolemStatus => ({
    id: 'atlas',
    name: 'Atlas',
    phase: 'Thriving',
    vitality: 0.9,
    lifecycle: 'alive',
    lastHeartbeatAt: NOW - 30,
    permission: null,
    ...over,
  })

  it('tells a piece of news once whether the status or an event carries it first, with the detail of the event', () => {
    const dead = golem({ lifecycle: 'dead', phase: 'Terminal' })
    const status = planAlerts([], { golems: [dead], generatedAt: NOW })
    const events = eventAlertsOf(atlas, [
      ev('DelegationRevoked', T - 2, { cause: 'expired' }),
      ev('DeathProtocolStarted', T - 1, { trigger: 'delegation-expired' }),
      ev('DeathCompleted', T, { cause: 'NaturalExpiry' }),
      ev('HeartbeatAnomaly', T, { failures: 5, maxConsecutiveFailures: 5, reason: `Error: ${'signer unavailable '.repeat(8)}` }),
    ])
    const same = mergeEventAlerts([], status, events)
    expect(same.alerts.map((a) => a.key)).toEqual(['atlas:dead'])
    expect(same.alerts[0]!.long).toContain('has died (its life ran out)')
    // The event came first: the status's death on the next cron is not told again.
    const alive = planAlerts([], { golems: [golem()], generatedAt: NOW })
    const first = mergeEventAlerts([], alive, eventAlertsOf(atlas, [ev('DeathCompleted', T)]))
    expect(first.alerts.map((a) => a.key)).toEqual(['atlas:dead'])
    expect(first.active).toContain('atlas:dead')
    expect(planAlerts(first.active, { golems: [dead], generatedAt: NOW }).alerts).toEqual([])
    // News already told is not told again by a later event.
    expect(mergeEventAlerts(['atlas:health:critical'], alive, eventAlertsOf(atlas, [ev('DelegationExpiringWarning', T)])).alerts).toEqual(
      [],
    )
    // One-off events never join the conditions.
    const rotated = mergeEventAlerts([], { alerts: [], active: [] }, eventAlertsOf(atlas, [ev('SessionKeyRotated', T)]))
    expect(rotated.alerts).toHaveLength(1)
    expect(rotated.active).toEqual([])
  })
})
