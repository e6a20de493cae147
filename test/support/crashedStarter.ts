// A process that starts a child and then dies of an uncaught error without stopping it: what is left of
// the child once the starter is gone.
import { spawn } from 'node:child_process'
import { expect } from 'vitest'
import { processAlive } from '../../local/processAlive.ts'

/**
 * Runs `start` (module code, run from the repository's root with TypeScript loaded; it resolves to the
 * child's pid) in a process of its own that then throws, and answers the pid once that process is gone.
 */
export async function pidLeftByCrashedStarter(start: string): Promise<number> {
  const code = `Promise.resolve().then(async () => { ${start} }).then((pid) => {
    process.stdout.write(pid + '\\n')
    throw new Error('the starter crashed')
  })`
  const starter = spawn(process.execPath, ['--import', 'tsx', '-e', code], {
    cwd: new URL('../..', import.meta.url),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  starter.stdout.on('data', (d: Buffer) => {
    out += d.toString()
  })
  starter.stderr.on('data', (d: Buffer) => {
    err = (err + d.toString()).slice(-2000)
  })
  const exitCode = await new Promise<number | null>((resolve) => starter.once('exit', resolve))
  expect(exitCode).not.toBe(0)
  const pid = Number(out.trim())
  expect(Number.isSafeInteger(pid) && pid > 0, `the starter printed a pid: ${JSON.stringify(out)} ${err}`).toBe(true)
  return pid
}

/** The process is gone within a few seconds (killed as its starter exited); killed here should it not be. */
export async function expectGone(pid: number): Promise<void> {
  try {
    // A SIGKILL sent as the starter exited takes the process down shortly after.
    for (let i = 0; i < 100 && processAlive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(processAlive(pid)).toBe(false)
  } finally {
    if (processAlive(pid)) process.kill(pid, 'SIGKILL')
  }
}
