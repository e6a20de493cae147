// Whether a process still runs, by signal 0 (nothing is sent; only whether it could be).

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: alive, another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
