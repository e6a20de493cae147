// A Golem's whole life through custody, on anvil and dynalite, one heartbeat per day of chain time: while
// Thriving it trades (USDC for WETH on the router), provides liquidity (a USDC/WETH position held by the
// owner's account), deposits into the vault and spawns a Replicant (its own key, a slice of the runway),
// all through the action path; the Replicant is ticked beside it and dies with it; in Conservation a new swap,
// deposit or position is refused and moves nothing; in Declining the tick unwinds what it opened (vault
// shares redeemed, the liquidity position's liquidity removed and collected, allowances revoked) into the
// owner's account; it dies with an empty key and a death record listing every settled position with its
// transaction. The owner's balances at the end are what they were at the start, less exactly what the
// receipts say went out and plus what came back.
import { erc20Abi, getAddress, type Address, type Hex, type PublicClient } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TestPositionManagerAbi, TestVaultAbi } from '../../contracts/artifacts/index.ts'
import type { ActionRequest } from '../../core/actions/actionCall.ts'
import { executeAction, type ActionOutcome, type ExecuteActionDeps } from '../../app/actions/executeAction.ts'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import type { TickResult } from '../../app/tick/types.ts'
import { Phase } from '../../core/lifecycle/phase.ts'
import { liquidityBase, windDownStep } from '../../core/lifecycle/windDownPlan.ts'
import type { OwnerAccount } from '../../local/devnet.ts'
import type { ProvisionedGolem } from '../../local/provision.ts'
import { replicantIdOf } from '../../core/actions/index.ts'
import { spawnReplicantThroughActions } from './replicants.ts'
import { accountFlow, deployPositionManager, mintWeth, provideUsdcWeth, sortedPair } from './liquidity.ts'
import {
  DAY,
  USDC,
  allEvents,
  passStaggerOffsets,
  phaseTransitions,
  startHeartbeatEnv,
  usdcBalance,
  type HeartbeatEnv,
  freshFeeds,
} from './harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY = [
  'Swap USDC for WETH on the router, provide liquidity to the USDC/WETH pool and collect the fees,',
  'and park idle USDC in the vault, withdrawing it later. Spawn helpers while thriving.',
  'budget: $50/day',
].join('\n')
const ID = 'life'
// $10 of USDC at $3,000 per WETH is 1/300 WETH at the feed price.
const FAIR_WETH_FOR_10 = 10n ** 18n / 300n
const OWNER_WETH = 10n ** 18n
// A $10 position: $5 of USDC and $5 of WETH.
const LP_USDC = USDC(5)
const LP_WETH = FAIR_WETH_FOR_10 / 2n

let env: HeartbeatEnv
let client: PublicClient
let owner: OwnerAccount
let golem: ProvisionedGolem
let assets: HeartbeatEnv['devnet']['deployment']['assets']
let manager: Address
let actionDeps: ExecuteActionDeps
const start = { usdc: 0n, weth: 0n }
const days: TickResult[] = []
const errors: unknown[] = []
const thriving: Record<string, ActionOutcome> = {}
const conservation: Record<string, { outcome: ActionOutcome; before: bigint[]; after: bigint[] }> = {}
let declineDay = -1
let replicantId: string | undefined
const replicantDays: TickResult[] = []

const balance = (token: Address, who: Address) =>
  client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [who] })
const shares = () => client.readContract({ address: assets.vault, abi: TestVaultAbi, functionName: 'balanceOf', args: [owner.address] })
const holdings = async (): Promise<[bigint, bigint, bigint]> => [
  await balance(assets.usdc, owner.address),
  await balance(assets.weth, owner.address),
  await shares(),
]
const act = (requestId: string, actions: ActionRequest[]) => executeAction(actionDeps, { golemId: ID, requestId, actions })

const sorted = () => sortedPair(assets)
const lpAmountOf = (token: Address) => (token === assets.usdc ? LP_USDC : LP_WETH)
const provide = () => provideUsdcWeth({ manager, assets, fee: 3_000, usdc: LP_USDC, weth: LP_WETH, minBps: 9_900n })
const swap = (amountIn: bigint): ActionRequest => ({
  kind: 'swap',
  router: assets.router,
  tokenIn: assets.usdc,
  tokenOut: assets.weth,
  amountIn,
  amountOutMinimum: (((FAIR_WETH_FOR_10 * amountIn) / USDC(10)) * 995n) / 1000n,
})

const THRIVING_DAYS: { name: string; actions: () => ActionRequest[] | 'spawn' }[] = [
  { name: 'trade', actions: () => [{ kind: 'approve', token: assets.usdc, spender: assets.router, amount: USDC(10) }, swap(USDC(10))] },
  {
    name: 'liquidity',
    actions: () => [
      { kind: 'approve', token: assets.usdc, spender: manager, amount: LP_USDC },
      { kind: 'approve', token: assets.weth, spender: manager, amount: LP_WETH },
      provide(),
    ],
  },
  {
    name: 'deposit',
    actions: () => [
      { kind: 'approve', token: assets.usdc, spender: assets.vault, amount: USDC(12) },
      { kind: 'deposit', vault: assets.vault, assets: USDC(8) },
    ],
  },
  { name: 'replicant', actions: () => 'spawn' },
]

/** The death record's settled positions (the record is JSON in the store). */
const settledOf = (settlement: unknown) =>
  ((settlement as { positionsSettled?: unknown })?.positionsSettled ?? []) as { kind: string; txHash: Hex }[]

/** What went out of (negative) or came into the owner's account in `token` by the transactions of `hashes`. */
const ownerFlow = (token: Address, hashes: readonly Hex[]) => accountFlow(client, owner.address, token, hashes)

beforeAll(async () => {
  env = await startHeartbeatEnv()
  client = env.client
  assets = env.devnet.deployment.assets
  manager = await deployPositionManager(env)
  owner = await env.devnet.createOwner({ usdc: USDC(1_000) })
  await mintWeth(env, owner.address, OWNER_WETH)
  ;[start.usdc, start.weth] = await holdings()
  golem = await provisionGolemIn(env, ID, {
    owner,
    strategy: STRATEGY,
    runwayDays: 14,
    protocols: { positionManager: manager },
  })
  await passStaggerOffsets(env.devnet, [ID])
  await freshFeeds(env)
  actionDeps = { store: env.store, client, deployment: env.devnet.deployment, signers: env.signers, invocationId: 'test-whole-life' }

  const invoker = new LocalInvoker((id) => env.deps(id), { onError: (_id, e) => errors.push(e) })
  let phase: number = Phase.Thriving
  for (let day = 0; day < 20; day++) {
    await freshFeeds(env)
    // Thriving, one act a day (the grant's USD bound is per day): a trade, a liquidity position, a deposit
    // that leaves part of its approval unspent.
    const plan = THRIVING_DAYS[day]
    if (plan && phase === Phase.Thriving) {
      const actions = plan.actions()
      thriving[plan.name] =
        actions === 'spawn' ? await spawnReplicantThroughActions(env, { golemId: ID, requestId: plan.name }) : await act(plan.name, actions)
      if (actions === 'spawn') replicantId = replicantIdOf(ID, plan.name)
    }
    if (phase === Phase.Conservation && Object.keys(conservation).length === 0) {
      for (const [name, actions] of [
        ['swap', [{ kind: 'approve', token: assets.usdc, spender: assets.router, amount: USDC(5) }, swap(USDC(5))]],
        ['deposit', [{ kind: 'deposit', vault: assets.vault, assets: USDC(1) }]],
        ['liquidity', [provide()]],
      ] as const) {
        const before = await holdings()
        const outcome = await act(`conservation-${name}`, [...actions])
        conservation[name] = { outcome, before, after: await holdings() }
      }
    }
    const before = invoker.results.length
    await runHeartbeat({ store: env.store, client, deployment: env.devnet.deployment, invoker })
    const ticked = invoker.results.slice(before)
    if (replicantId) replicantDays.push(...ticked.filter((r) => r.golemId === replicantId))
    const own = ticked.filter((r) => r.golemId === ID)
    if ((await env.store.getGolem(ID))?.status === 'dead' && days.at(-1)?.outcome === 'died') {
      // The parent is dead: only its Replicant's last ticks remain.
      if (!replicantId || (await env.store.getGolem(replicantId))?.status === 'dead') break
      await env.devnet.increaseTime(DAY)
      continue
    }
    expect(own.length, `day ${day}: one tick of the parent`).toBe(1)
    const r = own[0]!
    days.push(r)
    const next = r.phase ? r.phase.to : phase
    if (next === Phase.Declining && phase !== Phase.Declining) declineDay = day
    phase = next
    if ((await env.store.getGolem(ID))?.status === 'dead' && (!replicantId || (await env.store.getGolem(replicantId))?.status === 'dead'))
      break
    await env.devnet.increaseTime(DAY)
  }
}, 400_000)
afterAll(async () => env?.stop())

describe("a Golem's whole life through custody", () => {
  it('trades, provides liquidity, deposits and spawns a Replicant while Thriving, through the action path', () => {
    expect(Object.keys(thriving)).toEqual(THRIVING_DAYS.map((d) => d.name))
    for (const [name, outcome] of Object.entries(thriving)) expect(outcome.status, name).toBe(name === 'replicant' ? 'spawned' : 'executed')
  })

  it('ticks its Replicant beside it, on a slice of its runway, and the Replicant dies with it, its key emptied', async () => {
    const spawned = thriving.replicant as Extract<ActionOutcome, { status: 'spawned' }>
    const child = (await env.store.getGolem(replicantId!))!
    expect(JSON.parse(child.profile as string).parent).toMatchObject({ golemId: ID, requestId: 'replicant' })
    const redeemed = (await allEvents(env.store, replicantId!)).filter((e) => e.type === 'RunwayRedeemed')
    expect(redeemed.length).toBeGreaterThan(0)
    for (const e of redeemed) expect(e.data.amount).toBe(USDC(2).toString())
    expect(child.status).toBe('dead')
    expect(replicantDays.at(-1)?.outcome).toBe('died')
    expect(await usdcBalance(client, assets.usdc, spawned.replicantKey)).toBe(0n)
  })

  it('falls through every phase to death with no failed tick', async () => {
    expect(errors).toEqual([])
    const onChain = await phaseTransitions(client, env.devnet.deployment.vitalityOracle, golem.golemKey)
    expect(onChain.map((t) => t.to)).toEqual([1, 2, 3, 4])
    expect(days.at(-1)?.outcome).toBe('died')
    expect(declineDay).toBeGreaterThan(0)
  })

  it('refuses a new swap, deposit or position in Conservation, moving nothing', () => {
    expect(Object.keys(conservation).sort()).toEqual(['deposit', 'liquidity', 'swap'])
    for (const [name, { outcome, before, after }] of Object.entries(conservation)) {
      expect(outcome, name).toMatchObject({ status: 'refused', checkedBy: 'custody', refusal: { caveat: 'golemPhase' } })
      expect(after, name).toEqual(before)
    }
  })

  it("removes the liquidity position in Declining, exactly once, and collects it to the owner's account", async () => {
    // The manager is the test's own: the Golem's mint is its first position.
    const tokenId = 1n
    expect(await client.readContract({ address: manager, abi: TestPositionManagerAbi, functionName: 'ownerOf', args: [tokenId] })).toBe(
      owner.address,
    )
    const position = await client.readContract({
      address: manager,
      abi: TestPositionManagerAbi,
      functionName: 'positions',
      args: [tokenId],
    })
    expect({ liquidity: position[7], owed0: position[10], owed1: position[11] }).toEqual({ liquidity: 0n, owed0: 0n, owed1: 0n })
    // The tick that posted Declining closed it (with the vault; the allowance went before Conservation).
    expect(days[declineDay]?.windDown).toEqual({ settled: 3, leftOpen: [] })
    const base = liquidityBase(manager, tokenId)
    const slot = await env.store.getSlot({ golemId: ID, period: 0n, step: windDownStep(base, 0) })
    expect(slot).toMatchObject({ status: 'confirmed', claims: 1 })
    expect(await env.store.getSlot({ golemId: ID, period: 0n, step: windDownStep(base, 1) })).toBeNull()
    const receipt = await client.getTransactionReceipt({ hash: slot!.txHash! })
    const terminal = (await phaseTransitions(client, env.devnet.deployment.vitalityOracle, golem.golemKey)).find((t) => t.to === 4)!
    expect(receipt.blockNumber).toBeLessThan(terminal.blockNumber)
    // decreaseLiquidity then collect, in one transaction: the whole position back to the owner.
    const [token0, token1] = sorted()
    expect(await ownerFlow(token0, [slot!.txHash!])).toBe(lpAmountOf(token0))
    expect(await ownerFlow(token1, [slot!.txHash!])).toBe(lpAmountOf(token1))
    const death = await env.store.getDeathSettlement(ID)
    expect(settledOf(death?.settlement).filter((p) => p.kind === 'liquidity')).toEqual([
      {
        kind: 'liquidity',
        manager: getAddress(manager),
        tokenId: '1',
        token0: getAddress(token0),
        token1: getAddress(token1),
        liquidity: (LP_USDC + LP_WETH).toString(),
        amount0: lpAmountOf(token0).toString(),
        amount1: lpAmountOf(token1).toString(),
        txHash: slot!.txHash,
      },
    ])
    // Later Declining ticks find it closed and send nothing for it.
    for (const r of days.slice(declineDay + 1, -1)) expect(r.windDown).toEqual({ settled: 3, leftOpen: [] })
  })

  it('dies with an empty key, its vault shares, liquidity and allowances settled and listed with their transactions', async () => {
    expect(await usdcBalance(client, assets.usdc, golem.golemKey)).toBe(0n)
    const death = await env.store.getDeathSettlement(ID)
    expect(death?.settlement.positionsLeftOpen).toEqual([])
    const settled = settledOf(death?.settlement)
    expect(settled.map((p) => p.kind).sort()).toEqual(['approval', 'liquidity', 'vault'])
    for (const p of settled) expect(p.txHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await shares()).toBe(0n)
    // The position's NFT stays the owner's, emptied.
    expect(
      await client.readContract({ address: manager, abi: TestPositionManagerAbi, functionName: 'balanceOf', args: [owner.address] }),
    ).toBe(1n)
    for (const spender of [assets.router, assets.vault, manager]) {
      for (const token of [assets.usdc, assets.weth])
        expect(
          await client.readContract({ address: token, abi: erc20Abi, functionName: 'allowance', args: [owner.address, spender] }),
          `${token} to ${spender}`,
        ).toBe(0n)
    }
  })

  it("leaves the owner's balances exact: the start, less what the receipts took out, plus what came back", async () => {
    const hashes = [...Object.values(thriving)].flatMap((o) => (o.status === 'executed' ? [o.receipt.transactionHash] : []))
    const death = await env.store.getDeathSettlement(ID)
    const windDownTx = settledOf(death?.settlement).map((p) => p.txHash)
    const [usdc, weth, vaultShares] = await holdings()
    // The runway the Golem redeemed came home at death: USDC moves only by the actions and their unwinding.
    expect(usdc).toBe(start.usdc + (await ownerFlow(assets.usdc, [...hashes, ...windDownTx])))
    expect(weth).toBe(start.weth + (await ownerFlow(assets.weth, [...hashes, ...windDownTx])))
    expect(vaultShares).toBe(0n)
    // Nothing is left in the manager: the position's tokens came back with the rest.
    expect(await balance(assets.usdc, manager)).toBe(0n)
    expect(await balance(assets.weth, manager)).toBe(0n)
  })
})
