// A phase post re-broadcast and not mined yet when its tick looks for the receipt. The Golem's last day:
// its tick's post of Terminal never reached the node (the send was dropped, the tick threw); the next
// tick finds the post's slot `sent` with nothing mined, re-broadcasts the same signed bytes and looks
// once for a receipt the node does not have yet (anvil mines a plain send a moment after it answers; here
// it mines only when told, once the tick has looked). That tick must wait for the receipt and act on the
// post: record it, and run the death protocol. Ending instead on the phase it started from, with a
// settled outcome, left the Golem alive with Terminal on-chain and Conservation in the store, never
// deregistered: the fault suite's rounds stop for a Golem once its tick of the day settled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TickResult } from '../../app/tick/types.ts'
import { Phase } from '../../core/lifecycle/phase.ts'
import { deregistrations } from './harness.ts'
import { expectPhasesAsOnChain, startLastDay, type LastDay } from './lastDay.ts'

let day: LastDay
/** The results of the last day's ticks, in order. */
const lastDay: TickResult[] = []
let rebroadcastWaited = false
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

beforeAll(async () => {
  // The last day. 1: the post of Terminal is dropped before the node sees it; the tick throws.
  day = await startLastDay('inflight')
  const { env, proxy, rpc, beat } = day
  lastDay.push(...day.lostPost)
  // 2: past the lease, with the node mining only when told: the next tick re-broadcasts the signed post and
  // finds no receipt at once; once it waits for one (the watcher's first block read, after the look), a
  // block is mined.
  await env.devnet.increaseTime(30)
  await rpc('evm_setAutomine', [false])
  // Which call came after which, from the proxy's order of calls: the tick may make both calls between
  // two looks of this loop.
  const sentAt = () => proxy.stats.lastCall.eth_sendRawTransaction ?? 0
  const blockReadAt = () => proxy.stats.lastCall.eth_blockNumber ?? 0
  const sentBefore = sentAt()
  let ended = false
  const ticking = beat().finally(() => {
    ended = true
  })
  while (!ended && sentAt() === sentBefore) await sleep(5)
  while (!ended && blockReadAt() < sentAt()) await sleep(5)
  rebroadcastWaited = !ended
  await rpc('evm_setAutomine', [true])
  await env.devnet.mine()
  lastDay.push(...(await ticking))
}, 120_000)
afterAll(async () => {
  await day?.stop()
})

describe('a phase post re-broadcast from its slot and not mined yet', () => {
  it('is waited for: the tick records the post and runs the death protocol to the end', async () => {
    const { env, golem, errors } = day
    expect(rebroadcastWaited).toBe(true)
    expect(errors).toHaveLength(1)
    expect(lastDay).toHaveLength(1)
    expect(lastDay[0]).toMatchObject({ outcome: 'died', phase: { from: Phase.Conservation, to: Phase.Terminal, posted: true } })
    expect(await env.store.getGolem(golem.golemId)).toMatchObject({ status: 'dead', phase: 'Terminal' })
    const deregistered = await deregistrations(env, golem.golemKey)
    expect(deregistered).toHaveLength(1)
    expect((await env.store.getDeathSettlement(golem.golemId))?.settlement).toMatchObject({
      finalPhase: 'Terminal',
      deregisterTx: deregistered[0]!.transactionHash,
    })
  })

  it('writes the post once in the store, as the chain has it', async () => {
    await expectPhasesAsOnChain(day)
  })
})
