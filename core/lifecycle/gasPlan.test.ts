import { describe, expect, it } from 'vitest'
import { GAS_THRESHOLD_BPS, gasPeriodAt, gasThreshold, planGas } from './gasPlan.ts'
import type { ObservedGolem } from './observation.ts'
import { Phase } from './phase.ts'
import type { GolemProfile } from './profile.ts'
import { born, DAY_S, golemKey, hex32, testProfile, testRead } from '../../test/support/lifecycle/profile.ts'

const ALLOWANCE = 10_000n
const withGas = (delegate = golemKey): GolemProfile => {
  const p = testProfile()
  return {
    ...p,
    gas: {
      chain: [{ ...p.runway.chain[0]!, delegate }],
      periodAmount: ALLOWANCE,
      periodDuration: DAY_S,
      periodStart: born,
      periodDelegationHash: hex32('9a'),
      periodTerms: '0x',
      chainHashes: [hex32('9a')],
    },
  }
}
const read = (o: Partial<ObservedGolem> = {}): ObservedGolem => testRead({ ethBalance: 100n, gasAvailableInPeriod: ALLOWANCE, ...o })

describe('the gas top-up rule', () => {
  it('redeems what the period allows once the balance is below half a period allowance, in the gas slot of its period', () => {
    expect(GAS_THRESHOLD_BPS).toBe(5_000n)
    expect(gasThreshold(ALLOWANCE)).toBe(5_000n)
    expect(planGas(withGas(), read(), false)).toEqual({
      kind: 'redeem',
      slot: { period: born / DAY_S + 1n, step: 'gas' },
      amount: ALLOWANCE,
      recipient: golemKey,
    })
    expect(planGas(withGas(), read({ gasAvailableInPeriod: 300n }), false)).toMatchObject({ kind: 'redeem', amount: 300n })
    expect(gasPeriodAt(withGas().gas!, born + 3n * DAY_S)).toBe(born / DAY_S + 3n)
  })

  it('does nothing at or above the threshold, with the period spent, without a grant or a read', () => {
    expect(planGas(withGas(), read({ ethBalance: 5_000n }), false)).toMatchObject({
      kind: 'none',
      reason: expect.stringMatching(/threshold/),
    })
    expect(planGas(withGas(), read({ gasAvailableInPeriod: 0n }), false)).toMatchObject({
      kind: 'none',
      reason: expect.stringMatching(/spent/),
    })
    expect(planGas(testProfile(), read(), false)).toMatchObject({ kind: 'none', reason: 'no gas grant' })
    const { ethBalance: _, ...unread } = read()
    expect(planGas(withGas(), unread, false)).toMatchObject({ kind: 'none', reason: expect.stringMatching(/no read/) })
  })

  it('never tops up a dying or Terminal Golem, nor through a grant to another key', () => {
    expect(planGas(withGas(), read(), true).kind).toBe('none')
    expect(planGas(withGas(), read({ phase: Phase.Terminal }), false).kind).toBe('none')
    expect(planGas(withGas('0x000000000000000000000000000000000000dEaD'), read(), false)).toMatchObject({
      kind: 'none',
      reason: expect.stringMatching(/another key/),
    })
  })
})
