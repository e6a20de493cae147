// Starting a part of the stack while the runner goes on with the next.

/**
 * Lets `running` go on while the caller does other things. Its failure reaches whoever awaits it, never
 * as an unhandled rejection; a stop registered now waits for it to settle and stops what it started, so
 * a stack stopped halfway never stops the chain or the store under it nor leaves it running.
 */
export function beside<T>(running: Promise<T>, stops: (() => Promise<void>)[], stop?: (started: T) => Promise<void>): Promise<T> {
  running.catch(() => {})
  stops.push(async () => {
    const started = await running.then(
      (value) => ({ value }),
      () => undefined,
    )
    if (started && stop) await stop(started.value)
  })
  return running
}
