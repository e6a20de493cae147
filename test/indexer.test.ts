// The Ponder indexer against a real anvil devnet: `ponder start` runs as a child process on a fresh
// PGlite directory and schema; the test makes real phase changes, dreams, redemptions, revocations,
// key rotations and a reorg, and checks the rows through the /v1 routes, GraphQL and SQL over HTTP.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWalletClient, encodeAbiParameters, encodeFunctionData, http, parseUnits, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { contracts, createDelegation, ExecutionMode, signDelegation, type Delegation } from '@metamask/smart-accounts-kit'
import { hashDelegation } from '@metamask/smart-accounts-kit/utils'
import { DaimonOracleAbi, DreamOracleAbi, TestUSDCAbi, VitalityOracleAbi } from '../contracts/artifacts/index.ts'
import { startDevnet, type Devnet, type OwnerAccount } from '../local/devnet.ts'
import { sendOwnerCalls } from '../local/ownerActions.ts'
import { toIndexerDeployment } from '../indexer/lib/deployment.ts'
import { startIndexer, type RunningIndexer } from '../indexer/start.ts'
import { getJson, graphqlQuery, sqlQuery, waitForIndexed } from '../indexer/testing.ts'

let devnet: Devnet
let indexer: RunningIndexer
let owner: OwnerAccount
let golemKey: Hex
let golem: PrivateKeyAccount
let url: string
// Another process already serving on the port the indexer is asked for, and answering /health as Ponder would.
let squatter: Server
let squatterRequests = 0

const lc = (a: string) => a.toLowerCase()

async function send(account: PrivateKeyAccount, to: Address, data: Hex) {
  const wallet = createWalletClient({ account, chain: devnet.chain, transport: http(devnet.rpcUrl) })
  const receipt = await devnet.publicClient.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ to, data }) })
  if (receipt.status !== 'success') throw new Error(`tx ${receipt.transactionHash} reverted`)
  return receipt
}

async function operatorCall(data: Hex) {
  const receipt = await devnet.publicClient.waitForTransactionReceipt({
    hash: await devnet.operator.sendTransaction({ to: devnet.deployment.vitalityOracle, data }),
  })
  if (receipt.status !== 'success') throw new Error('operator call reverted')
  return receipt
}

const vitality = (functionName: 'updatePhase', args: readonly [number, number]) =>
  encodeFunctionData({ abi: VitalityOracleAbi, functionName, args })
const register = (g: Address) => operatorCall(encodeFunctionData({ abi: VitalityOracleAbi, functionName: 'registerGolem', args: [g] }))

/** DailySpendLimit terms (docs/contracts.md): abi.encode(uint256 limitUsd, uint32 maxPriceAge, TokenFeed[]). */
function dailySpendLimitTerms(limitUsd: bigint): Hex {
  const { usdc, usdcUsdFeed } = devnet.deployment.assets
  return encodeAbiParameters(
    [
      { type: 'uint256' },
      { type: 'uint32' },
      {
        type: 'tuple[]',
        components: [
          { type: 'address', name: 'token' },
          { type: 'uint8', name: 'decimals' },
          { type: 'address', name: 'feed' },
        ],
      },
    ],
    [limitUsd, 10 * 365 * 86_400, [{ token: usdc, decimals: 6, feed: usdcUsdFeed }]],
  )
}

async function signedDelegation(
  from: OwnerAccount,
  to: Address,
  extraCaveats: { enforcer: Address; terms: Hex; args: Hex }[],
): Promise<Delegation> {
  const now = Number((await devnet.publicClient.getBlock()).timestamp)
  const delegation = createDelegation({
    environment: devnet.deployment.environment,
    from: from.address,
    to,
    scope: {
      type: 'erc20PeriodTransfer',
      tokenAddress: devnet.deployment.assets.usdc,
      periodAmount: parseUnits('100', 6),
      periodDuration: 86_400,
      startDate: now - 60,
    },
    caveats: extraCaveats,
  })
  return { ...delegation, signature: await from.smartAccount.signDelegation({ delegation }) }
}

async function redeem(redeemer: PrivateKeyAccount, delegation: Delegation | Delegation[], amount: bigint) {
  const callData = encodeFunctionData({ abi: TestUSDCAbi, functionName: 'transfer', args: [redeemer.address, amount] })
  const data = contracts.DelegationManager.encode.redeemDelegations({
    delegations: [Array.isArray(delegation) ? delegation : [delegation]],
    modes: [ExecutionMode.SingleDefault],
    executions: [[{ target: devnet.deployment.assets.usdc, value: 0n, callData }]],
  })
  return send(redeemer, devnet.deployment.environment.DelegationManager, data)
}

beforeAll(async () => {
  devnet = await startDevnet()
  owner = await devnet.createOwner()
  golemKey = generatePrivateKey()
  golem = privateKeyToAccount(golemKey)
  await devnet.publicClient.request({ method: 'anvil_setBalance' as never, params: [golem.address, '0xde0b6b3a7640000'] as never })
  // Registered and first report before the indexer starts: these rows come from the backfill.
  await register(golem.address)
  await send(golem, devnet.deployment.vitalityOracle, vitality('updatePhase', [0, 9500]))
  squatter = createServer((_req, res) => {
    squatterRequests++
    res.writeHead(200).end('ok')
  })
  await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve))
  const taken = (squatter.address() as AddressInfo).port
  indexer = await startIndexer({ rpcUrl: devnet.rpcUrl, deployment: toIndexerDeployment(devnet.deployment), port: taken })
  url = indexer.url
})

afterAll(async () => {
  await new Promise((resolve) => squatter?.close(resolve))
  await indexer?.stop()
  await devnet?.stop()
})

describe('starting the indexer', () => {
  it('serves on the port Ponder reports when the one asked for is taken, and never talks to what holds it', async () => {
    expect(indexer.port).not.toBe((squatter.address() as AddressInfo).port)
    expect((await getJson(`${url}/status`)).status).toBe(200)
    expect(squatterRequests).toBe(0)
  })
})

describe('Golems and phase history', () => {
  it('indexes registration from the backfill and phase changes made live', async () => {
    const oracle = devnet.deployment.vitalityOracle
    await send(golem, oracle, vitality('updatePhase', [1, 8000]))
    await send(golem, oracle, vitality('updatePhase', [1, 7000])) // a report without a transition
    const moved = await send(golem, oracle, vitality('updatePhase', [3, 3000]))
    const reset = await operatorCall(
      encodeFunctionData({ abi: VitalityOracleAbi, functionName: 'resetPhase', args: [golem.address, 1, 'fed by owner'] }),
    )
    await waitForIndexed(url, reset.blockNumber)

    const { body: history } = await getJson(`${url}/v1/golems/${golem.address}/phases`)
    expect(history.items.map((t: any) => [t.kind, t.fromPhase, t.toPhase, t.survivalScore])).toEqual([
      ['transition', 0, 1, 8000],
      ['transition', 1, 3, 3000],
      ['reset', 3, 1, null],
    ])
    expect(history.items[2].reason).toBe('fed by owner')
    expect(history.items[2].by).toBe(lc(devnet.operator.account.address))
    expect(history.items[1].blockNumber).toBe(String(moved.blockNumber))
    const block = await devnet.publicClient.getBlock({ blockNumber: moved.blockNumber })
    expect(history.items[1].timestamp).toBe(String(block.timestamp))

    const { body } = await getJson(`${url}/v1/golems/${golem.address}`)
    expect(body.golem).toMatchObject({ registered: true, dead: false, phase: 1, survivalScore: 3000, reportCount: 4, transitionCount: 3 })
    expect(body.golem.registrar).toBe(lc(devnet.operator.account.address))
  })

  it('pages phase history with a cursor', async () => {
    const first = await getJson(`${url}/v1/golems/${golem.address}/phases?limit=2`)
    expect(first.body.items).toHaveLength(2)
    expect(first.body.nextCursor).toEqual(expect.any(String))
    const second = await getJson(`${url}/v1/golems/${golem.address}/phases?limit=2&cursor=${first.body.nextCursor}`)
    expect(second.body.items.map((t: any) => t.kind)).toEqual(['reset'])
    expect(second.body.nextCursor).toBeNull()
    const newest = await getJson(`${url}/v1/golems/${golem.address}/phases?order=desc&limit=2`)
    expect(newest.body.items.map((t: any) => t.kind)).toEqual(['reset', 'transition'])
    const older = await getJson(`${url}/v1/golems/${golem.address}/phases?order=desc&limit=2&cursor=${newest.body.nextCursor}`)
    expect(older.body.items.map((t: any) => [t.fromPhase, t.toPhase])).toEqual([[0, 1]])
    const bad = await getJson(`${url}/v1/golems/${golem.address}/phases?cursor=nope`)
    expect(bad.status).toBe(400)
    expect(bad.body.code).toBe('INVALID_PARAMETER')
    expect((await getJson(`${url}/v1/golems/0x1234/phases`)).status).toBe(400)
  })

  it('records dream cycles and the PAD vector', async () => {
    const { dreamOracle, daimonOracle } = devnet.deployment
    const started = await send(golem, dreamOracle, encodeFunctionData({ abi: DreamOracleAbi, functionName: 'startDream' }))
    await waitForIndexed(url, started.blockNumber)
    expect((await getJson(`${url}/v1/golems/${golem.address}`)).body.golem).toMatchObject({ dreaming: true, dreamCount: 1 })
    await devnet.increaseTime(600)
    await send(golem, dreamOracle, encodeFunctionData({ abi: DreamOracleAbi, functionName: 'endDream' }))
    const pad = await send(golem, daimonOracle, encodeFunctionData({ abi: DaimonOracleAbi, functionName: 'setPAD', args: [40, -20, 10] }))
    await waitForIndexed(url, pad.blockNumber)

    const dreams = (await getJson(`${url}/v1/golems/${golem.address}/dreams`)).body.items
    expect(dreams).toHaveLength(1)
    expect(dreams[0]).toMatchObject({ id: `${lc(golem.address)}-1`, number: 1 })
    expect(dreams[0].startBlock).toBe(String(started.blockNumber))
    expect(Number(dreams[0].duration)).toBeGreaterThanOrEqual(600)
    const row = (await getJson(`${url}/v1/golems/${golem.address}`)).body.golem
    expect(row).toMatchObject({ dreaming: false, dreamingSince: null, dreamCount: 1, pleasure: 40, arousal: -20, dominance: 10 })
    expect(row.dreamSeconds).toBe(dreams[0].duration)
  })
})

describe('delegations, redemptions and spend', () => {
  let delegation: Delegation
  let hash: Hex

  it('indexes redemptions with the spend the enforcers recorded', async () => {
    const dailyLimit = devnet.deployment.enforcers.dailySpendLimit
    delegation = await signedDelegation(owner, golem.address, [
      { enforcer: dailyLimit, terms: dailySpendLimitTerms(50_000_000n), args: '0x' },
    ])
    hash = hashDelegation(delegation)
    const first = await redeem(golem, delegation, parseUnits('10', 6))
    const second = await redeem(golem, delegation, parseUnits('15', 6))
    await waitForIndexed(url, second.blockNumber)

    const { body: page } = await getJson(`${url}/v1/golems/${golem.address}/redemptions`)
    const usdc = lc(devnet.deployment.assets.usdc)
    expect(page.items.map((r: any) => [r.txHash, r.usd6, r.transfers])).toEqual([
      [second.transactionHash, '15000000', [{ asset: usdc, amount: '15000000', usd6: '15000000' }]],
      [first.transactionHash, '10000000', [{ asset: usdc, amount: '10000000', usd6: '10000000' }]],
    ])
    expect(page.items[0]).toMatchObject({ redeemer: lc(golem.address), rootDelegator: lc(owner.address), delegationHash: hash })

    const { body: d } = await getJson(`${url}/v1/delegations/${hash}`)
    expect(d.delegation).toMatchObject({ delegator: lc(owner.address), delegate: lc(golem.address), enabled: true, redemptionCount: 2 })
    expect(d.delegation.authority).toBe('0xffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff')

    const today = new Date(Number((await devnet.publicClient.getBlock()).timestamp) * 1000).toISOString().slice(0, 10)
    const daily = await getJson(`${url}/v1/golems/${golem.address}/spend/daily?from=${today}&to=${today}`)
    expect(daily.body.items).toEqual([
      { date: today, day: expect.any(Number), source: 'daily-spend-limit', asset: 'usd', amount: '25000000', usd6: '25000000', events: 2 },
      { date: today, day: expect.any(Number), source: 'erc20-period', asset: usdc, amount: '25000000', usd6: '25000000', events: 2 },
    ])
    const periods = await getJson(`${url}/v1/golems/${golem.address}/spend/periods?source=daily-spend-limit`)
    expect(periods.body.items).toHaveLength(1)
    expect(periods.body.items[0]).toMatchObject({ asset: 'usd', amount: '25000000', eventCount: 2 })
    expect(BigInt(periods.body.items[0].periodEnd) - BigInt(periods.body.items[0].periodStart)).toBe(86_400n)

    // The enforcer's own counter, through SQL over HTTP.
    const counters = await sqlQuery<{ spent: string; period_limit: string }>(
      url,
      'select spent, period_limit from delegation_spend where delegation_hash = $1 and source = $2',
      [hash, 'daily-spend-limit'],
    )
    expect(counters).toEqual([{ spent: '25000000', period_limit: '50000000' }])
    // Nothing left waiting for a redeemer.
    expect(await sqlQuery(url, 'select items from pending_spend')).toEqual([{ items: [] }])
  })

  it('records a revocation and a re-enable with the block each happened in', async () => {
    const dm = devnet.deployment.environment.DelegationManager
    const disable = { to: dm, data: contracts.DelegationManager.encode.disableDelegation({ delegation }) }
    const disabled = await sendOwnerCalls({
      publicClient: devnet.publicClient,
      submitter: devnet.deployer,
      smartAccount: owner.smartAccount,
      calls: [disable],
    })
    await waitForIndexed(url, disabled.blockNumber)
    const { body: off } = await getJson(`${url}/v1/delegations/${hash}`)
    expect(off.delegation.enabled).toBe(false)
    expect(off.delegation.statusBlock).toBe(String(disabled.blockNumber))
    expect(off.delegation.statusTx).toBe(disabled.transactionHash)

    const enable = { to: dm, data: contracts.DelegationManager.encode.enableDelegation({ delegation }) }
    const enabled = await sendOwnerCalls({
      publicClient: devnet.publicClient,
      submitter: devnet.deployer,
      smartAccount: owner.smartAccount,
      calls: [enable],
    })
    await waitForIndexed(url, enabled.blockNumber)
    const { body: on } = await getJson(`${url}/v1/delegations/${hash}`)
    expect(on.delegation.enabled).toBe(true)
    expect(on.delegation.statusBlock).toBe(String(enabled.blockNumber))
    expect(on.statusChanges.map((s: any) => [s.enabled, s.blockNumber])).toEqual([
      [false, String(disabled.blockNumber)],
      [true, String(enabled.blockNumber)],
    ])
  })

  it('attributes a Replicant redemption through [child, parent] to the Replicant, counted once', async () => {
    const replicantKey = privateKeyToAccount(generatePrivateKey())
    await devnet.publicClient.request({ method: 'anvil_setBalance' as never, params: [replicantKey.address, '0xde0b6b3a7640000'] as never })
    const budgetTerms = encodeAbiParameters(
      [
        { type: 'uint256' },
        { type: 'uint64' },
        { type: 'uint32' },
        { type: 'tuple[]', components: [{ type: 'address' }, { type: 'uint8' }, { type: 'address' }] },
      ],
      [20_000_000n, 3_600n, 10 * 365 * 86_400, [[devnet.deployment.assets.usdc, 6, devnet.deployment.assets.usdcUsdFeed]]],
    )
    const child = createDelegation({
      environment: devnet.deployment.environment,
      from: golem.address,
      to: replicantKey.address,
      parentDelegation: delegation,
      caveats: [{ enforcer: devnet.deployment.enforcers.replicantBudget, terms: budgetTerms, args: '0x' }],
    })
    const signature = await signDelegation({
      privateKey: golemKey,
      delegation: child,
      delegationManager: devnet.deployment.environment.DelegationManager,
      chainId: devnet.chain.id,
    })
    const signedChild = { ...child, signature }
    const receipt = await redeem(replicantKey, [signedChild, delegation], parseUnits('5', 6))
    await waitForIndexed(url, receipt.blockNumber)

    const { body: page } = await getJson(`${url}/v1/golems/${replicantKey.address}/redemptions`)
    expect(page.items).toHaveLength(1)
    const item = page.items[0]
    expect(item).toMatchObject({
      txHash: receipt.transactionHash,
      redeemer: lc(replicantKey.address),
      rootDelegator: lc(owner.address),
      delegationHash: hashDelegation(signedChild),
      usd6: '5000000',
    })
    expect(item.delegations.map((x: any) => x.hash)).toEqual([hashDelegation(signedChild), hash])
    expect(item.transfers).toEqual([{ asset: lc(devnet.deployment.assets.usdc), amount: '5000000', usd6: '5000000' }])

    const periods = await getJson(`${url}/v1/golems/${replicantKey.address}/spend/periods`)
    expect(periods.body.items.map((p: any) => [p.source, p.amount]).sort()).toEqual([
      ['daily-spend-limit', '5000000'],
      ['erc20-period', '5000000'],
      ['replicant-budget', '5000000'],
    ])
    const [lifetime] = await sqlQuery<{ spent_usd: string; max_budget_usd: string; activated_at: string; expires_at: string }>(
      url,
      'select spent_usd, max_budget_usd, activated_at, expires_at from replicant where delegation_hash = $1',
      [hashDelegation(signedChild)],
    )
    expect(lifetime).toMatchObject({ spent_usd: '5000000', max_budget_usd: '20000000' })
    expect(BigInt(lifetime!.expires_at) - BigInt(lifetime!.activated_at)).toBe(3_600n)
    // The parent's daily counter counts the Replicant's spend too (parent caveats bind every child).
    const [parentDay] = await sqlQuery<{ spent: string }>(
      url,
      'select spent from delegation_spend where delegation_hash = $1 and source = $2',
      [hash, 'daily-spend-limit'],
    )
    expect(parentDay!.spent).toBe('30000000')

    // What each delegation still allows, from the enforcers' own views.
    const { body: parentLeft } = await getJson(`${url}/v1/delegations/${hash}/remaining`)
    const byKind = (views: { kind: string }[]) =>
      Object.fromEntries(views.map((v) => [v.kind, v])) as Record<string, Record<string, string>>
    const parentViews = byKind(parentLeft.views)
    expect(parentViews['daily-spend-limit']).toMatchObject({
      enforcer: devnet.deployment.enforcers.dailySpendLimit,
      remainingUsd6: '20000000',
    })
    expect(BigInt(parentViews['daily-spend-limit']!.resetsAt!) % 86_400n).toBe(0n)
    expect(parentViews['erc20-period']).toMatchObject({ availableAmount: String(parseUnits('70', 6)), isNewPeriod: false })
    const { body: childLeft } = await getJson(`${url}/v1/delegations/${hashDelegation(signedChild)}/remaining`)
    expect(childLeft.views).toEqual([
      {
        kind: 'replicant-budget',
        enforcer: devnet.deployment.enforcers.replicantBudget,
        remainingUsd6: '15000000',
        remainingSeconds: expect.any(String),
      },
    ])
    expect(BigInt(childLeft.views[0].remainingSeconds)).toBeLessThanOrEqual(3_600n)
    expect((await getJson(`${url}/v1/delegations/0x${'ab'.repeat(32)}/remaining`)).status).toBe(404)
  })

  it('leaves out delegations that do not touch Bardo, and serves GraphQL', async () => {
    const stranger = await devnet.fundedAccount()
    const other = await devnet.createOwner()
    const foreign = await signedDelegation(other, stranger.address, [])
    await redeem(stranger, foreign, parseUnits('1', 6))
    // A later Golem event: its block is only indexed after the stranger's.
    const marker = await send(golem, devnet.deployment.vitalityOracle, vitality('updatePhase', [1, 2900]))
    await waitForIndexed(url, marker.blockNumber)
    expect((await getJson(`${url}/v1/golems/${golem.address}`)).body.golem.lastReportBlock).toBe(String(marker.blockNumber))
    expect((await getJson(`${url}/v1/redemptions?redeemer=${stranger.address}`)).body.items).toEqual([])
    expect((await getJson(`${url}/v1/delegations/${hashDelegation(foreign)}`)).status).toBe(404)
    // Its period-transfer event left nothing behind either.
    expect(await sqlQuery(url, 'select items from pending_spend where delegation_hash = $1', [hashDelegation(foreign)])).toEqual([])

    const data = await graphqlQuery(
      url,
      `query($g: String!) { golem(address: $g) { phase survivalScore phaseTransitions { items { kind toPhase } } }
        redemptions(where: { redeemer: $g }) { totalCount } }`,
      { g: lc(golem.address) },
    )
    expect(data.golem).toMatchObject({ phase: 1, survivalScore: 2900 })
    expect(data.golem.phaseTransitions.items).toHaveLength(3)
    expect(data.redemptions.totalCount).toBe(2)
    // GolemPhaseEnforcer's selector table, seeded by its constructor.
    const classes = await sqlQuery<{ class_mask: number }>(url, 'select class_mask from action_class where selector = $1', ['0xa9059cbb'])
    expect(classes).toEqual([{ class_mask: 0x04 }])
  })
})

describe('key rotation and death', () => {
  it('carries phase history to the new key and records the death', async () => {
    const next = await devnet.fundedAccount()
    await operatorCall(encodeFunctionData({ abi: VitalityOracleAbi, functionName: 'rotateGolemKey', args: [golem.address, next.address] }))
    await send(next, devnet.deployment.vitalityOracle, vitality('updatePhase', [4, 100]))
    const death = await operatorCall(encodeFunctionData({ abi: VitalityOracleAbi, functionName: 'deregisterGolem', args: [next.address] }))
    await waitForIndexed(url, death.blockNumber)

    const { body: dead } = await getJson(`${url}/v1/golems/${next.address}`)
    expect(dead.golem).toMatchObject({ registered: false, dead: true, phase: 4, finalPhase: 4, rotatedFrom: lc(golem.address) })
    expect(dead.lineage).toEqual([lc(next.address), lc(golem.address)])
    const { body: old } = await getJson(`${url}/v1/golems/${golem.address}`)
    expect(old.golem).toMatchObject({ registered: false, dead: true, rotatedTo: lc(next.address), finalPhase: 1 })

    const { body: history } = await getJson(`${url}/v1/golems/${next.address}/phases`)
    expect(history.items.map((t: any) => [t.golem, t.toPhase])).toEqual([
      [lc(golem.address), 1],
      [lc(golem.address), 3],
      [lc(golem.address), 1],
      [lc(next.address), 4],
    ])
    const own = await getJson(`${url}/v1/golems/${next.address}/phases?lineage=false`)
    expect(own.body.items).toHaveLength(1)

    // One death record for the Golem, asked for by either key; the rotation was not a death.
    const registeredAt = BigInt(old.golem.registeredAt)
    for (const key of [golem.address, next.address]) {
      const { body } = await getJson(`${url}/v1/golems/${key}`)
      expect(body.firstKey).toBe(lc(golem.address))
      expect(body.death).toMatchObject({
        firstKey: lc(golem.address),
        key: lc(next.address),
        finalPhase: 4,
        bornAt: String(registeredAt),
        txHash: death.transactionHash,
      })
      expect(BigInt(body.death.lifeSeconds)).toBe(BigInt(body.death.diedAt) - registeredAt)
    }
    const deaths = (await getJson(`${url}/v1/deaths`)).body.items
    expect(deaths.map((d: { firstKey: string }) => d.firstKey)).toEqual([lc(golem.address)])
  })
})

describe('reorg', () => {
  it('keeps only the canonical chain rows after anvil reverts blocks', async () => {
    const g = await devnet.fundedAccount()
    await waitForIndexed(url, (await register(g.address)).blockNumber)

    const snapshot = await devnet.publicClient.request({ method: 'evm_snapshot' as never, params: [] as never })
    const orphan = await send(g, devnet.deployment.vitalityOracle, vitality('updatePhase', [3, 1000]))
    const dream = await send(g, devnet.deployment.dreamOracle, encodeFunctionData({ abi: DreamOracleAbi, functionName: 'startDream' }))
    await waitForIndexed(url, dream.blockNumber)
    expect(await sqlQuery(url, 'select id from phase_transition where tx_hash = $1', [orphan.transactionHash])).toHaveLength(1)
    expect((await getJson(`${url}/v1/golems/${g.address}`)).body.golem).toMatchObject({ phase: 3, dreaming: true })

    // Back to before the two blocks, then a different history at the same heights and beyond.
    await devnet.publicClient.request({ method: 'evm_revert' as never, params: [snapshot] as never })
    const canonical = await send(g, devnet.deployment.vitalityOracle, vitality('updatePhase', [2, 4000]))
    expect(canonical.blockNumber).toBe(orphan.blockNumber)
    await devnet.publicClient.request({ method: 'anvil_mine' as never, params: ['0x1'] as never })
    // Past the orphaned tip: /status keeps the old tip's checkpoint until a block after the reorg is indexed.
    const later = await send(
      g,
      devnet.deployment.daimonOracle,
      encodeFunctionData({ abi: DaimonOracleAbi, functionName: 'setPAD', args: [1, 2, 3] }),
    )
    expect(later.blockNumber).toBe(dream.blockNumber + 1n)

    // Ponder saw a reorg (not, say, a restart) and rolled back to a block before the orphans...
    const reorg = await indexer.waitForLog((l) => l.msg === 'Reorged block', 60_000)
    expect(reorg.number).toBeLessThan(Number(orphan.blockNumber))
    // ...then indexed the canonical blocks at the same heights and beyond.
    await waitForIndexed(url, later.blockNumber)

    const { body: history } = await getJson(`${url}/v1/golems/${g.address}/phases`)
    expect(history.items.map((t: any) => [t.txHash, t.fromPhase, t.toPhase, t.survivalScore])).toEqual([
      [canonical.transactionHash, 0, 2, 4000],
    ])
    expect(await sqlQuery(url, 'select id from phase_transition where tx_hash = $1', [orphan.transactionHash])).toEqual([])
    const { body } = await getJson(`${url}/v1/golems/${g.address}`)
    expect(body.golem).toMatchObject({ phase: 2, survivalScore: 4000, dreaming: false, dreamCount: 0, reportCount: 1, pleasure: 1 })
    expect((await getJson(`${url}/v1/golems/${g.address}/dreams`)).body.items).toEqual([])
  })
})
