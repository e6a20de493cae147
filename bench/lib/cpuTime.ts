// CPU time spent by this process and by the chain's process (anvil) over a phase of a benchmark, so a
// throughput figure can say where its time went: in the chain, or in the ticks and the store.
import { readFileSync } from 'node:fs'

/** Clock ticks per second in /proc/<pid>/stat (USER_HZ: 100 on every Linux architecture Node supports). */
const USER_HZ = 100

/** This process's CPU time (user and system, every thread), in milliseconds. */
export function processCpuMs(): number {
  const used = process.cpuUsage()
  return (used.user + used.system) / 1000
}

/**
 * A process's CPU time from the text of its /proc/<pid>/stat: utime and stime, the 14th and 15th
 * fields. The command name (the 2nd) is in parentheses and may hold spaces, so fields are counted after
 * its closing one.
 */
export function cpuMsOfProcStat(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const utime = Number(fields[11])
  const stime = Number(fields[12])
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error(`/proc stat: no utime and stime in "${stat.slice(0, 80)}"`)
  return ((utime + stime) * 1000) / USER_HZ
}

/** Another process's CPU time in milliseconds; null where /proc cannot tell (not Linux, or it is gone). */
export function childCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null
  let stat: string
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return null
  }
  return cpuMsOfProcStat(stat)
}
