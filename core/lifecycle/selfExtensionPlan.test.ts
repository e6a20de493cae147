import { describe, expect, it } from 'vitest'
import { Phase } from './phase.ts'
import { planSelfExtension, SELF_EXTENSION_BEATS_AHEAD, type SelfExtensionInput } from './selfExtensionPlan.ts'

const NOW = 1_800_000_000n
const PRICE = 500_000n
const input = (o: Partial<SelfExtensionInput> = {}): SelfExtensionInput => ({
  now: NOW,
  ttl: NOW + 200n,
  beatSeconds: 60n,
  phase: Phase.Thriving,
  dying: false,
  expectedEnd: NOW + 30n * 86_400n,
  held: 10_000_000n,
  runtimeCostPerHour: PRICE,
  maxPerPayment: 2_000_000n,
  maxPerPeriod: 5_000_000n,
  spentInPeriod: 0n,
  ...o,
})

describe('the self-extension rule', () => {
  it('buys one hour when the TTL falls within the next beats and the margin, keyed by the TTL it extends', () => {
    expect(SELF_EXTENSION_BEATS_AHEAD).toBe(3n)
    // Horizon: now + 3 beats + one beat of margin = now + 240 s.
    expect(planSelfExtension(input())).toEqual({
      kind: 'extend',
      slot: { period: NOW + 200n, step: 'extend' },
      hours: 1,
      amount: PRICE,
      ttlAfter: NOW + 200n + 3600n,
    })
  })

  it('does nothing while the TTL is at or past the horizon', () => {
    expect(planSelfExtension(input({ ttl: NOW + 240n }))).toMatchObject({
      kind: 'none',
      reason: expect.stringMatching(/ahead of the horizon/),
    })
    expect(planSelfExtension(input({ ttl: NOW + 100n, marginSeconds: 0n, beatSeconds: 30n }))).toMatchObject({ kind: 'none' })
  })

  it('buys from now when the TTL already passed, and enough hours to cover a long horizon', () => {
    const late = planSelfExtension(input({ ttl: NOW - 50n }))
    expect(late).toMatchObject({ kind: 'extend', hours: 1, ttlAfter: NOW + 3600n, slot: { period: NOW - 50n } })
    const long = planSelfExtension(input({ ttl: NOW, beatSeconds: 3600n, maxPerPayment: 10_000_000n }))
    // Horizon: 4 hours ahead.
    expect(long).toMatchObject({ kind: 'extend', hours: 4, amount: 4n * PRICE })
  })

  it('buys fewer hours when the runway or a bound allows fewer, and refuses (no payment) when not one hour fits', () => {
    const long = input({ ttl: NOW, beatSeconds: 3600n, maxPerPayment: 10_000_000n })
    expect(planSelfExtension({ ...long, held: 2n * PRICE + 1n })).toMatchObject({ kind: 'extend', hours: 2 })
    expect(planSelfExtension({ ...long, maxPerPayment: 3n * PRICE })).toMatchObject({ kind: 'extend', hours: 3 })
    expect(planSelfExtension({ ...long, spentInPeriod: 4_000_000n })).toMatchObject({ kind: 'extend', hours: 2 })
    expect(planSelfExtension(input({ held: PRICE - 1n }))).toMatchObject({ kind: 'none', refused: 'runway' })
    expect(planSelfExtension(input({ maxPerPayment: PRICE - 1n }))).toMatchObject({ kind: 'none', refused: 'payment-bound' })
    expect(planSelfExtension(input({ spentInPeriod: 4_600_000n }))).toMatchObject({
      kind: 'none',
      refused: 'payment-period-bound',
      reason: expect.stringMatching(/per-period bound \(5000000, 4600000 already authorized\): no payment/),
    })
    expect(planSelfExtension(input({ spentInPeriod: 9_000_000n }))).toMatchObject({ kind: 'none', refused: 'payment-period-bound' })
  })

  it('never buys in Terminal or while dying; in Declining never past the expected end', () => {
    expect(planSelfExtension(input({ phase: Phase.Terminal }))).toMatchObject({ kind: 'none', reason: expect.stringMatching(/Terminal/) })
    expect(planSelfExtension(input({ dying: true }))).toMatchObject({ kind: 'none' })
    expect(planSelfExtension(input({ phase: Phase.Declining, expectedEnd: NOW + 1800n }))).toMatchObject({
      kind: 'none',
      refused: 'expected-end',
    })
    const declining = planSelfExtension(input({ phase: Phase.Declining, ttl: NOW, beatSeconds: 3600n, expectedEnd: NOW + 7300n }))
    expect(declining).toMatchObject({ kind: 'extend', hours: 2, ttlAfter: NOW + 7200n })
    // Conservation still keeps its TTL ahead: only Declining and Terminal wind down.
    expect(planSelfExtension(input({ phase: Phase.Conservation, expectedEnd: NOW + 1800n }))).toMatchObject({ kind: 'extend' })
  })

  it('refuses a price or beat that is not positive', () => {
    expect(() => planSelfExtension(input({ runtimeCostPerHour: 0n }))).toThrow(/runtimeCostPerHour: must be positive/)
    expect(() => planSelfExtension(input({ beatSeconds: 0n }))).toThrow(/beatSeconds: must be positive/)
  })
})
