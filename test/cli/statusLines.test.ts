// `bardo status`'s lines: a Golem the heartbeat anomaly halted says so, with its count and the way out.
import { describe, expect, it } from 'vitest'
import { statusLines, type GolemStatus } from '../../cli/lifecycle.ts'

const status: GolemStatus = {
  golemId: 'demo',
  status: 'alive',
  halted: null,
  owner: '0x00000000000000000000000000000000000000aa',
  golemKey: '0x00000000000000000000000000000000000000bb',
  store: { phase: 'Thriving', nextTickAt: 0, lastTick: null, events: [] },
  chain: { registered: true, phase: 'Thriving', grantDisabled: false, keyEth: 0n, blockTime: 0n },
  grant: { delegationHash: `0x${'cc'.repeat(32)}`, periodAmount: 25_000_000n, periodSeconds: 60n, expiresAt: 600n, secondsLeft: 600n },
  renewals: [],
}

describe('bardo status', () => {
  it('says nothing of a halt for a Golem that ticks', () => {
    expect(statusLines(status).join('\n')).not.toMatch(/HALTED/)
  })

  it('names a halt, its count and bardo resume', () => {
    const lines = statusLines({ ...status, halted: { failures: 5 } })
    expect(lines[1]).toBe('  HALTED    after 5 failed tick(s) in a row: no tick runs but its death; bardo resume once the cause is fixed')
  })
})
