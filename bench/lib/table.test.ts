import { describe, expect, it } from 'vitest'
import { flatten, formatDelta, formatInt, formatRatio, formatResultTable, formatTable, ratio, verdict } from './table.ts'

describe('bench table helpers', () => {
  it('groups integers and signs deltas', () => {
    expect(formatInt(150_509n)).toBe('150,509')
    expect(formatInt(-1_234_567n)).toBe('-1,234,567')
    expect(formatInt(999)).toBe('999')
    expect(formatDelta(20_317n)).toBe('+20,317')
    expect(formatDelta(-5n)).toBe('-5')
    expect(formatDelta(0n)).toBe('0')
  })

  it('computes ratios against a baseline and the goal verdict', () => {
    expect(formatRatio(ratio(205_292n, 150_509n))).toBe('1.364x')
    expect(() => ratio(1n, 0n)).toThrowError('baseline is 0')
    expect(verdict(1.25, 1.25)).toBe('PASS')
    expect(verdict(1.2501, 1.25)).toBe('MISS')
    expect(verdict(0.8, 0.8, 'atLeast')).toBe('PASS')
    expect(verdict(0.79, 0.8, 'atLeast')).toBe('MISS')
  })

  it('prints a padded markdown table with right-aligned number columns', () => {
    const table = formatTable(
      ['name', { header: 'gas', align: 'right' }],
      [
        ['bare', '150,509'],
        ['noop', '170,826'],
      ],
    )
    expect(table.split('\n')).toEqual(['| name |     gas |', '|------|--------:|', '| bare | 150,509 |', '| noop | 170,826 |'])
  })

  it('renders a result without a formatter as field/value rows', () => {
    expect(flatten({ a: 1n, b: { c: 1.23456, d: 'x' }, e: [1, 2] })).toEqual([
      ['a', '1'],
      ['b.c', '1.235'],
      ['b.d', 'x'],
      ['e', '2 item(s)'],
    ])
    expect(formatResultTable({ settleGas: 68_067n })).toContain('| settleGas | 68,067 |')
  })
})
