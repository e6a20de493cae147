import { describe, expect, it } from 'vitest'
import { RepeatedLines, refusalKey } from './repeatedLines.ts'

const refusal = 'strategy: swap 0.17 USDC -> WETH: refused by custody before sending: dailySpendLimit: spent'

/** Everything the printer prints for the lines, then for the end of the stream. */
function printed(lines: string[], indent = ''): string[] {
  const p = new RepeatedLines(indent)
  return [...lines.flatMap((l) => p.next(l)), ...p.flush()]
}

describe('RepeatedLines', () => {
  it('prints a repeated refusal once, then its count when another line comes', () => {
    expect(printed([refusal, refusal, refusal, 'strategy: swap executed in 0xabc'])).toEqual([
      refusal,
      '… refused ×3',
      'strategy: swap executed in 0xabc',
    ])
  })

  it('prints the count of a run still open at the end (the death), with the console indent', () => {
    expect(
      printed(
        Array.from({ length: 37 }, () => refusal),
        '   ',
      ),
    ).toEqual([refusal, '   … refused ×37'])
  })

  it('prints lines that differ, and a refusal that comes back after another line, each in full with no count', () => {
    const lines = ['strategy: swap executed in 0x1', refusal, 'strategy: swap executed in 0x2', refusal]
    expect(printed(lines)).toEqual(lines)
  })

  it('names failures as failures, and anything else as repeated', () => {
    expect(printed(['strategy beat failed: feed stale', 'strategy beat failed: feed stale'])).toEqual([
      'strategy beat failed: feed stale',
      '… failed ×2',
    ])
    expect(printed(['same', 'same', 'other'])).toEqual(['same', '… repeated ×2', 'other'])
  })

  it('starts fresh after a flush: the same line is printed again and counted anew', () => {
    const p = new RepeatedLines()
    expect([...p.next(refusal), ...p.next(refusal), ...p.flush(), ...p.next(refusal), ...p.flush()]).toEqual([
      refusal,
      '… refused ×2',
      refusal,
    ])
  })

  it('counts refusals for the same reason together when the requests differ (keyed by the reason)', () => {
    const p = new RepeatedLines()
    const line = (bps: number) =>
      `strategy: swap 0.02 USDC -> WETH (min out ${bps} bps under the feed): refused by custody before sending: golemPhase: not registered`
    const lines = [line(50), line(50), line(300), line(50)]
    expect([...lines.flatMap((l) => p.next(l, refusalKey(l))), ...p.flush()]).toEqual([line(50), '… refused ×4'])
    expect(refusalKey('strategy: swap 1 USDC -> WETH: executed in 0xabc (block 7)')).toBe(
      'strategy: swap 1 USDC -> WETH: executed in 0xabc (block 7)',
    )
  })
})
