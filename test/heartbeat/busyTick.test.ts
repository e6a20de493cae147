// A busy tick (a new period: the Golem redeems its runway) makes few DynamoDB requests, counted on the wire
// by the recording stand-in in front of dynalite: the lease, the slot's claim with the signed transaction
// (one write, before the broadcast), the RunwayRedeemed event, and the outcome on the record, which stands
// for the slot's completion (the slot is left `sent`). No read: the heartbeat hands over the record, the record's last tick says no earlier tick
// left a slot open, the record is written on the version the tick already knows, and a Golem granted no
// actions has no action grant to read. A Golem with an action grant reads it once (is a close-all due?).
// The heartbeat's own reads (its walk) are not the tick's and go around the stand-in.
import type { Address } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import type { TickInvoker, TickRequest } from '../../app/heartbeat/handOver.ts'
import { runTick } from '../../app/tick/runTick.ts'
import type { TickResult } from '../../app/tick/types.ts'
import { DynamoStore } from '../../adapters/store/index.ts'
import { documentClient, localDynamoClient } from '../../local/dynalite.ts'
import { startDynamoRecorder, type DynamoRecorder } from '../lambda/dynamoRecorder.ts'
import { provisionFleet } from './fleet.ts'
import { DAY, passStaggerOffsets, redemptionsBy, startHeartbeatEnv, USDC, WHOLE_RUNWAY_ON_KEY, type HeartbeatEnv } from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

/** DynamoDB requests one busy tick may make: a Golem granted no actions, and one with an action grant. */
const BUSY_TICK_REQUESTS = 4
const BUSY_TICK_REQUESTS_WITH_ACTIONS = 5
const READS: ReadonlySet<string> = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan'])

let env: HeartbeatEnv
let recorder: DynamoRecorder
const keys = new Map<string, Address>()
/** Each busy tick: its result and the DynamoDB operations it sent, in order. */
const ticks: { result: TickResult; operations: string[] }[] = []

beforeAll(async () => {
  env = await startHeartbeatEnv()
  recorder = await startDynamoRecorder(env.dynalite.endpoint)
  const fleet = await provisionFleet({
    devnet: env.devnet,
    store: env.store,
    signers: env.signers,
    owner: await env.devnet.createOwner(),
    count: 2,
    idPrefix: 'busy',
    periodAmount: USDC(10),
    keyCeiling: WHOLE_RUNWAY_ON_KEY,
  })
  for (const g of fleet) keys.set(g.golemId, g.golemKey)
  keys.set('acting', (await provisionGolemIn(env, 'acting', { keyCeiling: WHOLE_RUNWAY_ON_KEY })).golemKey)
  await passStaggerOffsets(env.devnet, [...keys.keys()])
  const recorded = localDynamoClient(recorder.endpoint)
  let counted = false
  const invoker: TickInvoker = {
    async invoke(requests: readonly TickRequest[]) {
      // One at a time, so that each tick's requests are its own.
      for (const request of requests) {
        // A fresh store a tick, as a cold tick process has: nothing it knows from an earlier tick.
        const store = new DynamoStore({ client: documentClient(recorded), tableName: env.tableName })
        const before = recorder.operations.length
        const result = await runTick(env.deps(undefined, { store }), request)
        if (counted) ticks.push({ result, operations: recorder.operations.slice(before) })
      }
    },
  }
  const beat = () => runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker })
  // The first period's redemptions are the warm-up; then three new periods, each a busy tick per Golem.
  await beat()
  counted = true
  for (let day = 0; day < 3; day++) {
    await env.devnet.increaseTime(DAY)
    await beat()
  }
  recorded.destroy()
}, 180_000)
afterAll(async () => {
  await recorder?.stop()
  await env?.stop()
})

describe('a busy tick', () => {
  it('redeems each Golem runway once each new period', async () => {
    expect(ticks).toHaveLength(9)
    for (const [i, t] of ticks.entries()) expect(t.result.redemption?.status, `tick ${i} (${t.result.golemId})`).toBe('confirmed')
    for (const [golemId, key] of keys) {
      const onChain = await redemptionsBy(env.client, env.devnet.deployment.environment.DelegationManager, key)
      expect(onChain, golemId).toHaveLength(4)
    }
  })

  it(`makes at most ${BUSY_TICK_REQUESTS} DynamoDB requests when the Golem is granted no actions, none of them a read`, () => {
    const plain = ticks.filter((t) => t.result.golemId !== 'acting' && !t.result.phase)
    expect(plain.length).toBeGreaterThan(0)
    for (const t of plain) {
      const what = `${t.result.golemId}: ${t.operations.join(', ')}`
      expect(t.operations.length, what).toBeLessThanOrEqual(BUSY_TICK_REQUESTS)
      expect(
        t.operations.filter((o) => READS.has(o)),
        what,
      ).toEqual([])
    }
  })

  it(`makes at most ${BUSY_TICK_REQUESTS_WITH_ACTIONS} with an action grant, whose log is the one read`, () => {
    const acting = ticks.filter((t) => t.result.golemId === 'acting' && !t.result.phase)
    expect(acting.length).toBeGreaterThan(0)
    for (const t of acting) {
      const what = t.operations.join(', ')
      expect(t.operations.length, what).toBeLessThanOrEqual(BUSY_TICK_REQUESTS_WITH_ACTIONS)
      expect(
        t.operations.filter((o) => READS.has(o)),
        what,
      ).toEqual(['Query'])
    }
  })
})
