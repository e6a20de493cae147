// The action path's pure decisions: which delegation covers a call, and the pre-check that refuses with
// the enforcer's own error, arguments and words, on a fixed observation (no chain).
import { decodeFunctionData, encodeFunctionData, encodePacked, erc20Abi, getAddress, pad, type Address, type Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import {
  DEC_21_2026,
  DEPLOYMENT,
  ENV,
  FEED_ETH,
  FEED_USDC,
  GOLEM,
  NOW,
  OWNER,
  ROUTER,
  USD,
  USDC,
  VAULT,
  WETH,
} from '../../test/support/caveats/fixtures.ts'
import { buildGolemDelegation } from '../delegations/buildGolemDelegation.ts'
import { DelegationTree } from '../delegations/tree.ts'
import { TUPLE_OFFSET_WORD } from '../permissions/callLayouts.ts'
import { SELECTORS } from '../permissions/selectors.ts'
import { depositForBurnAbi, exactInputAbi, positionManagerAbi } from './actionAbi.ts'
import { encodeActionCall, type ActionRequest } from './actionCall.ts'
import { swapPathEnds } from './swapPath.ts'
import { chooseDelegation, type GrantedAction } from './chooseDelegation.ts'
import { ActionRequestError } from './errors.ts'
import { observationNeeds, precheckActions, type ActionObservation } from './precheckAction.ts'
import { toUsd, wordAt } from './usdValuation.ts'

const OTHER: Address = getAddress('0x000000000000000000000000000000000000a77a')
const WEI = 10n ** 18n
const FEEDS = [
  { token: USDC, decimals: 6, feed: FEED_USDC },
  { token: WETH, decimals: 18, feed: FEED_ETH },
]

function grant(): GrantedAction[] {
  const tree = new DelegationTree({ environment: ENV, deployment: DEPLOYMENT, now: () => NOW })
  const g = buildGolemDelegation({
    tree,
    owner: OWNER,
    golem: GOLEM,
    bardo: [
      { type: 'golemPhase', golem: GOLEM, startTime: NOW, endTime: DEC_21_2026 },
      { type: 'dreamMode', golem: GOLEM },
    ],
    actions: [
      {
        name: 'Swap: exactInputSingle',
        targets: [ROUTER],
        selectors: [SELECTORS.exactInputSingle],
        receivers: [100],
        bardo: [{ type: 'maxSlippage', maxSlippageBps: 100, maxPriceAge: 3_600, feeds: FEEDS }],
      },
      {
        name: 'Swap: exactInput',
        targets: [ROUTER],
        selectors: [SELECTORS.exactInput],
        receivers: [68],
        calldata: [{ startIndex: 4, value: TUPLE_OFFSET_WORD }],
        bardo: [{ type: 'maxSlippage', maxSlippageBps: 100, maxPriceAge: 3_600, feeds: FEEDS }],
      },
      {
        name: 'VaultManagement: withdraw, redeem',
        targets: [VAULT],
        selectors: [SELECTORS.vaultWithdraw, SELECTORS.vaultRedeem],
        receivers: [68, 36],
      },
    ],
    approvals: [
      {
        spender: ROUTER,
        tokens: [USDC, WETH],
        bardo: [{ type: 'dailySpendLimit', dailyLimitUsd: USD(25), maxPriceAge: 3_600, feeds: FEEDS }],
      },
    ],
  })
  const entries = [
    ...g.actions!.map((a) => ({ hash: a.hash, label: a.name })),
    ...g.approvals!.map((a) => ({ hash: a.hash, label: `approvals: ${a.spender}` })),
  ]
  return entries.map((e) => ({ ...e, chain: tree.chain(e.hash), caveats: tree.get(e.hash)!.caveats }))
}

const call = (r: ActionRequest) => encodeActionCall(r, OWNER)
const swap = (p: Partial<Extract<ActionRequest, { kind: 'swap' }>> = {}): ActionRequest => ({
  kind: 'swap',
  router: ROUTER,
  tokenIn: USDC,
  tokenOut: WETH,
  amountIn: USD(10),
  amountOutMinimum: ((WEI / 300n) * 995n) / 1000n,
  ...p,
})
const approve = (amount: bigint, spender: Address = ROUTER): ActionRequest => ({ kind: 'approve', token: USDC, spender, amount })

function observation(
  p: Partial<{ phase: number; dreamingSince: bigint; now: bigint; spent: bigint; ethUpdatedAt: bigint }> = {},
): ActionObservation {
  const now = p.now ?? NOW + 100n
  const hashes = grant().map((g) => g.hash.toLowerCase())
  return {
    now,
    delegationManager: ENV.DelegationManager,
    redeemer: GOLEM,
    vitality: new Map([[GOLEM.toLowerCase(), { registered: true, phase: p.phase ?? 0 }]]),
    dreamingSince: new Map([[GOLEM.toLowerCase(), p.dreamingSince ?? 0n]]),
    actionClasses: new Map<string, number>([
      [SELECTORS.exactInputSingle, 0x01],
      [SELECTORS.exactInput, 0x01],
      [SELECTORS.erc20Approve, 0x01],
      [SELECTORS.vaultWithdraw, 0x02],
    ]),
    feeds: new Map([
      [FEED_USDC.toLowerCase(), { answer: 10n ** 8n, updatedAt: now, decimals: 8 }],
      [FEED_ETH.toLowerCase(), { answer: 3_000n * 10n ** 8n, updatedAt: p.ethUpdatedAt ?? now, decimals: 8 }],
    ]),
    spentTodayUsd: new Map([[hashes[3]!, p.spent ?? 0n]]),
    removals: new Map(),
  }
}

function check(requests: ActionRequest[], o: ActionObservation = observation()) {
  const grants = grant()
  const items = requests.map((r, i) => {
    const chosen = chooseDelegation(grants, call(r), i)
    if (!chosen.ok) throw new Error(chosen.refusal.reason)
    return { call: call(r), delegation: chosen.delegation }
  })
  return precheckActions(items, o)
}

describe('chooseDelegation', () => {
  it('picks the delegation whose targets, methods and pinned words cover the call', () => {
    const grants = grant()
    expect(chooseDelegation(grants, call(swap()))).toMatchObject({ ok: true, delegation: { label: 'Swap: exactInputSingle' } })
    expect(chooseDelegation(grants, call({ kind: 'withdraw', vault: VAULT, assets: 1n }))).toMatchObject({
      ok: true,
      delegation: { label: 'VaultManagement: withdraw, redeem' },
    })
    expect(chooseDelegation(grants, call(approve(1n)))).toMatchObject({ ok: true, delegation: { label: `approvals: ${ROUTER}` } })
  })

  it.each([
    [
      'a swap paying out to another account',
      swap({ recipient: OTHER }),
      'allowedCalldata',
      `allowedCalldata: the call names an argument the delegation pins to another value (Swap: exactInputSingle: byte 100 must be the owner's account ${OWNER}; the call names ${OTHER})`,
    ],
    [
      'a withdrawal of shares that are not the owner’s',
      { kind: 'withdraw', vault: VAULT, assets: 1n, shareOwner: OTHER } as ActionRequest,
      'allowedCalldata',
      `byte 68 must be the owner's account ${OWNER}; the call names ${OTHER}`,
    ],
    ['an approval of a spender not granted', approve(1n, OTHER), 'allowedCalldata', `byte 4 must be ${ROUTER}; the call names ${OTHER}`],
    [
      'a deposit (no delegation for it)',
      { kind: 'deposit', vault: VAULT, assets: 1n } as ActionRequest,
      'allowedMethods',
      'the call is a method the delegation does not allow',
    ],
  ])('refuses %s, naming the caveat of the closest delegation', (_name, request, caveat, words) => {
    const chosen = chooseDelegation(grant(), call(request))
    expect(chosen.ok).toBe(false)
    if (chosen.ok) return
    expect(chosen.refusal.caveat).toBe(caveat)
    expect(chosen.refusal.reason).toContain(words)
    expect(chosen.closest).toBeDefined()
  })

  it('says so when the Golem holds no action grant', () => {
    const chosen = chooseDelegation([], call(swap()))
    expect(chosen).toMatchObject({ ok: false, refusal: { caveat: 'grant', error: 'NoDelegation' } })
  })
})

describe('precheckActions', () => {
  it('passes a fair swap, a withdrawal and an approval within the budget', () => {
    expect(check([approve(USD(10)), swap(), { kind: 'withdraw', vault: VAULT, assets: 1n }])).toBeUndefined()
  })

  it('refuses opening in Conservation with GolemPhase’s error and words, and lets closing through', () => {
    expect(check([swap()], observation({ phase: 2 }))).toEqual({
      caveat: 'golemPhase',
      error: 'ActionNotAllowedInPhase',
      args: [GOLEM, 2, SELECTORS.exactInputSingle, 1],
      reason: 'golemPhase: the Golem is in Conservation (phase 2), which does not allow exactInputSingle (OPEN)',
      call: 0,
    })
    expect(check([{ kind: 'withdraw', vault: VAULT, assets: 1n }], observation({ phase: 2 }))).toBeUndefined()
    expect(check([{ kind: 'withdraw', vault: VAULT, assets: 1n }], observation({ phase: 4 }))?.error).toBe('ActionNotAllowedInPhase')
  })

  it('refuses after the life window with the chain time and the end', () => {
    const r = check([swap()], observation({ now: DEC_21_2026 + 1n }))
    expect(r).toMatchObject({ caveat: 'golemPhase', error: 'DelegationExpired', args: [DEC_21_2026 + 1n, DEC_21_2026] })
  })

  it('checks a runway delegation as runway terms: one plain transfer, no table read, nothing in Terminal', () => {
    const tree = new DelegationTree({ environment: ENV, deployment: DEPLOYMENT, now: () => NOW })
    const g = buildGolemDelegation({
      tree,
      owner: OWNER,
      golem: GOLEM,
      bardo: [{ type: 'golemPhase', golem: GOLEM, startTime: NOW, endTime: DEC_21_2026 }],
      runway: { token: USDC, periodAmount: USD(100), periodDuration: 86_400, startDate: Number(NOW) },
    })
    const hash = g.runway!.hash
    const runway: GrantedAction = { hash, label: 'runway', chain: tree.chain(hash), caveats: tree.get(hash)!.caveats }
    expect(runway.caveats.find((c) => c.type === 'golemPhase')).toMatchObject({ runway: true })
    const transfer = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [GOLEM, USD(1)] })
    const approveCall = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [ROUTER, USD(1)] })
    const item = (callData: Hex) => [{ call: { kind: 'approve' as const, target: USDC, value: 0n, callData }, delegation: runway }]
    // No action-class reading is needed: the class is TRANSFER by the terms.
    const o = { ...observation(), actionClasses: new Map<string, number>() }
    expect(precheckActions(item(transfer), o)).toBeUndefined()
    expect(precheckActions(item(approveCall), o)).toMatchObject({
      caveat: 'golemPhase',
      error: 'NotARunwayTransfer',
      args: [USDC, SELECTORS.erc20Approve],
    })
    expect(precheckActions(item(transfer), { ...observation({ phase: 4 }), actionClasses: new Map() })).toMatchObject({
      error: 'ActionNotAllowedInPhase',
      args: [GOLEM, 4, '0xa9059cbb', 0x04],
    })
  })

  it('refuses while dreaming, naming since when', () => {
    expect(check([swap()], observation({ dreamingSince: NOW }))).toMatchObject({
      caveat: 'dreamMode',
      error: 'GolemDreaming',
      args: [GOLEM, NOW],
    })
  })

  it('refuses a swap below the slippage bound with the expected output, the minimum, and both bps', () => {
    const fair = WEI / 300n
    const minOut = (fair * 98n) / 100n
    expect(check([swap({ amountOutMinimum: minOut })])).toMatchObject({
      caveat: 'maxSlippage',
      error: 'SlippageExceeded',
      args: [fair, minOut, 200n, 100n],
    })
  })

  it('refuses a swap of a token the caveat cannot price', () => {
    expect(check([swap({ tokenOut: OTHER })])).toMatchObject({ caveat: 'maxSlippage', error: 'UnpricedAsset', args: [OTHER] })
  })

  it('refuses a swap on a stale price, as the price-reading caveat', () => {
    const r = check([swap()], observation({ ethUpdatedAt: NOW - 10_000n }))
    expect(r).toMatchObject({ caveat: 'maxSlippage', error: 'StalePrice', args: [FEED_ETH, NOW - 10_000n, 3_600n] })
  })

  it('checks a multi-hop swap between its route’s ends: a fair one passes, one below the bound is refused as a single-pool swap is', () => {
    const fair = WEI / 300n
    const route = { via: [{ token: OTHER, fee: 3_000 }] }
    expect(chooseDelegation(grant(), call(swap(route)))).toMatchObject({ ok: true, delegation: { label: 'Swap: exactInput' } })
    expect(check([swap(route)])).toBeUndefined()
    const minOut = (fair * 98n) / 100n
    expect(check([swap({ ...route, amountOutMinimum: minOut })])).toMatchObject({
      caveat: 'maxSlippage',
      error: 'SlippageExceeded',
      args: [fair, minOut, 200n, 100n],
    })
    expect(check([swap({ via: [{ token: WETH }], tokenOut: OTHER })])).toMatchObject({ error: 'UnpricedAsset', args: [OTHER] })
  })

  it('counts a batch’s approvals against one day’s budget in order, as one transaction’s redemptions do', () => {
    const r = check([approve(USD(15)), swap(), approve(USD(15))], observation({ spent: USD(0) }))
    expect(r).toMatchObject({
      caveat: 'dailySpendLimit',
      error: 'DailySpendLimitExceeded',
      call: 2,
      args: [(NOW + 100n) / 86_400n, USD(15), USD(15), USD(25)],
    })
    expect(r?.reason).toBe("dailySpendLimit: this call is worth $15.00, but only $10.00 of today's $25.00 is left ($15.00 spent)")
    expect(check([approve(USD(5))], observation({ spent: USD(20) }))).toBeUndefined()
  })

  it('lists what the edge must read, once each', () => {
    const grants = grant()
    const items = [approve(1n), swap()].map((r) => {
      const chosen = chooseDelegation(grants, call(r))
      return { call: call(r), delegation: (chosen as { delegation: GrantedAction }).delegation }
    })
    const needs = observationNeeds(items)
    expect(needs.golems).toEqual([GOLEM])
    expect(needs.selectors.sort()).toEqual([SELECTORS.erc20Approve, SELECTORS.exactInputSingle].sort())
    expect(needs.feeds.sort()).toEqual([FEED_USDC, FEED_ETH].sort())
    expect(needs.spendHashes).toEqual([grants[3]!.hash.toLowerCase()])
  })
})

describe('the enforcers’ arithmetic', () => {
  it('values like UsdValuation.toUsd: rounded up, max stays max', () => {
    expect(toUsd(USD(10), 10n ** 8n, 6, 8)).toBe(USD(10))
    expect(toUsd(1n, 3_000n * 10n ** 8n, 18, 8)).toBe(1n) // 3e-15 dollars rounds up to one micro-dollar
    expect(toUsd(2n ** 256n - 1n, 1n, 6, 8)).toBe(2n ** 256n - 1n)
  })

  it('reads words zero-padded past the end, as CALLDATALOAD does', () => {
    expect(wordAt('0x12345678ff' as Hex, 4)).toBe(0xffn << 248n)
    expect(wordAt('0x12345678' as Hex, 4)).toBe(0n)
  })
})

describe('encodeActionCall', () => {
  it.each([
    [
      'an unknown kind',
      { kind: 'borrow' },
      'request.kind must be one of swap, deposit, withdraw, redeem, approve, bridge, provideLiquidity, collect',
    ],
    ['a bad router', { ...swap(), router: '0x1234' }, 'request.router must be a 20-byte 0x address'],
    ['a zero swap', { ...swap(), amountIn: 0n }, 'request.amountIn must be greater than 0'],
    ['a number amount', { kind: 'approve', token: USDC, spender: ROUTER, amount: 5 }, 'request.amount must be a uint256 bigint'],
    ['a fee tier out of range', { ...swap(), fee: 2 ** 24 }, 'request.fee must be a uint24 fee tier'],
    ['an empty route', { ...swap(), via: [] }, 'request.via must name 1-3 tokens the route passes through'],
    [
      'a route of four tokens',
      { ...swap(), via: [{ token: OTHER }, { token: VAULT }, { token: OTHER }, { token: VAULT }] },
      'request.via must name 1-3 tokens',
    ],
    ['a bad token on the route', { ...swap(), via: [{ token: '0x12' }] }, 'request.via[0].token must be a 20-byte 0x address'],
    ['a bad fee on the route', { ...swap(), via: [{ token: OTHER, fee: -1 }] }, 'request.via[0].fee must be a uint24 fee tier'],
    [
      'a hop to the token it starts from',
      { ...swap(), via: [{ token: USDC }] },
      'request.via[0].token must differ from the token before it on the route',
    ],
    [
      'a route ending where it last passed',
      { ...swap(), via: [{ token: OTHER }, { token: WETH }] },
      'request.tokenOut must differ from the token before it on the route',
    ],
    [
      'a bridge that is all fee',
      { kind: 'bridge', messenger: ROUTER, token: USDC, amount: 5n, destinationDomain: 3, maxFee: 5n },
      'request.maxFee must be below amount',
    ],
    [
      'a bridge to no domain',
      { kind: 'bridge', messenger: ROUTER, token: USDC, amount: 5n, destinationDomain: -1 },
      'request.destinationDomain must be a uint32',
    ],
    [
      'a bridge of no token',
      { kind: 'bridge', messenger: ROUTER, amount: 5n, destinationDomain: 3 },
      'request.token must be a 20-byte 0x address',
    ],
    [
      'a mint of two zero amounts',
      {
        ...{
          kind: 'provideLiquidity',
          positionManager: ROUTER,
          token0: USDC < WETH ? USDC : WETH,
          token1: USDC < WETH ? WETH : USDC,
          tickLower: -60,
          tickUpper: 60,
          amount0Desired: 5n,
          amount1Desired: 5n,
          amount0Min: 0n,
          amount1Min: 0n,
        },
        amount0Desired: 0n,
        amount1Desired: 0n,
      },
      'request.amount0Desired and amount1Desired must not both be 0',
    ],
    [
      'a mint with a tick out of range',
      {
        ...{
          kind: 'provideLiquidity',
          positionManager: ROUTER,
          token0: USDC < WETH ? USDC : WETH,
          token1: USDC < WETH ? WETH : USDC,
          tickLower: -60,
          tickUpper: 60,
          amount0Desired: 5n,
          amount1Desired: 5n,
          amount0Min: 0n,
          amount1Min: 0n,
        },
        tickLower: -887_273,
      },
      'request.tickLower must be a whole tick within ±887272',
    ],
    [
      'a collect over uint128',
      { kind: 'collect', positionManager: ROUTER, tokenId: 1n, amount0Max: 2n ** 128n },
      'request.amount0Max must be a uint128',
    ],
  ])('refuses %s, naming the field', (_name, request, message) => {
    expect(() => encodeActionCall(request as ActionRequest, OWNER)).toThrowError(ActionRequestError)
    expect(() => encodeActionCall(request as ActionRequest, OWNER)).toThrowError(message)
  })

  it('encodes a route as exactInput along the packed path, output to the owner', () => {
    const c = call(swap({ via: [{ token: OTHER, fee: 3_000 }], fee: 100 }))
    const { functionName, args } = decodeFunctionData({ abi: exactInputAbi, data: c.callData })
    expect(functionName).toBe('exactInput')
    expect(args[0]).toEqual({
      path: encodePacked(['address', 'uint24', 'address', 'uint24', 'address'], [USDC, 3_000, OTHER, 100, WETH]),
      recipient: OWNER,
      amountIn: USD(10),
      amountOutMinimum: ((WEI / 300n) * 995n) / 1000n,
    })
    expect(swapPathEnds(args[0].path)).toEqual({ tokenIn: USDC, tokenOut: WETH })
    expect(swapPathEnds(`${args[0].path}00`)).toBeUndefined()
    expect(swapPathEnds(USDC)).toBeUndefined()
  })

  it('encodes a bridge as depositForBurn minting to the owner, anyone relaying, no fee, at finality', () => {
    const c = call({ kind: 'bridge', messenger: ROUTER, token: USDC, amount: USD(10), destinationDomain: 3 })
    const { functionName, args } = decodeFunctionData({ abi: depositForBurnAbi, data: c.callData })
    expect(functionName).toBe('depositForBurn')
    expect(args).toEqual([USD(10), 3, pad(OWNER.toLowerCase() as Hex), USDC, pad('0x'), 0n, 2_000])
  })

  it('mints a position for the owner and collects to the owner, everything owed unless told otherwise', () => {
    const minted = decodeFunctionData({
      abi: positionManagerAbi,
      data: call({
        kind: 'provideLiquidity',
        positionManager: ROUTER,
        token0: USDC < WETH ? USDC : WETH,
        token1: USDC < WETH ? WETH : USDC,
        tickLower: -60,
        tickUpper: 60,
        amount0Desired: 5n,
        amount1Desired: 5n,
        amount0Min: 0n,
        amount1Min: 0n,
      }).callData,
    })
    expect(minted.functionName).toBe('mint')
    expect(minted.args[0]).toMatchObject({ recipient: OWNER, fee: 500, deadline: 2n ** 256n - 1n })
    const collected = decodeFunctionData({
      abi: positionManagerAbi,
      data: call({ kind: 'collect', positionManager: ROUTER, tokenId: 7n }).callData,
    })
    expect(collected.args[0]).toEqual({ tokenId: 7n, recipient: OWNER, amount0Max: 2n ** 128n - 1n, amount1Max: 2n ** 128n - 1n })
  })

  it('sends a swap’s output and a vault’s assets to the owner unless told otherwise', () => {
    const s = call(swap())
    expect(s.callData.slice(2 + 2 * 100 + 24, 2 + 2 * 132).toLowerCase()).toBe(OWNER.slice(2).toLowerCase())
    expect(call({ kind: 'deposit', vault: VAULT, assets: 1n }).callData.toLowerCase()).toContain(OWNER.slice(2).toLowerCase())
  })
})
