// The heartbeat's fee data in the tick payload: carried as decimal strings, validated on arrival, and
// optional (a payload without it, from an older heartbeat or a chain without EIP-1559, still decodes).
import { describe, expect, it } from 'vitest'
import { testProfile } from '../../test/support/lifecycle/profile.ts'
import type { GolemRecord } from '../../core/store/index.ts'
import { decodeTickPayload, encodeTickPayload } from './tickPayload.ts'

const fees = { baseFeePerGas: 7_000_000_000n, maxPriorityFeePerGas: 1_500_000_000n }

describe('tick payload fees', () => {
  it('round-trips the fees with every request, as bigints', () => {
    const decoded = decodeTickPayload(encodeTickPayload([{ golemId: 'g1', fees }, { golemId: 'g2' }]))
    expect(decoded).toEqual([{ golemId: 'g1', fees }, { golemId: 'g2' }])
  })

  it('leaves a parsed profile behind: its bigints do not survive JSON, and the record carries its text', () => {
    const profile = testProfile()
    const text = encodeTickPayload([{ golemId: 'g1', profile, fees }])
    expect(JSON.parse(text)).toEqual({
      requests: [{ golemId: 'g1', fees: { baseFeePerGas: '7000000000', maxPriorityFeePerGas: '1500000000' } }],
    })
    expect(decodeTickPayload(text)).toEqual([{ golemId: 'g1', fees }])
  })

  it('refuses fees that are not whole non-negative numbers, or a fee left out of the pair', () => {
    const bad = [
      { baseFeePerGas: '-1', maxPriorityFeePerGas: '1' },
      { baseFeePerGas: '1.5', maxPriorityFeePerGas: '1' },
      { baseFeePerGas: '0x10', maxPriorityFeePerGas: '1' },
      { baseFeePerGas: '1' },
      { maxPriorityFeePerGas: '1' },
    ]
    for (const f of bad) {
      const text = JSON.stringify({ requests: [{ golemId: 'g1', fees: f }] })
      expect(() => decodeTickPayload(text), JSON.stringify(f)).toThrow(/baseFeePerGas|maxPriorityFeePerGas/)
    }
  })
})

describe('tick payload observation', () => {
  const observed = {
    golemId: 'g1',
    phase: 0 as const,
    registered: true,
    dead: false,
    survivalScoreBps: 10_000,
    dreaming: false,
    disabled: false,
    availableInPeriod: 20_000_000n,
    isNewPeriod: true,
    currentPeriod: 3n,
    ethBalance: 10n ** 16n,
    gasAvailableInPeriod: null,
    timestamp: 1_800_000_000n,
  }

  it('carries what the key holds of the runway token: the tick tops up only what the coming period needs', () => {
    const [decoded] = decodeTickPayload(encodeTickPayload([{ golemId: 'g1', observed: { ...observed, runwayHeld: 500_000n } }]))
    expect(decoded?.observed).toEqual({ ...observed, runwayHeld: 500_000n })
    const [without] = decodeTickPayload(encodeTickPayload([{ golemId: 'g1', observed }]))
    expect(without?.observed).toEqual(observed)
    expect(without?.observed).not.toHaveProperty('runwayHeld')
  })

  it('refuses a held amount that is not a whole non-negative number', () => {
    const text = JSON.stringify({ requests: [{ golemId: 'g1', observed: { ...observed, runwayHeld: '-5' } }] }, (_k, v) =>
      typeof v === 'bigint' ? v.toString() : v,
    )
    expect(() => decodeTickPayload(text)).toThrow(/runwayHeld/)
  })
})

describe('tick payload record', () => {
  const record = (lastTick: GolemRecord['lastTick']): GolemRecord => ({
    golemId: 'g1',
    owner: `0x${'1'.repeat(40)}`,
    sessionKeyAddress: `0x${'2'.repeat(40)}`,
    custodyMode: 'Delegation',
    profile: null,
    status: 'alive',
    phase: 'Thriving',
    nextTickAt: 60_000,
    lastTick,
    createdAt: 0,
    updatedAt: 0,
    version: 3,
  })

  it("carries the last tick's count of failed ticks, so the tick's lease keeps it", () => {
    const failing = record({ at: 1_000, period: 4n, outcome: 'running', txHash: null, failures: 2 })
    expect(decodeTickPayload(encodeTickPayload([{ golemId: 'g1', record: failing }]))).toEqual([{ golemId: 'g1', record: failing }])
  })

  it('refuses a count that is not a whole number from 1', () => {
    for (const failures of [0, 1.5]) {
      const bad = record({ at: 1_000, period: 4n, outcome: 'running', txHash: null, failures })
      expect(() => decodeTickPayload(encodeTickPayload([{ golemId: 'g1', record: bad }]))).toThrow()
    }
  })
})
