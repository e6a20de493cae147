import { describe, expect, it } from 'vitest'
import { countdown, phaseBands, vitalityPoints } from '../../web/src/phaseBands.ts'

const moves = [
  { from: 'Stable', to: 'Conservation', timestamp: 300, survivalScore: 4_000 },
  { from: 'Thriving', to: 'Stable', timestamp: 200, survivalScore: 7_000 },
]

describe('phase bands', () => {
  it('cuts the life from birth to now into one band per phase, whatever order the moves arrive in', () => {
    expect(phaseBands(100, moves, 400, 'Conservation')).toEqual([
      { phase: 'Thriving', start: 100, end: 200 },
      { phase: 'Stable', start: 200, end: 300 },
      { phase: 'Conservation', start: 300, end: 400 },
    ])
  })

  it('is one band of the current phase when nothing moved yet, and never ends before it starts', () => {
    expect(phaseBands(100, [], 150, 'Thriving')).toEqual([{ phase: 'Thriving', start: 100, end: 150 }])
    expect(phaseBands(100, [], 90, 'Thriving')).toEqual([{ phase: 'Thriving', start: 100, end: 100 }])
  })

  it('leaves out moves from before birth (a previous life under the same key)', () => {
    expect(phaseBands(250, moves, 400, 'Conservation').map((b) => b.phase)).toEqual(['Stable', 'Conservation'])
  })
})

describe('vitality points', () => {
  it('plots each scored move in time order, then the current score now; resets carry no score', () => {
    const reset = { from: 'Conservation', to: 'Stable', timestamp: 350, survivalScore: null }
    expect(vitalityPoints([...moves, reset], 400, 5_000)).toEqual({ t: [200, 300, 400], v: [0.7, 0.4, 0.5] })
    expect(vitalityPoints([], 400, null)).toEqual({ t: [], v: [] })
  })
})

describe('countdown', () => {
  it('reads as people read a deadline, and never below zero', () => {
    expect([countdown(187), countdown(3_720), countdown(86_400 * 2.5), countdown(-5)]).toEqual(['3m07s', '1h02m', '2.5 d', '0m00s'])
  })
})
