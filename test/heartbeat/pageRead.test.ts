// A heartbeat page read on a chain that holds the code-size rules every public chain holds (the devnet's
// anvil keeps its defaults): 200 Golems' state in one deployless multicall, split into requests within
// the 48 KiB of creation code a node runs, with results far past the 24 KiB a creation may return. Each
// Golem's state is what a read of it alone gives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readGolems } from '../../adapters/chain/readGolems.ts'
import { readRequestOf } from '../../core/lifecycle/observation.ts'
import { startHeartbeatEnv, type HeartbeatEnv } from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

let env: HeartbeatEnv
beforeAll(async () => {
  env = await startHeartbeatEnv()
})
afterAll(async () => env?.stop())

describe('a heartbeat page of 200 Golems', () => {
  it('reads every Golem at the page block, each as it reads alone', async () => {
    const golem = await provisionGolemIn(env, 'page')
    const request = readRequestOf('page', golem.profile)
    const block = await env.client.getBlock({ blockTag: 'latest' })
    const at = { number: block.number, timestamp: block.timestamp }
    const alone = await readGolems(env.client, env.devnet.deployment, [request], at)
    const requests = Array.from({ length: 200 }, (_, i) => ({ ...request, golemId: `page-${i}` }))
    const page = await readGolems(env.client, env.devnet.deployment, requests, at)
    expect(page.blockNumber).toBe(block.number)
    expect(page.golems).toHaveLength(200)
    for (const [i, g] of page.golems.entries()) expect(g).toEqual({ ...alone.golems[0]!, golemId: `page-${i}` })
    expect(alone.golems[0]).toMatchObject({ registered: true, dead: false, disabled: false })
  })
})
