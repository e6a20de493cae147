// Keeps one child process of the local stack running: starts it, waits until it says it is ready, and
// starts it again (same command, same port, same data) whenever it exits without being asked to — a
// SIGKILL, an out-of-memory kill, a crash. stop() ends it for good. The child's lines go to `onLine`.
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { LocalStackError } from './errors.ts'

export type SupervisedProcess = {
  /** The running child's pid (a new one after each restart). */
  readonly pid: number | undefined
  /** How many times the child was started again after an exit nobody asked for. */
  readonly restarts: number
  stop(): Promise<void>
}

export type SuperviseOptions = {
  /** A name for errors and lines: `dynalite`. */
  name: string
  command: string
  args: string[]
  env?: NodeJS.ProcessEnv
  /** True for the line that says the child is ready to serve. */
  ready: (line: string) => boolean
  readyTimeoutMs?: number
  onLine?: (line: string) => void
  /** Called after each restart once the child is ready again. */
  onRestart?: (restarts: number) => void
}

export async function supervise(o: SuperviseOptions): Promise<SupervisedProcess> {
  let child: ChildProcess | undefined
  let stopping = false
  let restarts = 0

  const startOnce = () =>
    new Promise<ChildProcess>((resolve, reject) => {
      // Its own process group: a Ctrl-C at the terminal reaches the runner, which stops the child itself,
      // and never the child first (its exit would look like a crash and be restarted).
      const c = spawn(o.command, o.args, { env: o.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
      const timer = setTimeout(() => {
        c.kill('SIGKILL')
        reject(new LocalStackError('SUPERVISOR', `${o.name}: not ready after ${o.readyTimeoutMs ?? 30_000} ms`))
      }, o.readyTimeoutMs ?? 30_000)
      let ready = false
      for (const stream of [c.stdout!, c.stderr!])
        createInterface({ input: stream }).on('line', (line) => {
          if (!ready && o.ready(line)) {
            ready = true
            clearTimeout(timer)
            resolve(c)
          }
          o.onLine?.(line)
        })
      c.once('error', (e) => {
        clearTimeout(timer)
        reject(e)
      })
      c.once('exit', (code, signal) => {
        if (!ready) {
          clearTimeout(timer)
          reject(new LocalStackError('SUPERVISOR', `${o.name}: exited before it was ready (${signal ?? code})`))
        }
      })
    })

  const watch = (c: ChildProcess) => {
    c.once('exit', () => {
      if (stopping || child !== c) return
      void restart()
    })
  }
  const restart = async (): Promise<void> => {
    for (let attempt = 0; !stopping; attempt++) {
      try {
        const next = await startOnce()
        if (stopping) {
          next.kill('SIGTERM')
          return
        }
        child = next
        restarts++
        watch(child)
        o.onRestart?.(restarts)
        return
      } catch (e) {
        o.onLine?.(`${o.name}: restart failed: ${e instanceof Error ? e.message : String(e)}`)
        await new Promise((r) => setTimeout(r, Math.min(2000, 100 * 2 ** attempt)))
      }
    }
  }

  child = await startOnce()
  watch(child)
  // A runner that exits without stopping it (an uncaught error) would leave the child running, in its own
  // process group, serving nobody; a signal that kills the runner outright still can.
  const killWithRunner = () => child?.kill('SIGKILL')
  process.once('exit', killWithRunner)
  return {
    get pid() {
      return child?.pid
    },
    get restarts() {
      return restarts
    },
    async stop() {
      stopping = true
      process.off('exit', killWithRunner)
      const c = child
      if (!c || c.exitCode !== null || c.signalCode !== null) return
      await new Promise<void>((resolve) => {
        c.once('exit', () => resolve())
        c.kill('SIGTERM')
        setTimeout(() => c.kill('SIGKILL'), 5_000).unref()
      })
    },
  }
}
