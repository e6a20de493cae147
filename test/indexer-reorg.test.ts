// Reorgs across every Bardo table: on anvil, with the indexer under the configuration `npm start` gives it
// (a named council included), one Golem's runway redemption (redemption and spend rows), its swap (action
// rows), a council execution, an owner's phase reset and the Golem's death are indexed, then the blocks
// that carried them are dropped (`evm_revert` to a snapshot taken before them) and a different history is
// mined at the same heights and beyond: another Golem's redemption, swap, reset and death and another
// council proposal. Read through SQL over HTTP, GraphQL and /v1, every table then holds what it held
// before the dropped blocks plus the new chain's rows, each once. A shallow `anvil_reorg` of two blocks
// with no replacement transactions is checked the same way.
import { createWalletClient, encodeFunctionData, erc20Abi, http, type Address, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { councilUserOpHash, submitCouncilProposal, type CouncilSubmission } from '../adapters/chain/council.ts'
import { executeAction, type ExecuteActionDeps } from '../app/actions/executeAction.ts'
import { runTick } from '../app/tick/runTick.ts'
import { MockPriceFeedAbi, TestVaultAbi, VitalityOracleAbi } from '../contracts/artifacts/index.ts'
import { councilProposalTypedData, tallyCouncilSignatures, type CouncilProposal } from '../core/council/index.ts'
import { stackIndexerOptions } from '../indexer/lib/deployment.ts'
import { startIndexer, type RunningIndexer } from '../indexer/start.ts'
import { getJson, graphqlQuery, pollUntil, sqlQuery, waitForIndexed } from '../indexer/testing.ts'
import type { ProvisionedGolem } from '../local/provision.ts'
import { COUNCIL_EXECUTIONS_QUERY } from '../web/src/council.ts'
import { proposeTransfer, setupCouncil, type CouncilFixture } from './chain/councilHarness.ts'
import { passStaggerOffsets, redemptionsBy, startHeartbeatEnv, USDC, type HeartbeatEnv } from './heartbeat/harness.ts'
import { provisionGolemIn } from './support/provisionGolemIn.ts'

const STRATEGY = 'Swap USDC for WETH on the router and deposit USDC into the vault, withdraw it later.\nbudget: $50/day'
const FAIR_WETH_FOR_10 = 10n ** 18n / 300n
const lc = (a: string) => a.toLowerCase()

// Every table a Bardo handler writes, with a stable order for comparing whole contents.
const TABLES: Record<string, string> = {
  golem: 'address',
  phase_transition: 'id',
  dream_cycle: 'id',
  delegation: 'hash',
  delegation_status_change: 'id',
  redemption: 'id',
  spend_event: 'id',
  golem_spend: 'golem, source, asset, period_start',
  delegation_spend: 'enforcer, delegation_hash, period_start',
  replicant: 'enforcer, delegation_hash',
  pending_spend: 'delegation_hash',
  golem_action: 'id',
  golem_death: 'first_key',
  council_execution: 'user_op_hash',
  council_pending: 'id',
  action_class: 'enforcer, selector',
}
type Snapshot = Record<string, Record<string, unknown>[]>

/** The Golem's events in one history, by transaction. */
type History = {
  golem: ProvisionedGolem
  redemption: Hex
  action: Hex
  council: CouncilProposal
  councilTx: Hex
  reset: Hex
  death: Hex
  tip: bigint
}

let env: HeartbeatEnv
let indexer: RunningIndexer
let council: CouncilFixture
let g1: ProvisionedGolem
let g2: ProvisionedGolem
let deps: ExecuteActionDeps
let before: Snapshot
let orphaned: History
let canonical: History

async function dump(): Promise<Snapshot> {
  const out: Snapshot = {}
  for (const [table, order] of Object.entries(TABLES)) out[table] = await sqlQuery(indexer.url, `select * from ${table} order by ${order}`)
  return out
}

const rpc = (method: string, params: unknown[] = []) => env.client.request({ method: method as never, params: params as never })

async function operatorCall(data: Hex): Promise<Hex> {
  const receipt = await env.client.waitForTransactionReceipt({
    hash: await env.devnet.operator.sendTransaction({ to: env.devnet.deployment.vitalityOracle, data }),
  })
  if (receipt.status !== 'success') throw new Error('operator call reverted')
  return receipt.transactionHash
}

async function executeCouncil(proposal: CouncilProposal): Promise<Hex> {
  const signatures = await Promise.all(
    council.golems
      .slice(0, 2)
      .map(async (g) => ({ signer: g.address, signature: await g.signTypedData(councilProposalTypedData(proposal)) })),
  )
  const tally = tallyCouncilSignatures({
    signatures,
    counting: council.golems.map((g) => g.address),
    threshold: 2,
    deadline: proposal.deadline,
    now: proposal.deadline - 1n,
  })
  if (!tally.ready) throw new Error('two signatures must make the threshold')
  const outcome: CouncilSubmission = await submitCouncilProposal({
    publicClient: env.devnet.publicClient,
    submitter: env.devnet.deployer,
    proposal,
    signature: tally.aggregate,
  })
  if (outcome.status !== 'executed') throw new Error(`council proposal not executed: ${outcome.status}`)
  return outcome.txHash
}

/** One history for a Golem: its runway redemption, a swap, a council execution, an owner's reset and its death. */
async function live(golem: ProvisionedGolem, golemId: string, tag: string, councilAmount: bigint): Promise<History> {
  const assets = env.devnet.deployment.assets
  const dm = lc(env.devnet.deployment.environment.DelegationManager)
  const from = await env.client.getBlockNumber({ cacheTime: 0 })
  await runTick(env.deps(`${tag}-tick`), { golemId })
  const redeemed = await redemptionsBy(env.client, dm as Address, golem.golemKey)
  const redemption = redeemed.find((r) => r.blockNumber > from)?.txHash
  if (redemption === undefined) throw new Error('the tick redeemed nothing')
  const swapped = await executeAction(deps, {
    golemId,
    requestId: `${tag}-swap`,
    actions: [
      { kind: 'approve', token: assets.usdc, spender: assets.router, amount: USDC(10) },
      {
        kind: 'swap',
        router: assets.router,
        tokenIn: assets.usdc,
        tokenOut: assets.weth,
        amountIn: USDC(10),
        amountOutMinimum: (FAIR_WETH_FOR_10 * 995n) / 1000n,
      },
    ],
  })
  if (swapped.status !== 'executed') throw new Error(`swap not executed: ${swapped.status}`)
  const proposal = await proposeTransfer(env.devnet, council, council.treasury, councilAmount)
  const councilTx = await executeCouncil(proposal)
  const oracle = VitalityOracleAbi
  const reset = await operatorCall(
    encodeFunctionData({ abi: oracle, functionName: 'resetPhase', args: [golem.golemKey, 3, `reset in ${tag}`] }),
  )
  const death = await operatorCall(encodeFunctionData({ abi: oracle, functionName: 'deregisterGolem', args: [golem.golemKey] }))
  const tip = await env.client.getBlockNumber({ cacheTime: 0 })
  return { golem, redemption, action: swapped.txHash, council: proposal, councilTx, reset, death, tip }
}

const rowsOf = (snapshot: Snapshot, table: string, tx: Hex) => snapshot[table]!.filter((r) => r.tx_hash === tx)

beforeAll(async () => {
  env = await startHeartbeatEnv()
  council = await setupCouncil(env.devnet)
  const assets = env.devnet.deployment.assets
  const owners = [await env.devnet.createOwner({ usdc: USDC(1_000) }), await env.devnet.createOwner({ usdc: USDC(1_000) })]
  const provision = (golemId: string, i: number) =>
    provisionGolemIn(env, golemId, {
      owner: owners[i]!,
      strategy: STRATEGY,
      lifeSeconds: 3_600n,
    })
  g1 = await provision('g1', 0)
  g2 = await provision('g2', 1)
  deps = { store: env.store, client: env.client, deployment: env.devnet.deployment, signers: env.signers, invocationId: 'test-reorg' }
  // Vault shares outstanding and fresh feeds, as the actions suite sets them.
  const seeder = await env.devnet.fundedAccount()
  await env.devnet.mintUsdc(seeder.address, USDC(1_000))
  const wallet = createWalletClient({ account: seeder, chain: env.devnet.chain, transport: http(env.devnet.rpcUrl) })
  await env.client.waitForTransactionReceipt({
    hash: await wallet.writeContract({ address: assets.usdc, abi: erc20Abi, functionName: 'approve', args: [assets.vault, USDC(1_000)] }),
  })
  await env.client.waitForTransactionReceipt({
    hash: await wallet.writeContract({
      address: assets.vault,
      abi: TestVaultAbi,
      functionName: 'deposit',
      args: [USDC(1_000), seeder.address],
    }),
  })
  await passStaggerOffsets(env.devnet, ['g1', 'g2'])
  for (const [feed, answer] of [
    [assets.ethUsdFeed, 3_000n * 10n ** 8n],
    [assets.usdcUsdFeed, 10n ** 8n],
  ] as const) {
    await env.client.waitForTransactionReceipt({
      hash: await env.devnet.deployer.writeContract({ address: feed, abi: MockPriceFeedAbi, functionName: 'setAnswer', args: [answer] }),
    })
  }
  indexer = await startIndexer(
    stackIndexerOptions(
      { rpcUrl: env.devnet.rpcUrl, deployment: { ...env.devnet.deployment, councils: [council.config.council] } },
      { local: true },
    ),
  )
  await waitForIndexed(indexer.url, await env.client.getBlockNumber({ cacheTime: 0 }))
}, 300_000)

afterAll(async () => {
  await indexer?.stop()
  await env?.stop()
})

describe('a reorg of the blocks that carried every kind of Bardo row', () => {
  it('indexes the history that is about to be dropped, in every table', async () => {
    before = await dump()
    const snapshot = await rpc('evm_snapshot')
    orphaned = await live(g1, 'g1', 'orphan', USDC(25))
    await waitForIndexed(indexer.url, orphaned.tip)
    const seen = await dump()
    expect(rowsOf(seen, 'redemption', orphaned.redemption).length).toBeGreaterThan(0)
    expect(rowsOf(seen, 'spend_event', orphaned.redemption).length).toBeGreaterThan(0)
    expect(rowsOf(seen, 'golem_action', orphaned.action).map((a) => a.kind)).toEqual(['approve', 'swap'])
    expect(rowsOf(seen, 'council_execution', orphaned.councilTx).map((c) => c.user_op_hash)).toEqual([councilUserOpHash(orphaned.council)])
    expect(rowsOf(seen, 'phase_transition', orphaned.reset).map((p) => [p.kind, p.to_phase])).toEqual([['reset', 3]])
    expect(seen.golem_death!.map((d) => d.tx_hash)).toEqual([orphaned.death])
    expect(seen.golem_spend!.filter((s) => s.first_key === lc(g1.golemKey)).length).toBeGreaterThan(0)
    expect(seen.delegation!.filter((d) => d.first_key === lc(g1.golemKey)).length).toBeGreaterThan(0)
    expect(seen.delegation_spend!.length).toBeGreaterThan(before.delegation_spend!.length)
    // Back to before those blocks; the rest of the suite mines the other history on top.
    await rpc('evm_revert', [snapshot])
  }, 180_000)

  it('after the reorg holds only the canonical chain: the dropped rows gone, the new ones once', async () => {
    canonical = await live(g2, 'g2', 'canonical', USDC(5))
    // Past the dropped tip, so the indexer's checkpoint shows the new chain is in.
    while ((await env.client.getBlockNumber({ cacheTime: 0 })) <= orphaned.tip) await rpc('anvil_mine', ['0x1'])
    const tip = await env.client.getBlockNumber({ cacheTime: 0 })
    const reorg = await indexer.waitForLog((l) => l.msg === 'Reorged block', 120_000)
    expect(BigInt(reorg.number as number)).toBeLessThanOrEqual(orphaned.tip)
    await waitForIndexed(indexer.url, tip, 120_000)

    const after = await dump()
    const dropped = [orphaned.redemption, orphaned.action, orphaned.councilTx, orphaned.reset, orphaned.death]
    for (const [table, rows] of Object.entries(after)) {
      expect(
        rows.filter((r) => dropped.includes(r.tx_hash as Hex)),
        table,
      ).toEqual([])
    }
    // Every row about the first Golem is what it was before the dropped blocks: no spend, no action, alive.
    const aboutG1 = (s: Snapshot, table: string) =>
      s[table]!.filter((r) => r.first_key === lc(g1.golemKey) || r.address === lc(g1.golemKey))
    for (const table of [
      'golem',
      'delegation',
      'phase_transition',
      'redemption',
      'spend_event',
      'golem_spend',
      'golem_action',
      'golem_death',
    ])
      expect(aboutG1(after, table), table).toEqual(aboutG1(before, table))
    expect(after.golem!.find((g) => g.address === lc(g1.golemKey))).toMatchObject({ dead: false, registered: true })
    // The enforcers' counters for the first Golem's runway are back to their old values (absent).
    const g1Hashes = new Set(
      before
        .redemption!.concat(after.redemption!)
        .filter((r) => r.first_key === lc(g1.golemKey))
        .map((r) => r.delegation_hash),
    )
    expect(after.delegation_spend!.filter((d) => g1Hashes.has(d.delegation_hash))).toEqual(
      before.delegation_spend!.filter((d) => g1Hashes.has(d.delegation_hash)),
    )
    expect(after.pending_spend!.every((p) => (p.items as unknown[]).length === 0)).toBe(true)
    expect(after.council_pending).toEqual(before.council_pending)

    // The canonical history's rows, each once.
    expect(rowsOf(after, 'redemption', canonical.redemption).length).toBeGreaterThan(0)
    expect(rowsOf(after, 'redemption', canonical.redemption).every((r) => r.first_key === lc(g2.golemKey))).toBe(true)
    const spend = rowsOf(after, 'spend_event', canonical.redemption)
    expect(spend.length).toBeGreaterThan(0)
    expect(new Set(spend.map((s) => s.id)).size).toBe(spend.length)
    // The new Golem's period totals count each of its spend events once (the runway's and the swap's).
    const g2Events = after.spend_event!.filter((s) => s.first_key === lc(g2.golemKey))
    const g2Periods = after.golem_spend!.filter((s) => s.first_key === lc(g2.golemKey))
    expect(g2Periods.reduce((n, s) => n + Number(s.event_count), 0)).toBe(g2Events.length)
    expect(rowsOf(after, 'golem_action', canonical.action).map((a) => a.kind)).toEqual(['approve', 'swap'])
    expect(after.council_execution!.map((c) => c.user_op_hash)).toEqual([councilUserOpHash(canonical.council)])
    expect(rowsOf(after, 'phase_transition', canonical.reset).map((p) => [p.golem, p.kind, p.to_phase, p.reason])).toEqual([
      [lc(g2.golemKey), 'reset', 3, 'reset in canonical'],
    ])
    expect(after.golem_death!.map((d) => [d.first_key, d.tx_hash])).toEqual([[lc(g2.golemKey), canonical.death]])

    // What the dashboards and routes read agrees.
    const { body: deaths } = await getJson(`${indexer.url}/v1/deaths`)
    expect(deaths.items.map((d: { firstKey: string }) => d.firstKey)).toEqual([lc(g2.golemKey)])
    const { body: g1Actions } = await getJson(`${indexer.url}/v1/golems/${g1.golemKey}/actions`)
    expect(g1Actions.items).toEqual([])
    const { body: g1Redemptions } = await getJson(`${indexer.url}/v1/golems/${g1.golemKey}/redemptions`)
    expect(g1Redemptions.items.map((r: { txHash: string }) => r.txHash)).not.toContain(orphaned.redemption)
    const { body: g1Phases } = await getJson(`${indexer.url}/v1/golems/${g1.golemKey}/phases`)
    expect(g1Phases.items.map((p: { txHash: string }) => p.txHash)).not.toContain(orphaned.reset)
    const councils = await graphqlQuery<{ councilExecutions: { items: { proposalId: string; txHash: string }[] } }>(
      indexer.url,
      COUNCIL_EXECUTIONS_QUERY,
      { ids: [orphaned.council.id, canonical.council.id] },
    )
    expect(councils.councilExecutions.items.map((c) => [c.proposalId, c.txHash])).toEqual([[canonical.council.id, canonical.councilTx]])
    const byGraphql = await graphqlQuery(
      indexer.url,
      `query($a: String!, $b: String!) {
        a: golemActions(where: { firstKey: $a }) { totalCount }
        b: golemActions(where: { firstKey: $b }) { totalCount }
        sa: spendEvents(where: { firstKey: $a }) { totalCount }
        sb: spendEvents(where: { firstKey: $b }) { totalCount }
      }`,
      { a: lc(g1.golemKey), b: lc(g2.golemKey) },
    )
    expect(byGraphql).toEqual({ a: { totalCount: 0 }, b: { totalCount: 2 }, sa: { totalCount: 0 }, sb: { totalCount: g2Events.length } })
  }, 300_000)

  it('follows a shallow anvil_reorg of two blocks with no replacement transactions', async () => {
    const g = await env.devnet.fundedAccount()
    await operatorCall(encodeFunctionData({ abi: VitalityOracleAbi, functionName: 'registerGolem', args: [g.address] }))
    await rpc('anvil_mine', ['0x1'])
    await waitForIndexed(indexer.url, await env.client.getBlockNumber({ cacheTime: 0 }))
    await operatorCall(encodeFunctionData({ abi: VitalityOracleAbi, functionName: 'resetPhase', args: [g.address, 2, 'shallow'] }))
    await operatorCall(encodeFunctionData({ abi: VitalityOracleAbi, functionName: 'deregisterGolem', args: [g.address] }))
    const tip = await env.client.getBlockNumber({ cacheTime: 0 })
    await waitForIndexed(indexer.url, tip)
    expect((await sqlQuery(indexer.url, 'select tx_hash from golem_death where first_key = $1', [lc(g.address)])).length).toBe(1)
    const reorgs = indexer.logs.filter((l) => l.msg === 'Reorged block').length

    // The two blocks of the reset and the death are replaced by two empty ones, then one more is mined.
    await rpc('anvil_reorg', [2, []])
    expect(await env.client.getBlockNumber({ cacheTime: 0 })).toBe(tip)
    await rpc('anvil_mine', ['0x1'])
    await pollUntil('a second reorg seen', async () =>
      indexer.logs.filter((l) => l.msg === 'Reorged block').length > reorgs ? true : undefined,
    )
    await waitForIndexed(indexer.url, tip + 1n)

    expect(await sqlQuery(indexer.url, 'select * from golem_death where first_key = $1', [lc(g.address)])).toEqual([])
    expect(await sqlQuery(indexer.url, 'select tx_hash from phase_transition where golem = $1', [lc(g.address)])).toEqual([])
    const [row] = await sqlQuery(indexer.url, 'select registered, dead, phase from golem where address = $1', [lc(g.address)])
    expect(row).toEqual({ registered: true, dead: false, phase: 0 })
  }, 180_000)
})
