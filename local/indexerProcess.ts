// The stack's indexer under supervision: Ponder started again whenever it exits without being asked to
// (a SIGKILL, a crash), with the same PGlite directory or database, schema and port, so the API and the
// dashboard keep the URL they were given and the index resumes from what it had written: Ponder reindexes
// from its last checkpoint up to the chain's head.
import { startIndexer, type RunningIndexer, type StartIndexerOptions } from '../indexer/start.ts'
import { freePort } from '../indexer/start.ts'

export type SupervisedIndexer = {
  url: string
  /** The running Ponder process's pid (a new one after each restart). */
  readonly pid: number | undefined
  stop(): Promise<void>
}

export async function superviseIndexer(
  options: Omit<StartIndexerOptions, 'schema' | 'port'>,
  log: (line: string) => void,
): Promise<SupervisedIndexer> {
  const schema = `bardo_${Date.now().toString(36)}`
  const fixed = { ...options, schema, port: await freePort() }
  let current: RunningIndexer = await startIndexer(fixed)
  const url = current.url
  let stopping = false
  const watch = (running: RunningIndexer) =>
    running.process.once('exit', () => {
      if (stopping || current !== running) return
      void restart()
    })
  const restart = async () => {
    for (let attempt = 0; !stopping; attempt++) {
      try {
        const next = await startIndexer({ ...fixed, port: current.port })
        if (stopping) return void (await next.stop())
        current = next
        watch(next)
        log(`  indexer      restarted on ${next.url}; it catches up from its last checkpoint`)
        return
      } catch (e) {
        log(`  indexer      restart failed: ${e instanceof Error ? e.message : String(e)} (retrying)`)
        await new Promise((r) => setTimeout(r, Math.min(5_000, 250 * 2 ** attempt)))
      }
    }
  }
  watch(current)
  return {
    url,
    get pid() {
      return current.process.pid
    },
    async stop() {
      stopping = true
      await current.stop()
    },
  }
}
