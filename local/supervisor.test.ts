// The supervisor starts a child again after an exit nobody asked for, and never after stop().
import { describe, expect, it } from 'vitest'
import { processAlive } from './processAlive.ts'
import { supervise } from './supervisor.ts'
import { expectGone, pidLeftByCrashedStarter } from '../test/support/crashedStarter.ts'

const child = "process.stdout.write('ready\\n'); setInterval(() => {}, 1000); process.on('SIGTERM', () => process.exit(0))"

const until = async (check: () => boolean) => {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 25))
  expect(check()).toBe(true)
}

const gone = (pid: number) => !processAlive(pid)

describe('supervise', () => {
  it('restarts a child killed with SIGKILL, and stop() ends it for good', async () => {
    const restarted: number[] = []
    const running = await supervise({
      name: 'sleeper',
      command: process.execPath,
      args: ['-e', child],
      ready: (line) => line === 'ready',
      onRestart: (n) => restarted.push(n),
    })
    const first = running.pid!
    process.kill(first, 'SIGKILL')
    await until(() => restarted.length === 1)
    const second = running.pid!
    expect(second).not.toBe(first)
    expect(running.restarts).toBe(1)
    await running.stop()
    await until(() => gone(second))
    expect(running.restarts).toBe(1)
  })

  it('fails to start a child that exits before it is ready, naming it', async () => {
    await expect(
      supervise({ name: 'quitter', command: process.execPath, args: ['-e', 'process.exit(3)'], ready: () => false }),
    ).rejects.toThrow(/quitter: exited before it was ready/)
  })

  it('kills its child when the runner exits without stopping it (an uncaught error)', async () => {
    const pid = await pidLeftByCrashedStarter(`const { supervise } = await import('./local/supervisor.ts')
      const running = await supervise({ name: 'orphan', command: process.execPath, args: ['-e', "console.log('ready'); setInterval(() => {}, 1000)"], ready: (line) => line === 'ready' })
      return running.pid`)
    await expectGone(pid)
  })
})
