import { describe, expect, it } from 'vitest'
import { beside } from './beside.ts'

describe('beside', () => {
  it('hands back what started, and the stop registered at once stops it after the start settles', async () => {
    const stops: (() => Promise<void>)[] = []
    const stopped: string[] = []
    let finish!: (value: string) => void
    const running = beside(new Promise<string>((resolve) => (finish = resolve)), stops, async (v) => void stopped.push(v))
    expect(stops).toHaveLength(1)
    // Stopped while it still starts: the stop waits for it, then stops it.
    const stopping = stops[0]!()
    finish('indexer')
    await stopping
    expect(await running).toBe('indexer')
    expect(stopped).toEqual(['indexer'])
  })

  it('lets a failure reach whoever awaits it, never as an unhandled rejection, and its stop has nothing to stop', async () => {
    const unhandled: unknown[] = []
    const onUnhandled = (e: unknown) => unhandled.push(e)
    process.on('unhandledRejection', onUnhandled)
    try {
      const stops: (() => Promise<void>)[] = []
      const stopped: unknown[] = []
      const running = beside(Promise.reject(new Error('ponder did not start')), stops, async (v) => void stopped.push(v))
      await new Promise((resolve) => setTimeout(resolve, 10))
      await expect(running).rejects.toThrow('ponder did not start')
      await stops[0]!()
      expect(stopped).toEqual([])
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
  })

  it('without a stop, the registered stop only waits for it to settle', async () => {
    const stops: (() => Promise<void>)[] = []
    let settled = false
    beside(new Promise<void>((resolve) => setTimeout(() => resolve((settled = true) && undefined), 20)), stops)
    await stops[0]!()
    expect(settled).toBe(true)
  })
})
