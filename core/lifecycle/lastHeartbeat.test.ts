import { describe, expect, it } from 'vitest'
import { lastHeartbeatAt } from './lastHeartbeat.ts'

const T = 1_750_000_000_000
const tick = (at: number) => ({ at, period: 1n, outcome: 'confirmed', txHash: null })

describe('lastHeartbeatAt', () => {
  it("is the last walk of the Golem's shard when it was due then and its last tick is older (observed, nothing to do)", () => {
    expect(lastHeartbeatAt({ status: 'alive', nextTickAt: T + 60_000, lastTick: tick(T) }, T + 600_000)).toBe(T + 600_000)
  })

  it('is the last tick when no walk came since, or the Golem was not due at the walk', () => {
    expect(lastHeartbeatAt({ status: 'alive', nextTickAt: T + 60_000, lastTick: tick(T) }, null)).toBe(T)
    expect(lastHeartbeatAt({ status: 'alive', nextTickAt: T + 60_000, lastTick: tick(T) }, T + 30_000)).toBe(T)
  })

  it("is a dead Golem's last tick, and null for a Golem never ticked nor walked", () => {
    expect(lastHeartbeatAt({ status: 'dead', nextTickAt: T, lastTick: tick(T) }, T + 600_000)).toBe(T)
    expect(lastHeartbeatAt({ status: 'alive', nextTickAt: T, lastTick: null }, null)).toBeNull()
  })
})
