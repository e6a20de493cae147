import { describe, expect, it } from 'vitest'
import { metabolismOf, type JournalEntry } from './metabolism.ts'

const T0 = 1_800_000_000n
const at = (s: bigint) => Number(s) * 1000
const entry = (type: string, s: bigint, amount: bigint | string): JournalEntry => ({ type, at: at(s), data: { amount } })
const input = { now: T0 + 7200n, ttl: T0 + 9000n, grantEndsAt: T0 + 86_400n, runtimeCostPerHour: 500_000n, periodSeconds: 3600n }

describe('the metabolism', () => {
  it('sums costs per period by kind, oldest first, and ignores every other event', () => {
    const m = metabolismOf(
      [
        entry('RunwayRedeemed', T0 + 10n, '3000000'),
        entry('GasRedeemed', T0 + 20n, 10n ** 16n),
        entry('RuntimeBought', T0 + 30n, '500000'),
        entry('RunwayRedeemed', T0 + 3700n, 2_000_000n),
        entry('RuntimeBought', T0 + 3800n, '1000000'),
        { type: 'PhaseChanged', at: at(T0 + 40n), data: { from: 0, to: 1 } },
        { type: 'RuntimeBought', at: at(T0 + 50n), data: { amount: 'not a number' } },
      ],
      input,
    )
    const start = (T0 / 3600n) * 3600n
    expect(m.periods).toEqual([
      { start, runwayRedeemed: 3_000_000n, runtimeBought: 500_000n, gasRedeemed: 10n ** 16n },
      { start: start + 3600n, runwayRedeemed: 2_000_000n, runtimeBought: 1_000_000n, gasRedeemed: 0n },
    ])
    expect(m.totals).toEqual({ runwayRedeemed: 5_000_000n, runtimeBought: 1_500_000n, gasRedeemed: 10n ** 16n })
    // 3.5 USDC held buys 7 hours past the TTL.
    expect(m.held).toBe(3_500_000n)
    expect(m.projectedEnd).toBe(input.ttl + 7n * 3600n)
    expect(m.projectedLifespanSeconds).toBe(input.ttl + 7n * 3600n - input.now)
  })

  it("never projects past the owner's grant, and from now when the TTL has passed", () => {
    const rich = [entry('RunwayRedeemed', T0, 1_000_000_000n)]
    expect(metabolismOf(rich, input).projectedEnd).toBe(input.grantEndsAt)
    const lapsed = metabolismOf([entry('RunwayRedeemed', T0, 500_000n)], { ...input, ttl: T0 })
    expect(lapsed.projectedEnd).toBe(input.now + 3600n)
    const ended = metabolismOf(rich, { ...input, grantEndsAt: T0 })
    expect(ended.projectedLifespanSeconds).toBe(0n)
    expect(metabolismOf([], input)).toMatchObject({ periods: [], held: 0n, projectedEnd: input.ttl })
  })

  it('counts no runtime bought with a payment the chain reversed: the key still holds that USDC', () => {
    const nonce = `0x${'ab'.repeat(32)}`
    const bought = (n: string, s: bigint): JournalEntry => ({ type: 'RuntimeBought', at: at(s), data: { amount: '500000', nonce: n } })
    const m = metabolismOf(
      [
        entry('RunwayRedeemed', T0, '3000000'),
        bought(nonce, T0 + 10n),
        bought(`0x${'cd'.repeat(32)}`, T0 + 20n),
        {
          type: 'PaymentReversed',
          at: at(T0 + 30n),
          data: { kind: 'self-extension', nonce: nonce.toUpperCase().replace('0X', '0x'), amount: '500000' },
        },
      ],
      input,
    )
    expect(m.totals.runtimeBought).toBe(500_000n)
    expect(m.held).toBe(2_500_000n)
  })

  it('refuses a period or price that is not positive', () => {
    expect(() => metabolismOf([], { ...input, periodSeconds: 0n })).toThrow(/periodSeconds: must be positive/)
    expect(() => metabolismOf([], { ...input, runtimeCostPerHour: 0n })).toThrow(/runtimeCostPerHour: must be positive/)
  })
})
