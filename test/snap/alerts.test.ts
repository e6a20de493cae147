// The Snap's alert rules as a pure function: what is new, what MetaMask's 50-character native limit
// does to a long name, and which clock judges a missed heartbeat.
import { describe, expect, it } from 'vitest'
import { planAlerts } from '../../snap/src/alerts.ts'
import type { GolemStatus } from '../../snap/src/types.ts'

const NOW = 1_767_225_600
const golem = (over: Partial<GolemStatus> = {}): GolemStatus => ({
  id: 'atlas',
  name: 'Atlas',
  phase: 'Thriving',
  vitality: 0.9,
  lifecycle: 'alive',
  lastHeartbeatAt: NOW - 30,
  permission: { health: 'healthy', remaining_today: '1000000', days_remaining: 9, last_redemption_at: 0, total_remaining: '9000000' },
  ...over,
})

describe('planAlerts', () => {
  it('announces a condition when it becomes true, and again only after it stopped holding', () => {
    const declining = { golems: [golem({ phase: 'Declining' })], generatedAt: NOW }
    const first = planAlerts([], declining)
    expect(first.alerts.map((a) => a.key)).toEqual(['atlas:phase:Declining'])
    expect(planAlerts(first.active, declining).alerts).toEqual([])
    const critical = { golems: [golem({ permission: { ...golem().permission!, health: 'critical' } })], generatedAt: NOW }
    const c1 = planAlerts([], critical)
    const healed = planAlerts(c1.active, { golems: [golem()], generatedAt: NOW })
    expect(healed.active).toEqual([])
    expect(planAlerts(healed.active, critical).alerts.map((a) => a.key)).toEqual(['atlas:health:critical'])
  })

  it('keeps every native message within 50 characters by shortening the name, never the news', () => {
    const name = 'Atlas the Unreasonably Long-Named Yield Farmer of the North'
    const { alerts } = planAlerts([], {
      golems: [golem({ name, phase: 'Terminal', permission: { ...golem().permission!, health: 'revoked' } })],
      generatedAt: NOW,
    })
    expect(alerts.map((a) => a.short.length).every((n) => n <= 50)).toBe(true)
    expect(alerts[0]!.short).toMatch(/^Atlas the .*… reached Terminal$/)
    expect(alerts[1]!.short).toMatch(/^Atlas the .*…: permission revoked$/)
    expect(alerts[0]!.long).toContain(name)
  })

  it("judges a missed heartbeat by the API's clock and the Golem's interval (twice it), not the device's", () => {
    const late = golem({ lastHeartbeatAt: NOW - 121 })
    expect(planAlerts([], { golems: [late], generatedAt: NOW }).alerts.map((a) => a.key)).toEqual(['atlas:heartbeat:missed'])
    expect(planAlerts([], { golems: [golem({ lastHeartbeatAt: NOW - 120 })], generatedAt: NOW }).alerts).toEqual([])
    expect(planAlerts([], { golems: [{ ...late, heartbeatIntervalSeconds: 3600 }], generatedAt: NOW }).alerts).toEqual([])
    expect(planAlerts([], { golems: [golem({ lastHeartbeatAt: null })], generatedAt: NOW }).alerts).toEqual([])
  })

  it('reads grant renewal only when the status carries it, and lets death speak for the Terminal phase', () => {
    expect(
      planAlerts([], { golems: [golem({ grant: { renewalNeeded: true, endsAt: NOW + 86_400 } })], generatedAt: NOW }).alerts[0],
    ).toMatchObject({ key: 'atlas:grant:renewal', short: 'Atlas: renew its grant' })
    expect(planAlerts([], { golems: [golem({ grant: { endsAt: NOW + 86_400 } })], generatedAt: NOW }).alerts).toEqual([])
    const dead = planAlerts([], {
      golems: [golem({ phase: 'Terminal', lifecycle: 'dead', lastHeartbeatAt: NOW - 9_999 })],
      generatedAt: NOW,
    })
    expect(dead.alerts.map((a) => a.short)).toEqual(['Atlas has died'])
  })
})
