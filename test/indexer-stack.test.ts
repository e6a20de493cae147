// The indexer under the exact configuration `npm start` gives it (stackIndexerOptions, which the local
// runner calls): the demo Golem provisioned from examples/STRATEGY.md, its runway redeemed by real ticks
// and its session key rotated by the tick, then its history read back by its first key. Before this
// configuration was shared, the runner left out the framework's period enforcers and every runway
// redemption was indexed without transfers, USD value or spend rows.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseEther, type Address } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseGolemProfile } from '../core/lifecycle/profile.ts'
import { runTick } from '../app/tick/runTick.ts'
import type { TickResult } from '../app/tick/types.ts'
import { stackIndexerOptions } from '../indexer/lib/deployment.ts'
import { startIndexer, type RunningIndexer } from '../indexer/start.ts'
import { getJson, graphqlQuery, sqlQuery, waitForIndexed } from '../indexer/testing.ts'
import type { OwnerAccount } from '../local/devnet.ts'
import type { ProvisionedGolem } from '../local/provision.ts'
import { LocalKeyRotation } from '../local/rotation.ts'
import { DAY, passStaggerOffsets, redemptionsBy, startHeartbeatEnv, type HeartbeatEnv, WHOLE_RUNWAY_ON_KEY } from './heartbeat/harness.ts'
import { provisionGolemIn } from './support/provisionGolemIn.ts'

const STRATEGY = readFileSync(join(import.meta.dirname, '..', 'examples', 'STRATEGY.md'), 'utf8')
const lc = (a: string) => a.toLowerCase()

let env: HeartbeatEnv
let indexer: RunningIndexer
let owner: OwnerAccount
let demo: ProvisionedGolem
const results: TickResult[] = []

beforeAll(async () => {
  env = await startHeartbeatEnv()
  // What the runner does, minus its PGlite directory under .bardo: startIndexer makes a fresh one.
  indexer = await startIndexer(stackIndexerOptions({ rpcUrl: env.devnet.rpcUrl, deployment: env.devnet.deployment }, { local: true }))
  owner = await env.devnet.createOwner()
  demo = await provisionGolemIn(env, 'demo', {
    keyCeiling: WHOLE_RUNWAY_ON_KEY,
    owner,
    strategy: STRATEGY,
    runwayDays: 30,
  })
  // Whole days later each tick is past the Golem's stagger offset, so every period's tick redeems.
  await passStaggerOffsets(env.devnet, ['demo'])
  const rotation = new LocalKeyRotation(env.devnet.deployment, owner, env.signers, async (address: Address) => {
    await env.client.waitForTransactionReceipt({ hash: await env.devnet.deployer.sendTransaction({ to: address, value: parseEther('1') }) })
  })
  // A day a beat until the key is past its seven-day age, then two more days under the new key.
  for (let day = 0; day <= 10; day++) {
    results.push(await runTick(env.deps(`day-${day}`, { rotation }), { golemId: 'demo' }))
    await env.devnet.increaseTime(DAY)
  }
}, 240_000)

afterAll(async () => {
  await indexer?.stop()
  await env?.stop()
})

describe("the indexer under npm start's configuration", () => {
  it('indexes every runway redemption with its USDC transfer and USD value, and spend rows', async () => {
    const rotated = results.find((r) => r.rotated !== undefined)?.rotated
    expect(rotated).toMatchObject({ from: demo.golemKey })
    const keys = [demo.golemKey, rotated!.to]
    const dm = env.devnet.deployment.environment.DelegationManager
    const onChain = (await Promise.all(keys.map((k) => redemptionsBy(env.client, dm, k)))).flat()
    expect(onChain.length).toBeGreaterThanOrEqual(8)
    expect(onChain.some((r) => lc(r.redeemer) === lc(rotated!.to))).toBe(true)
    await waitForIndexed(indexer.url, await env.client.getBlockNumber())

    const usdc = lc(env.devnet.deployment.assets.usdc)
    const spend = await sqlQuery<{ golem: string; first_key: string; source: string; asset: string; amount: string; usd6: string | null }>(
      indexer.url,
      'select golem, first_key, source, asset, amount, usd6 from spend_event order by block_number',
    )
    expect(spend).toHaveLength(onChain.length)
    for (const row of spend) {
      expect(row).toMatchObject({ source: 'erc20-period', asset: usdc, first_key: lc(demo.golemKey) })
      // The devnet's USDC feed answers $1.00, so the USD value is the USDC amount.
      expect(row.usd6).toBe(row.amount)
      expect(BigInt(row.amount)).toBeGreaterThan(0n)
    }
    expect(new Set(spend.map((r) => r.golem))).toEqual(new Set(keys.map(lc)))

    const { body } = await getJson(`${indexer.url}/v1/golems/${demo.golemKey}/redemptions?limit=100`)
    expect(body.items).toHaveLength(onChain.length)
    for (const item of body.items) {
      expect(item.usd6).not.toBeNull()
      expect(item.transfers).toEqual([{ asset: usdc, amount: item.usd6, usd6: item.usd6 }])
    }
    const confirmed = results.filter((r) => r.redemption?.status === 'confirmed').reduce((sum, r) => sum + (r.redemption?.amount ?? 0n), 0n)
    expect(body.items.reduce((sum: bigint, i: { usd6: string }) => sum + BigInt(i.usd6), 0n)).toBe(confirmed)
  })

  it('keeps one first key across the rotation: any key answers with the whole life', async () => {
    const rotated = results.find((r) => r.rotated !== undefined)!.rotated!
    const id = lc(demo.golemKey)
    for (const key of [demo.golemKey, rotated.to]) {
      const { body } = await getJson(`${indexer.url}/v1/golems/${key}`)
      expect(body.firstKey).toBe(id)
      expect(body.lineage).toEqual([lc(rotated.to), id])
      expect(body.current).toMatchObject({ address: lc(rotated.to), firstKey: id, registered: true, dead: false })
    }
    const { body: old } = await getJson(`${indexer.url}/v1/golems/${demo.golemKey}`)
    expect(old.golem).toMatchObject({ dead: true, rotatedTo: lc(rotated.to) })
    // A rotation retires a key; the Golem itself is alive.
    expect(old.death).toBeNull()

    // The owner's first grant and the renewal the rotation signed to the new key, under one first key.
    const record = parseGolemProfile((await env.store.getGolem('demo'))!.profile!)
    const grants = (await getJson(`${indexer.url}/v1/golems/${rotated.to}/grants`)).body
    expect(grants.items.map((g: Record<string, string | null>) => [g.hash, g.delegate, g.kind, g.status, g.supersededBy])).toEqual([
      [demo.runway.hash, id, 'grant', 'superseded', record.runway.periodDelegationHash],
      [record.runway.periodDelegationHash, lc(rotated.to), 'renewal', 'active', null],
    ])
    expect(grants.items[0].delegator).toBe(lc(owner.address))

    // Spend per period across both keys, from either key; each row with its USD value.
    const fromOld = (await getJson(`${indexer.url}/v1/golems/${demo.golemKey}/spend/periods?limit=100`)).body
    const fromNew = (await getJson(`${indexer.url}/v1/golems/${rotated.to}/spend/periods?limit=100`)).body
    expect(fromNew.items).toEqual(fromOld.items.map((p: object) => ({ ...p, golem: lc(rotated.to) })))
    expect(fromOld.items.length).toBeGreaterThanOrEqual(8)
    for (const period of fromOld.items) {
      expect(period).toMatchObject({ source: 'erc20-period', firstKey: id, eventCount: 1 })
      expect(period.usd6).toBe(period.amount)
      expect(BigInt(period.periodEnd) - BigInt(period.periodStart)).toBe(86_400n)
    }
    const daily = (await getJson(`${indexer.url}/v1/golems/${rotated.to}/spend/daily?from=1970-01-01&to=1970-01-02`)).body
    expect(daily.firstKey).toBe(id)

    // GraphQL: one filter on the first key finds both keys' rows.
    const data = await graphqlQuery(
      indexer.url,
      `query($id: String!) { spendEvents(where: { firstKey: $id }) { totalCount items { usd6 golem { address } } }
        redemptions(where: { firstKey: $id }) { totalCount } golems(where: { firstKey: $id }) { items { address dead } } }`,
      { id },
    )
    expect(new Set(data.spendEvents.items.map((s: { golem: { address: string } }) => s.golem.address))).toEqual(
      new Set([id, lc(rotated.to)]),
    )
    expect(data.redemptions.totalCount).toBe(data.spendEvents.totalCount)
    expect(data.golems.items).toHaveLength(2)
  })

  it("reads what the current runway grant still allows from its enforcers' views", async () => {
    const record = await env.store.getGolem('demo')
    const profile = parseGolemProfile(record!.profile!)
    const { body } = await getJson(`${indexer.url}/v1/delegations/${profile.runway.periodDelegationHash}/remaining`)
    const views = Object.fromEntries(body.views.map((v: { kind: string }) => [v.kind, v]))
    // The phase gate carries the life window: it ends with the runway.
    expect(BigInt(views['golem-phase'].timeRemaining)).toBe(profile.runway.expiresAt - BigInt(body.timestamp))
    expect(BigInt(views['erc20-period'].availableAmount)).toBeLessThanOrEqual(profile.runway.periodAmount)
  })
})
