// A phase post that can never land. The Golem's last day: its tick's post of Terminal never reached the
// node (the send was dropped, the tick threw), and another transaction of the key took the post's nonce
// before the next tick (here one the test sends as the key; on a chain, a reorg that drops the post and a
// next send that reuses its nonce, or a node that evicts it from its pool). The next tick finds the post's
// slot `sent`, no receipt and the nonce used: the slot settles `reconciled`, and a completed slot is never
// claimed again. The post must go on under its next attempt's slot and the Golem die; before, every later
// tick found the slot completed, posted nothing and recorded `skipped`, and the Golem lived on with its
// runway on the key (the soak's "alive; last tick skipped").
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TickResult } from '../../app/tick/types.ts'
import { Phase } from '../../core/lifecycle/phase.ts'
import { attemptStep } from '../../core/lifecycle/tickPlan.ts'
import { deregistrations } from './harness.ts'
import { expectPhasesAsOnChain, startLastDay, type LastDay } from './lastDay.ts'

let day: LastDay
/** The results of the ticks after the key's nonce was taken, in order. */
const after: TickResult[] = []

beforeAll(async () => {
  // The last day. 1: the post of Terminal is dropped before the node sees it; the tick throws.
  day = await startLastDay('spentpost')
  const { env, golem, rpc, beat } = day
  // 2: another transaction of the key takes the post's nonce.
  await rpc('anvil_impersonateAccount', [golem.golemKey])
  await rpc('eth_sendTransaction', [{ from: golem.golemKey, to: golem.golemKey, value: '0x0' }])
  await rpc('anvil_stopImpersonatingAccount', [golem.golemKey])
  // 3: past the lease, the next ticks.
  for (let i = 0; i < 3 && after.every((r) => r.outcome !== 'died'); i++) {
    await env.devnet.increaseTime(3_600)
    after.push(...(await beat()))
  }
}, 180_000)
afterAll(async () => {
  await day?.stop()
})

describe('a phase post whose nonce another transaction took', () => {
  it('is sent again under its next attempt: the tick that finds the first spent posts Terminal and runs the death protocol', async () => {
    const { env, golem, errors } = day
    expect(errors).toHaveLength(1)
    expect(after).toHaveLength(1)
    expect(after[0]).toMatchObject({ outcome: 'died', phase: { from: Phase.Conservation, to: Phase.Terminal, posted: true } })
    expect(await env.store.getGolem(golem.golemId)).toMatchObject({ status: 'dead', phase: 'Terminal' })
    const step = `phase-${Phase.Terminal}`
    expect(await env.store.getSlot({ golemId: golem.golemId, period: 0n, step })).toMatchObject({
      status: 'reconciled',
      detail: { why: 'nonce-used' },
    })
    expect(await env.store.getSlot({ golemId: golem.golemId, period: 0n, step: attemptStep(step, 2) })).toMatchObject({
      status: 'confirmed',
    })
    const deregistered = await deregistrations(env, golem.golemKey)
    expect(deregistered).toHaveLength(1)
  })

  it('writes the post once in the store, as the chain has it', async () => {
    await expectPhasesAsOnChain(day)
  })
})
