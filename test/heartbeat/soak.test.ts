// A short soak (test/heartbeat/soak.ts) as part of the suite: three Golems live three-day lives through
// RPC faults (a quarter of requests dropped, delayed, failed or answered never, sends that land
// unanswered included), reorganisations that drop the chain's last 1-3 blocks and ticks SIGKILLed
// mid-tick in processes of their own, and die. The chain
// then judges each one: every USDC the owner's account sent the key came home or is accounted for,
// no period redeemed twice, no redemption the store records missing from the chain.
import { describe, expect, it } from 'vitest'
import { checkSoakOptions, runSoak, soakLines } from './soak.ts'

describe('the soak, short', () => {
  it('holds through RPC faults, reorgs and killed ticks: every Golem dies with its money conserved, nothing doubled or lost', async () => {
    const report = await runSoak({ golems: 3, minutes: 8, runwayDays: 3, reorgRate: 0.1, killRate: 0.3 })
    // Every assertion carries the whole report (each Golem alive, halted or dead, its money, the failed
    // ticks by reason), so a failure says which Golem broke and how.
    const said = soakLines(report).join('\n')
    expect(report.reorgs.count, said).toBeGreaterThan(0)
    expect(report.kills.killed, said).toBeGreaterThan(0)
    for (const kind of ['drop', 'delay', 'fail', 'loseResponse'] as const)
      expect(report.rpc.byKind[kind], `${kind}\n${said}`).toBeGreaterThan(0)
    expect(report.deaths, said).toBe(3)
    for (const a of report.accounts)
      expect(a, `${a.golemId}\n${said}`).toMatchObject({ conserved: true, doubled: 0, lost: 0, dead: true, held: 0n })
    expect(report.held, said).toBe(true)
  }, 600_000)

  it('refuses options out of range, naming the field and the rule', () => {
    expect(() => checkSoakOptions({ golems: 0, minutes: 1 })).toThrow('golems: must be a whole number from 1 to 2000')
    expect(() => checkSoakOptions({ golems: 2, minutes: 0 })).toThrow('minutes: must be more than 0 and at most 1440')
    expect(() => checkSoakOptions({ golems: 2, minutes: 1, runwayDays: 0.5 })).toThrow('runwayDays: must be a whole number from 1 to 30')
    expect(() => checkSoakOptions({ golems: 2, minutes: 1, reorgRate: 2 })).toThrow('reorgRate: must be from 0 to 1')
    expect(() => checkSoakOptions({ golems: 2, minutes: 1, killRate: -0.1 })).toThrow('killRate: must be from 0 to 1')
  })
})
