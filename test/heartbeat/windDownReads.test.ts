// Wind-down's reads of the owner's liquidity, counted on the wire: a close-all reads every granted
// manager's position count, then the ids, then positions(tokenId), each step one multicall for every
// position at once, so a close-all costs as many JSON-RPC requests with three positions as with one. On
// anvil and dynalite; nothing is sent (the wind-down has no signer), only read.
import { createPublicClient, type Address, type PublicClient } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { executeAction } from '../../app/actions/executeAction.ts'
import { slotBaseOf } from '../../app/tick/slots.ts'
import { windDown, type WindDownResult } from '../../app/tick/windDown.ts'
import { Phase } from '../../core/lifecycle/phase.ts'
import type { ProvisionedGolem } from '../../local/provision.ts'
import { USDC, freshFeeds, startHeartbeatEnv, type HeartbeatEnv } from './harness.ts'
import { deployPositionManager, mintWeth, provideUsdcWeth } from './liquidity.ts'
import { countingTransport } from '../../bench/lib/countingTransport.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const ID = 'lp-reads'
const LP_USDC = USDC(5)
const LP_WETH = 10n ** 18n / 600n

type Counts = Map<string, number>

/** A client on the devnet with every request counted by method. */
const countingClient = (env: HeartbeatEnv, counts: Counts): PublicClient =>
  createPublicClient({ chain: env.devnet.chain, transport: countingTransport(env.devnet.rpcUrl, counts) }) as PublicClient

let env: HeartbeatEnv
let golem: ProvisionedGolem
let manager: Address
const reads: { counts: Counts; result: WindDownResult }[] = []

/** A close-all in Declining with no signer: every open position is read and listed, nothing is sent. */
async function closeAllRead(): Promise<{ counts: Counts; result: WindDownResult }> {
  const counts: Counts = new Map()
  const deps = env.deps('reads', { client: countingClient(env, counts) })
  const block = await env.client.getBlock()
  const result = await windDown(deps, slotBaseOf(deps, Number(block.timestamp) * 1000), ID, golem.profile, {
    phase: Phase.Declining,
    scope: 'all',
    signer: { none: 'counting reads' },
  })
  return { counts, result }
}

beforeAll(async () => {
  env = await startHeartbeatEnv()
  const assets = env.devnet.deployment.assets
  manager = await deployPositionManager(env)
  const owner = await env.devnet.createOwner({ usdc: USDC(1_000) })
  await mintWeth(env, owner.address, 10n ** 18n)
  golem = await provisionGolemIn(env, ID, {
    owner,
    strategy: 'Provide liquidity to the USDC/WETH pool and collect the fees.\nbudget: $50/day',
    runwayDays: 14,
    protocols: { positionManager: manager },
  })
  await freshFeeds(env)
  const act = (requestId: string, actions: Parameters<typeof executeAction>[1]['actions']) =>
    executeAction(
      { store: env.store, client: env.client, deployment: env.devnet.deployment, signers: env.signers, invocationId: `test-${requestId}` },
      { golemId: ID, requestId, actions },
    )
  const provide = (fee: number) => provideUsdcWeth({ manager, assets, fee, usdc: LP_USDC, weth: LP_WETH, minBps: 10_000n })
  // One position, read; then two more, read again.
  const first = await act('first', [
    { kind: 'approve', token: assets.usdc, spender: manager, amount: 3n * LP_USDC },
    { kind: 'approve', token: assets.weth, spender: manager, amount: 3n * LP_WETH },
    provide(3_000),
  ])
  expect(first.status).toBe('executed')
  reads.push(await closeAllRead())
  expect((await act('more', [provide(500), provide(3_000)])).status).toBe('executed')
  reads.push(await closeAllRead())
}, 300_000)
afterAll(async () => env?.stop())

describe("a close-all's liquidity reads", () => {
  it('find every position: one, then three', () => {
    const liquidity = reads.map((r) => r.result.leftOpen.filter((o) => o.kind === 'liquidity').map((o) => 'tokenId' in o && o.tokenId))
    expect(liquidity).toEqual([['1'], ['1', '2', '3']])
    for (const r of reads) expect(r.result.pending).toBeNull()
  })

  it('cost the same JSON-RPC requests for three positions as for one: three multicalls, not one call per position', () => {
    const [one, three] = reads.map((r) => r.counts)
    expect(three).toEqual(one)
    // Two allowances (USDC and WETH to the manager) and the three liquidity multicalls.
    expect(Object.fromEntries(one!)).toEqual({ eth_call: 5 })
  })
})
