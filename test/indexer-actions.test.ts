// A Golem's actions in the indexer: a provisioned Golem swaps (approve + swap) and deposits (approve +
// deposit) through custody's action path on anvil and the real DelegationManager; the indexer, under the
// configuration `npm start` gives it, writes one golem_action row per call with its kind, tokens, amounts,
// USD value and the caveats that bound it, readable through /v1, GraphQL and SQL. The runway pull is not
// an action.
import {
  concat,
  createWalletClient,
  encodeAbiParameters,
  encodeFunctionData,
  encodePacked,
  erc20Abi,
  http,
  numberToHex,
  parseAbi,
  type Address,
  type Hex,
} from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MockPriceFeedAbi, TestVaultAbi } from '../contracts/artifacts/index.ts'
import { parseGolemProfile } from '../core/lifecycle/profile.ts'
import { executeAction, type ExecuteActionDeps } from '../app/actions/executeAction.ts'
import { runTick } from '../app/tick/runTick.ts'
import { caveatName, decodeAction, decodeExecutionCalldata, decodeRedemptionCalldata, isActionChain } from '../indexer/lib/actions.ts'
import { stackIndexerOptions, toIndexerDeployment } from '../indexer/lib/deployment.ts'
import { indexerEnv, loadIndexerSettings } from '../indexer/lib/settings.ts'
import { startIndexer, type RunningIndexer } from '../indexer/start.ts'
import { getJson, graphqlQuery, sqlQuery, waitForIndexed } from '../indexer/testing.ts'
import type { ProvisionedGolem } from '../local/provision.ts'
import { startHeartbeatEnv, USDC, type HeartbeatEnv } from './heartbeat/harness.ts'
import { provisionGolemIn } from './support/provisionGolemIn.ts'

const STRATEGY = 'Swap USDC for WETH on the router and deposit USDC into the vault, withdraw it later.\nbudget: $50/day'
// $10 of USDC at $3,000 per WETH is 1/300 WETH at the feed price.
const FAIR_WETH_FOR_10 = 10n ** 18n / 300n
const lc = (a: string) => a.toLowerCase()

type ActionRow = {
  id: string
  golem: string
  firstKey: string
  kind: string
  selector: string | null
  target: string
  counterparty: string | null
  tokens: string[]
  amounts: string[]
  value: string
  usd6: string | null
  delegationHash: string
  caveats: { enforcer: string; name: string | null }[]
  txHash: string
}

let env: HeartbeatEnv
let indexer: RunningIndexer
let golem: ProvisionedGolem
let deps: ExecuteActionDeps
let assets: HeartbeatEnv['devnet']['deployment']['assets']
let owner: Address
const txs: { swap?: Hex; deposit?: Hex } = {}

beforeAll(async () => {
  env = await startHeartbeatEnv()
  assets = env.devnet.deployment.assets
  indexer = await startIndexer(stackIndexerOptions({ rpcUrl: env.devnet.rpcUrl, deployment: env.devnet.deployment }, { local: true }))
  const ownerAccount = await env.devnet.createOwner({ usdc: USDC(1_000) })
  owner = ownerAccount.address
  golem = await provisionGolemIn(env, 'g1', {
    owner: ownerAccount,
    strategy: STRATEGY,
    lifeSeconds: 3_600n,
  })
  deps = {
    store: env.store,
    client: env.client,
    deployment: env.devnet.deployment,
    signers: env.signers,
    invocationId: 'test-indexer-actions',
  }
  // Someone else's deposit, so the vault has shares outstanding; feeds fresh at chain time ($3,000 per ETH, $1 per USDC).
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
  for (const [feed, answer] of [
    [assets.ethUsdFeed, 3_000n * 10n ** 8n],
    [assets.usdcUsdFeed, 10n ** 8n],
  ] as const) {
    await env.client.waitForTransactionReceipt({
      hash: await env.devnet.deployer.writeContract({ address: feed, abi: MockPriceFeedAbi, functionName: 'setAnswer', args: [answer] }),
    })
  }

  // One runway redemption (not an action), then the swap and the deposit.
  await runTick(env.deps('tick-1'), { golemId: 'g1' })
  const swapped = await executeAction(deps, {
    golemId: 'g1',
    requestId: 'swap-1',
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
  if (swapped.status !== 'executed')
    throw new Error(`swap not executed: ${JSON.stringify(swapped, (_, v) => (typeof v === 'bigint' ? String(v) : v))}`)
  txs.swap = swapped.txHash
  const deposited = await executeAction(deps, {
    golemId: 'g1',
    requestId: 'deposit-1',
    actions: [
      { kind: 'approve', token: assets.usdc, spender: assets.vault, amount: USDC(20) },
      { kind: 'deposit', vault: assets.vault, assets: USDC(20) },
    ],
  })
  if (deposited.status !== 'executed') throw new Error(`deposit not executed: ${deposited.status}`)
  txs.deposit = deposited.txHash
  await waitForIndexed(indexer.url, await env.client.getBlockNumber())
}, 240_000)

afterAll(async () => {
  await indexer?.stop()
  await env?.stop()
})

describe('golem_action', () => {
  it('indexes the swap and the deposit, each call with its kind, tokens, amounts, USD value and caveats', async () => {
    const { body } = await getJson<{ firstKey: string; items: ActionRow[] }>(`${indexer.url}/v1/golems/${golem.golemKey}/actions`)
    expect(body.firstKey).toBe(lc(golem.golemKey))
    // Newest first: deposit (approve, deposit), then swap (approve, swap); the runway pull is not among them.
    expect(body.items.map((a) => [a.txHash, a.kind])).toEqual([
      [txs.deposit, 'deposit'],
      [txs.deposit, 'approve'],
      [txs.swap, 'swap'],
      [txs.swap, 'approve'],
    ])
    const [deposit, depositApproval, swap, swapApproval] = body.items as [ActionRow, ActionRow, ActionRow, ActionRow]
    expect(swap).toMatchObject({
      golem: lc(golem.golemKey),
      firstKey: lc(golem.golemKey),
      selector: '0x04e45aaf',
      target: lc(assets.router),
      counterparty: lc(owner),
      tokens: [lc(assets.usdc), lc(assets.weth)],
      amounts: [String(USDC(10)), String((FAIR_WETH_FOR_10 * 995n) / 1000n)],
      value: '0',
      // $10 of USDC at the $1.00 feed.
      usd6: '10000000',
    })
    expect(swapApproval).toMatchObject({
      selector: '0x095ea7b3',
      target: lc(assets.usdc),
      counterparty: lc(assets.router),
      tokens: [lc(assets.usdc)],
      amounts: [String(USDC(10))],
      usd6: '10000000',
    })
    expect(deposit).toMatchObject({
      selector: '0x6e553f65',
      target: lc(assets.vault),
      counterparty: lc(owner),
      tokens: [lc(assets.usdc)],
      amounts: [String(USDC(20))],
      usd6: '20000000',
    })
    expect(depositApproval).toMatchObject({ counterparty: lc(assets.vault), usd6: '20000000' })

    // The caveats are named: the swap is bound by its slippage bound, the phase gate and the pinned calldata;
    // the approvals by the spender's daily USD budget.
    const names = (a: ActionRow) => a.caveats.map((c) => c.name)
    expect(names(swap)).toEqual(expect.arrayContaining(['maxSlippage', 'golemPhase', 'dreamMode']))
    expect(names(swapApproval)).toEqual(expect.arrayContaining(['dailySpendLimit']))
    for (const a of body.items) {
      expect(a.caveats.length).toBeGreaterThan(0)
      expect(a.caveats.every((c) => c.name !== null)).toBe(true)
    }
    // Each row's delegation is the one the redemption rows name for its transaction.
    const record = parseGolemProfile((await env.store.getGolem('g1'))!.profile)
    expect(body.items.every((a) => a.delegationHash !== lc(record.runway.periodDelegationHash))).toBe(true)
  })

  it("answers through GraphQL and SQL, by the Golem's first key", async () => {
    const id = lc(golem.golemKey)
    const data = await graphqlQuery(
      indexer.url,
      `query($id: String!) { golemActions(where: { firstKey: $id }, orderBy: "blockNumber") { totalCount items { kind usd6 caveats delegation { hash } } } }`,
      { id },
    )
    expect(data.golemActions.totalCount).toBe(4)
    expect(data.golemActions.items.map((a: { kind: string }) => a.kind).sort()).toEqual(['approve', 'approve', 'deposit', 'swap'])
    expect(data.golemActions.items.every((a: { delegation: { hash: string } | null }) => a.delegation !== null)).toBe(true)
    const rows = await sqlQuery<{ kind: string; usd6: string; tx_hash: string }>(
      indexer.url,
      'select kind, usd6, tx_hash from golem_action where first_key = $1 and kind in ($2, $3) order by block_number',
      [id, 'swap', 'deposit'],
    )
    expect(rows).toEqual([
      { kind: 'swap', usd6: '10000000', tx_hash: txs.swap },
      { kind: 'deposit', usd6: '20000000', tx_hash: txs.deposit },
    ])
  })

  it('refuses a bad address on the route, changing nothing', async () => {
    const { status, body } = await getJson(`${indexer.url}/v1/golems/not-an-address/actions`)
    expect(status).toBe(400)
    expect(JSON.stringify(body)).toContain('address')
  })
})

describe('decoding a redemption into actions (pure)', () => {
  const A = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as Address
  const vaultAbi = parseAbi([
    'function withdraw(uint256 assets, address receiver, address owner)',
    'function redeem(uint256 shares, address receiver, address owner)',
    'function exactInput((bytes path, address recipient, uint256 amountIn, uint256 amountOutMinimum) params)',
  ])

  it('reads withdraw, redeem and a multi-hop swap; anything else is `other` with its selector', () => {
    const withdraw = decodeAction({
      target: A(9),
      value: 0n,
      callData: encodeFunctionData({ abi: vaultAbi, functionName: 'withdraw', args: [5n, A(1), A(1)] }),
    })
    expect(withdraw).toMatchObject({ kind: 'withdraw', counterparty: A(1), amounts: [5n], valued: { vault: A(9), assets: 5n } })
    const redeem = decodeAction({
      target: A(9),
      value: 0n,
      callData: encodeFunctionData({ abi: vaultAbi, functionName: 'redeem', args: [7n, A(1), A(1)] }),
    })
    expect(redeem).toMatchObject({ kind: 'redeem', tokens: [A(9)], amounts: [7n], valued: { vault: A(9), shares: 7n } })
    const path = encodePacked(['address', 'uint24', 'address', 'uint24', 'address'], [A(2), 500, A(3), 3000, A(4)])
    const swap = decodeAction({
      target: A(8),
      value: 0n,
      callData: encodeFunctionData({
        abi: vaultAbi,
        functionName: 'exactInput',
        args: [{ path, recipient: A(1), amountIn: 10n, amountOutMinimum: 9n }],
      }),
    })
    expect(swap).toMatchObject({ kind: 'swap', tokens: [A(2), A(4)], amounts: [10n, 9n], valued: { token: A(2), amount: 10n } })
    expect(decodeAction({ target: A(8), value: 1n, callData: '0x' })).toMatchObject({ kind: 'other', selector: null, valued: null })
    // A known selector with calldata too short to decode is not guessed at.
    expect(decodeAction({ target: A(8), value: 0n, callData: '0x095ea7b3' })).toMatchObject({ kind: 'other', selector: '0x095ea7b3' })
  })

  it('reads single and batch execution calldata, and refuses an input that is not redeemDelegations', () => {
    const single = decodeExecutionCalldata(numberToHex(0, { size: 32 }), concat([A(5), numberToHex(3n, { size: 32 }), '0xdeadbeef']))
    expect(single).toEqual([{ target: A(5), value: 3n, callData: '0xdeadbeef' }])
    const batchData = encodeAbiParameters(
      [
        {
          type: 'tuple[]',
          components: [
            { type: 'address', name: 'target' },
            { type: 'uint256', name: 'value' },
            { type: 'bytes', name: 'callData' },
          ],
        },
      ],
      [
        [
          { target: A(5), value: 0n, callData: '0x01' },
          { target: A(6), value: 2n, callData: '0x' },
        ],
      ],
    )
    expect(decodeExecutionCalldata(`0x01${'00'.repeat(31)}`, batchData)).toHaveLength(2)
    expect(decodeRedemptionCalldata('0xa9059cbb')).toBeNull()
    expect(decodeRedemptionCalldata('0x')).toBeNull()
    // A redeemDelegations call whose context is not a delegation chain is not read at all.
    const garbled = encodeFunctionData({
      abi: parseAbi(['function redeemDelegations(bytes[] permissionContexts, bytes32[] modes, bytes[] executionCallDatas)']),
      args: [['0x1234'], [`0x${'00'.repeat(32)}`], ['0x']],
    })
    expect(decodeRedemptionCalldata(garbled)).toBeNull()
  })

  it('leaves the runway and the gas out (a period-transfer caveat anywhere in the chain), and names caveats', () => {
    const d = (enforcer: Address) => ({
      delegate: A(1),
      delegator: A(2),
      authority: `0x${'00'.repeat(32)}` as Hex,
      salt: 0n,
      caveats: [{ enforcer, terms: '0x' as Hex, args: '0x' as Hex }],
    })
    expect(isActionChain([d(A(7)), d(A(8))], [A(8)])).toBe(false)
    expect(isActionChain([d(A(7))], [A(8)])).toBe(true)
    expect(['AllowedTargetsEnforcer', 'ERC20PeriodTransferEnforcer', 'ValueLteEnforcer', 'maxSlippage'].map(caveatName)).toEqual([
      'allowedTargets',
      'erc20PeriodTransfer',
      'valueLte',
      'maxSlippage',
    ])
    const settings = loadIndexerSettings(
      indexerEnv({
        chainId: 31337,
        rpcUrl: 'http://127.0.0.1:1',
        deployment: toIndexerDeployment({
          chainId: 31337,
          enforcers: { maxSlippage: A(9), vaultNav: A(10) },
          environment: {
            DelegationManager: A(13),
            caveatEnforcers: { AllowedTargetsEnforcer: A(11), ERC20PeriodTransferEnforcer: A(14) },
          } as never,
        }),
      }),
    )
    expect(settings.caveatNames).toMatchObject({
      [lc(A(9))]: 'maxSlippage',
      [lc(A(10))]: 'vaultNav',
      [lc(A(11))]: 'allowedTargets',
      [lc(A(14))]: 'erc20PeriodTransfer',
    })
  })
})
