// The CPU split of a benchmark phase: this process's time, and another's read from /proc.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { childCpuMs, cpuMsOfProcStat, processCpuMs } from './cpuTime.ts'

describe('cpuMsOfProcStat', () => {
  it('reads utime and stime (the 14th and 15th fields) in clock ticks of 10 ms', () => {
    const stat = '4242 (anvil) S 1 4242 4242 0 -1 4194560 1234 0 0 0 850 150 0 0 20 0 12 0 100 992164 29455 18446744073709551615'
    expect(cpuMsOfProcStat(stat)).toBe(10_000)
  })

  it('counts fields after the command name, which may hold spaces and parentheses', () => {
    const stat = '7 (a (b) c) R 1 7 7 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 5 0 0'
    expect(cpuMsOfProcStat(stat)).toBe(70)
  })

  it('refuses a text without the two fields, naming what it read', () => {
    expect(() => cpuMsOfProcStat('7 (x) R 1')).toThrow(/no utime and stime/)
  })
})

describe('childCpuMs', () => {
  it('is null for no process, and for one /proc does not know', () => {
    expect(childCpuMs(undefined)).toBeNull()
    expect(childCpuMs(2 ** 30)).toBeNull()
  })

  it.runIf(existsSync('/proc/self/stat'))('grows while a child process spins', async () => {
    const child = spawn(process.execPath, ['-e', 'const end = Date.now() + 400; while (Date.now() < end);'])
    const exited = new Promise((resolve) => child.once('exit', resolve))
    const before = childCpuMs(child.pid) ?? 0
    await new Promise((resolve) => setTimeout(resolve, 300))
    const after = childCpuMs(child.pid)
    await exited
    expect(after).not.toBeNull()
    expect(after!).toBeGreaterThan(before)
  })
})

describe('processCpuMs', () => {
  it('grows as this process works', () => {
    const before = processCpuMs()
    let x = 0
    for (let i = 0; i < 2_000_000; i++) x += i % 7
    expect(x).toBeGreaterThan(0)
    expect(processCpuMs()).toBeGreaterThan(before)
  })
})
