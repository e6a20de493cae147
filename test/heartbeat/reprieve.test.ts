// A paid feed (x402 /feed) records a reprieve in the Golem's profile; the next tick serves it: the
// operator's audited resetPhase back to the phase the fed vitality points to, exactly once, after which
// the Golem moves forward again from there (and may post a phase it posted before its reset).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseGolemProfile } from '../../core/lifecycle/profile.ts'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import type { TickResult } from '../../app/tick/types.ts'
import { progressLine } from '../../local/consoleLines.ts'
import type { ProvisionedGolem } from '../../local/provision.ts'
import { DAY, USDC, allEvents, creditGolem, phaseTransitions, startHeartbeatEnv, type HeartbeatEnv } from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY =
  '---\nname: fed-golem\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 30\n---\n\nSwap a little USDC into WETH every day.\n'

let env: HeartbeatEnv
let golem: ProvisionedGolem
let invoker: LocalInvoker
const errors: unknown[] = []

const beat = async (): Promise<TickResult> => {
  const before = invoker.results.length
  await runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker })
  expect(invoker.results.length - before).toBe(1)
  return invoker.results.at(-1)!
}

beforeAll(async () => {
  env = await startHeartbeatEnv()
  const owner = await env.devnet.createOwner()
  golem = await provisionGolemIn(env, 'fed', {
    owner,
    strategy: STRATEGY,
    runwayDays: 30,
  })
  invoker = new LocalInvoker((id) => env.deps(id), { onError: (_id, e) => errors.push(e) })
})
afterAll(async () => env?.stop())

describe('reprieve', () => {
  it('resets a Declining Golem to the phase its fed vitality points to, once, and it moves on from there', async () => {
    let r = await beat()
    for (let day = 1; day <= 26; day++) {
      await env.devnet.increaseTime(DAY)
      r = await beat()
    }
    expect(parseGolemProfile((await env.store.getGolem('fed'))!.profile).reprieve).toBeUndefined()
    const before = await phaseTransitions(env.client, env.devnet.deployment.vitalityOracle, golem.golemKey)
    expect(before.map((t) => t.to)).toEqual([1, 2, 3])

    // Fed 11 more days of runway at day 27: at day 28 economic 13/30, vitality ~0.52, so the operator
    // resets Declining -> Stable (docs/vitality.md thresholds).
    await creditGolem(env, 'fed', { kind: 'feed', seconds: 11n * BigInt(DAY), amount: USDC(12), nonceByte: 'ab' })
    await env.devnet.increaseTime(DAY)
    r = await beat()
    expect(errors).toEqual([])
    const after = (await env.store.getGolem('fed'))!
    const profile = parseGolemProfile(after.profile)
    expect(profile.reprieve).toBeUndefined()
    expect(profile.phaseEpoch).toBe(1)
    expect(after.phase).toBe('Stable')
    const events = await allEvents(env.store, 'fed')
    expect(events.filter((e) => e.type === 'PhaseReset')).toHaveLength(1)
    expect(r.outcome).toBe('ticked')
    // The tick and its console line name the move back as what it is: a feed's reprieve.
    expect(r.reprieve).toEqual({ from: 3, to: 1 })
    expect(r.vitals).toMatchObject({ phase: 'Stable', change: { kind: 'reprieve', from: 'Declining', to: 'Stable' } })
    expect(progressLine(0, r, { redeemedTotal: 0n })).toContain('reprieve Declining -> Stable (fed)')

    // Later ticks do not reset again, and the Golem can post Conservation a second time (new epoch,
    // at day 29). The feed bought runtime, not authority: when the owner's 30-day grant ends unrenewed,
    // the Golem dies by delegation expiry.
    for (let day = 0; day < 12 && r.outcome !== 'died'; day++) {
      await env.devnet.increaseTime(DAY)
      r = await beat()
    }
    expect(r.outcome).toBe('died')
    expect(await env.store.getDeathSettlement('fed')).toMatchObject({
      kind: 'DelegationExpiry',
      settlement: { expiryCause: 'NaturalExpiry', finalPhase: 'Terminal' },
    })
    // Its grant ended before Terminal: the death posted Terminal (score 0) before deregistering it.
    expect(r.vitals).toMatchObject({ lifecycle: 'dead', phase: 'Terminal', vitality: 0, livesSeconds: 0 })
    expect(progressLine(0, r, { redeemedTotal: 0n })).toMatch(/phase \w+ -> Terminal \(died\) \| vitality 0\.000 \| dead/)
    expect(errors).toEqual([])
    expect((await allEvents(env.store, 'fed')).filter((e) => e.type === 'PhaseReset')).toHaveLength(1)
    const transitions = await phaseTransitions(env.client, env.devnet.deployment.vitalityOracle, golem.golemKey)
    expect(transitions.map((t) => t.to).slice(0, 3)).toEqual([1, 2, 3])
    expect(transitions.map((t) => t.to)).toContain(2)
    expect(transitions.filter((t) => t.to === 2).length).toBe(2)
    expect(transitions.at(-1)).toMatchObject({ to: 4, survivalScore: 0 })
  }, 120_000)
})
