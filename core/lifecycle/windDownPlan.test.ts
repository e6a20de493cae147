import { concat, getAddress, pad, toHex, type Address, type Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import type { ActionGrantRecord } from '../actions/actionGrant.ts'
import {
  APPROVE_SELECTOR,
  COLLECT_SELECTOR,
  DECREASE_LIQUIDITY_SELECTOR,
  grantedPositions,
  REDEEM_SELECTOR,
  type PositionEnforcers,
} from './grantedPositions.ts'
import { Phase } from './phase.ts'
import {
  closeAllDue,
  LIQUIDITY_TOO_LATE,
  liquidityBase,
  MAX_WIND_DOWN_ATTEMPTS,
  NO_ATTEMPT_LEFT,
  REVOKE_TOO_LATE,
  redeemBase,
  revokeBase,
  revokeBeforeFall,
  windDownPlan,
  WindDownPlanError,
  type LiquidityHolding,
  type WindDownInput,
} from './windDownPlan.ts'

const a = (n: number): Address => getAddress(`0x${n.toString(16).padStart(40, '0')}`)
const VAULT = a(0xa11)
const VAULT2 = a(0xa12)
const USDC = a(0x05dc)
const ROUTER = a(0x7007)
const OWNER = a(0x0e0)
const WITHDRAW: Hex = '0xb460af94'
const MANAGER = a(0x9f1)
const MANAGER2 = a(0x9f2)
const WETH = a(0x7e7)
const MINT: Hex = '0x88316456'
const SWAP: Hex = '0x04e45aaf'

const input = (p: Partial<WindDownInput> = {}): WindDownInput => ({
  phase: Phase.Declining,
  scope: 'all',
  vaults: [{ vault: VAULT, shares: 15n }],
  approvals: [{ token: USDC, spender: VAULT, allowance: 5n }],
  attempts: {},
  ...p,
})

describe('windDownPlan', () => {
  it('redeems every vault share in Declining and lists an allowance it can no longer revoke as left open', () => {
    expect(windDownPlan(input())).toEqual({
      steps: [{ kind: 'redeem', base: redeemBase(VAULT), step: `${redeemBase(VAULT)}-0`, vault: VAULT, shares: 15n }],
      leftOpen: [{ kind: 'approval', token: USDC, spender: VAULT, allowance: '5', reason: REVOKE_TOO_LATE }],
    })
  })

  it('revokes allowances while the Golem is Stable; with scope approvals it leaves the vaults alone', () => {
    const plan = windDownPlan(input({ phase: Phase.Stable, scope: 'approvals' }))
    expect(plan.leftOpen).toEqual([])
    expect(plan.steps).toEqual([
      { kind: 'revoke', base: revokeBase(USDC, VAULT), step: `${revokeBase(USDC, VAULT)}-0`, token: USDC, spender: VAULT, allowance: 5n },
    ])
  })

  it('plans nothing for empty holdings, so a settled position is never closed twice', () => {
    expect(
      windDownPlan(input({ vaults: [{ vault: VAULT, shares: 0n }], approvals: [{ token: USDC, spender: VAULT, allowance: 0n }] })),
    ).toEqual({
      steps: [],
      leftOpen: [],
    })
  })

  it('takes the next slot after spent attempts and gives up after the last one', () => {
    const base = redeemBase(VAULT)
    expect(windDownPlan(input({ approvals: [], attempts: { [base]: 1 } })).steps[0]?.step).toBe(`${base}-1`)
    expect(windDownPlan(input({ approvals: [], attempts: { [base]: MAX_WIND_DOWN_ATTEMPTS } }))).toEqual({
      steps: [],
      leftOpen: [{ kind: 'vault', vault: VAULT, shares: '15', reason: NO_ATTEMPT_LEFT }],
    })
  })

  it('names distinct slots per vault and per (token, spender), each short enough for a store step', () => {
    expect(`${revokeBase(USDC, VAULT)}-${MAX_WIND_DOWN_ATTEMPTS}`.length).toBeLessThanOrEqual(48)
    expect(redeemBase(VAULT)).not.toBe(redeemBase(VAULT2))
    expect(revokeBase(USDC, VAULT)).not.toBe(revokeBase(USDC, ROUTER))
  })

  it.each([
    [{ phase: 5 as Phase }, 'phase', 'must be a phase number from 0 (Thriving) to 4 (Terminal)'],
    [{ scope: 'some' as never }, 'scope', "must be 'approvals' or 'all'"],
    [{ vaults: [{ vault: '0x12' as Address, shares: 1n }] }, 'vaults[0].vault', 'must be a 20-byte 0x address'],
    [{ vaults: [{ vault: VAULT, shares: -1n }] }, 'vaults[0].shares', 'must be a uint256 bigint'],
    [{ vaults: [{ vault: VAULT, shares: 1 as never }] }, 'vaults[0].shares', 'must be a uint256 bigint'],
    [
      {
        vaults: [
          { vault: VAULT, shares: 1n },
          { vault: VAULT.toLowerCase() as Address, shares: 2n },
        ],
      },
      'vaults[1].vault',
      `must list each vault once (${VAULT} is listed twice)`,
    ],
    [{ approvals: [{ token: USDC, spender: 'router' as Address, allowance: 1n }] }, 'approvals[0].spender', 'must be a 20-byte 0x address'],
    [{ approvals: [{ token: USDC, spender: ROUTER, allowance: 2n ** 256n }] }, 'approvals[0].allowance', 'must be a uint256 bigint'],
    [{ attempts: { x: -1 } }, 'attempts.x', 'must be a whole number of attempts, 0 or more'],
  ])('refuses malformed input naming the field and the rule (case %#)', (bad, field, rule) => {
    const call = () => windDownPlan(input(bad as Partial<WindDownInput>))
    expect(call).toThrow(WindDownPlanError)
    expect(call).toThrow(`${field} ${rule}`)
    try {
      call()
    } catch (e) {
      expect((e as WindDownPlanError).field).toBe(field)
    }
  })
})

describe('windDownPlan: liquidity positions', () => {
  const position = (p: Partial<LiquidityHolding> = {}): LiquidityHolding => ({
    manager: MANAGER,
    tokenId: 7n,
    token0: USDC,
    token1: WETH,
    liquidity: 1_000n,
    tokensOwed0: 0n,
    tokensOwed1: 0n,
    ...p,
  })
  const only = (liquidity: LiquidityHolding[], p: Partial<WindDownInput> = {}) =>
    windDownPlan(input({ vaults: [], approvals: [], liquidity, ...p }))

  it('closes every open position in scope all, each in its own slot, from Thriving to Declining', () => {
    const open = [position(), position({ tokenId: 8n, liquidity: 0n, tokensOwed1: 3n }), position({ manager: MANAGER2 })]
    for (const phase of [Phase.Thriving, Phase.Stable, Phase.Conservation, Phase.Declining]) {
      const plan = only(open, { phase })
      expect(plan.leftOpen).toEqual([])
      expect(plan.steps).toEqual(
        open.map((l) => ({
          kind: 'removeLiquidity',
          base: liquidityBase(l.manager, l.tokenId),
          step: `${liquidityBase(l.manager, l.tokenId)}-0`,
          ...l,
        })),
      )
    }
  })

  it("skips a position with no liquidity and nothing owed (closed already, or never the Golem's to close)", () => {
    expect(only([position({ liquidity: 0n })])).toEqual({ steps: [], leftOpen: [] })
  })

  it('leaves positions alone with scope approvals', () => {
    expect(only([position()], { phase: Phase.Stable, scope: 'approvals' })).toEqual({ steps: [], leftOpen: [] })
  })

  it('in Terminal leaves a position with liquidity open (the chain refuses decreaseLiquidity there) and still collects one that only owes', () => {
    const owing = position({ tokenId: 9n, liquidity: 0n, tokensOwed0: 4n })
    const plan = only([position(), owing], { phase: Phase.Terminal })
    expect(plan.leftOpen).toEqual([
      {
        kind: 'liquidity',
        manager: MANAGER,
        tokenId: '7',
        token0: USDC,
        token1: WETH,
        liquidity: '1000',
        tokensOwed0: '0',
        tokensOwed1: '0',
        reason: LIQUIDITY_TOO_LATE,
      },
    ])
    expect(plan.steps).toEqual([
      { kind: 'removeLiquidity', base: liquidityBase(MANAGER, 9n), step: `${liquidityBase(MANAGER, 9n)}-0`, ...owing },
    ])
  })

  it('takes the next slot after spent attempts and leaves the position open after the last one', () => {
    const base = liquidityBase(MANAGER, 7n)
    expect(only([position()], { attempts: { [base]: 2 } }).steps[0]?.step).toBe(`${base}-2`)
    expect(only([position()], { attempts: { [base]: MAX_WIND_DOWN_ATTEMPTS } })).toEqual({
      steps: [],
      leftOpen: [
        {
          kind: 'liquidity',
          manager: MANAGER,
          tokenId: '7',
          token0: USDC,
          token1: WETH,
          liquidity: '1000',
          tokensOwed0: '0',
          tokensOwed1: '0',
          reason: NO_ATTEMPT_LEFT,
        },
      ],
    })
  })

  it('names distinct slots per (manager, tokenId), each short enough for a store step', () => {
    expect(`${liquidityBase(MANAGER, 2n ** 256n - 1n)}-${MAX_WIND_DOWN_ATTEMPTS}`.length).toBeLessThanOrEqual(48)
    expect(liquidityBase(MANAGER, 1n)).toMatch(/^winddown-liquidity-[0-9a-f]{20}$/)
    expect(liquidityBase(MANAGER, 1n)).not.toBe(liquidityBase(MANAGER, 2n))
    expect(liquidityBase(MANAGER, 1n)).not.toBe(liquidityBase(MANAGER2, 1n))
    expect(liquidityBase(MANAGER.toLowerCase() as Address, 1n)).toBe(liquidityBase(MANAGER, 1n))
  })

  it.each([
    [[position({ manager: '0x9f1' as Address })], 'liquidity[0].manager', 'must be a 20-byte 0x address'],
    [[position({ tokenId: -1n })], 'liquidity[0].tokenId', 'must be a uint256 bigint'],
    [[position({ tokenId: 7 as never })], 'liquidity[0].tokenId', 'must be a uint256 bigint'],
    [
      [position(), position({ manager: MANAGER.toLowerCase() as Address })],
      'liquidity[1].tokenId',
      `must list each position once (${MANAGER}#7 is listed twice)`,
    ],
    [[position({ token0: 'usdc' as Address })], 'liquidity[0].token0', 'must be a 20-byte 0x address'],
    [[position({ token0: WETH, token1: USDC })], 'liquidity[0].token1', 'must sort after token0 (the pool orders its tokens by address)'],
    [[position({ liquidity: 2n ** 128n })], 'liquidity[0].liquidity', 'must be a uint128 bigint'],
    [[position({ tokensOwed0: -1n })], 'liquidity[0].tokensOwed0', 'must be a uint128 bigint'],
    [[position({ tokensOwed1: '3' as never })], 'liquidity[0].tokensOwed1', 'must be a uint128 bigint'],
    ['all' as never, 'liquidity', 'must be a list of positions'],
  ])('refuses a malformed position naming the field and the rule (case %#)', (liquidity, field, rule) => {
    const call = () => windDownPlan(input({ liquidity }))
    expect(call).toThrow(WindDownPlanError)
    expect(call).toThrow(`${field} ${rule}`)
    try {
      call()
    } catch (e) {
      expect((e as WindDownPlanError).field).toBe(field)
    }
  })
})

describe('when a tick winds down', () => {
  it('revokes allowances only before a fall from Stable or better to Conservation or lower', () => {
    expect(revokeBeforeFall(Phase.Stable, Phase.Conservation)).toBe(true)
    expect(revokeBeforeFall(Phase.Thriving, Phase.Declining)).toBe(true)
    expect(revokeBeforeFall(Phase.Thriving, Phase.Stable)).toBe(false)
    expect(revokeBeforeFall(Phase.Conservation, Phase.Declining)).toBe(false)
    expect(revokeBeforeFall(Phase.Stable, undefined)).toBe(false)
  })

  it('closes everything in Declining, or once a covering delegation ends before the next tick', () => {
    expect(closeAllDue({ phase: Phase.Declining, nextTickAt: 100n, endsAt: [] })).toBe(true)
    expect(closeAllDue({ phase: Phase.Thriving, nextTickAt: 100n, endsAt: [null, 100n] })).toBe(false)
    expect(closeAllDue({ phase: Phase.Thriving, nextTickAt: 101n, endsAt: [null, 100n] })).toBe(true)
    expect(closeAllDue({ phase: Phase.Conservation, nextTickAt: 10n ** 12n, endsAt: [null] })).toBe(false)
  })
})

describe('grantedPositions', () => {
  const enforcers: PositionEnforcers = { allowedTargets: a(0xe1), allowedMethods: a(0xe2), allowedCalldata: a(0xe3), golemPhase: a(0xe4) }
  // GolemPhase's 36-byte terms: the Golem, then its window (start, end) as two uint64s.
  const window = (start: bigint, end: bigint) => concat([a(0x601e), pad(toHex(start), { size: 8 }), pad(toHex(end), { size: 8 })])
  const caveat = (enforcer: Address, terms: Hex) => ({ enforcer, terms, args: '0x' as Hex })
  const link = (caveats: ReturnType<typeof caveat>[]) =>
    ({ delegate: a(1), delegator: a(2), authority: pad('0x', { size: 32 }), caveats, salt: '0x01', signature: '0x1234' }) as never
  const hash = (n: number): Hex => pad(`0x${n.toString(16)}`, { size: 32 })
  const record: ActionGrantRecord = {
    v: 1,
    delegations: [
      { hash: hash(1), label: 'Swap', chain: [link([caveat(enforcers.allowedTargets, ROUTER), caveat(enforcers.allowedMethods, SWAP)])] },
      {
        hash: hash(2),
        label: 'VaultManagement: withdraw, redeem',
        chain: [
          link([
            caveat(enforcers.allowedTargets, concat([VAULT, VAULT2])),
            caveat(enforcers.allowedMethods, concat([WITHDRAW, REDEEM_SELECTOR])),
            caveat(enforcers.golemPhase, window(100n, 2_000n)),
          ]),
        ],
      },
      {
        hash: hash(3),
        label: `approvals: ${VAULT}`,
        chain: [
          link([
            caveat(enforcers.allowedTargets, USDC),
            caveat(enforcers.allowedMethods, APPROVE_SELECTOR),
            caveat(enforcers.allowedCalldata, concat([pad('0x04', { size: 32 }), pad(VAULT, { size: 32 })])),
          ]),
        ],
      },
      // Two links: only the vault both allow is the grant's.
      {
        hash: hash(4),
        label: 'narrowed',
        chain: [
          link([caveat(enforcers.allowedTargets, VAULT2), caveat(enforcers.allowedMethods, REDEEM_SELECTOR)]),
          link([caveat(enforcers.allowedTargets, concat([VAULT2, a(0xa13)])), caveat(enforcers.golemPhase, window(100n, 1_500n))]),
        ],
      },
      // No pinned spender: no approval wind-down can name.
      {
        hash: hash(5),
        label: 'unpinned',
        chain: [link([caveat(enforcers.allowedTargets, USDC), caveat(enforcers.allowedMethods, APPROVE_SELECTOR)])],
      },
      // A compiled LP grant: mint, the removal (MaxSlippage, not read here) and collect (recipient pinned), each its own.
      {
        hash: hash(6),
        label: 'ProvideLiquidity: mint',
        chain: [link([caveat(enforcers.allowedTargets, concat([MANAGER, MANAGER2])), caveat(enforcers.allowedMethods, MINT)])],
      },
      {
        hash: hash(7),
        label: 'ProvideLiquidity: decreaseLiquidity',
        chain: [
          link([
            caveat(enforcers.allowedTargets, concat([MANAGER, MANAGER2])),
            caveat(enforcers.allowedMethods, DECREASE_LIQUIDITY_SELECTOR),
            caveat(enforcers.golemPhase, window(100n, 3_000n)),
          ]),
        ],
      },
      // The collect delegation covers MANAGER only: MANAGER2 can be removed from but not collected on.
      {
        hash: hash(8),
        label: 'ProvideLiquidity: collect',
        chain: [
          link([
            caveat(enforcers.allowedTargets, MANAGER),
            caveat(enforcers.allowedMethods, COLLECT_SELECTOR),
            caveat(enforcers.allowedCalldata, concat([pad('0x24', { size: 32 }), pad(OWNER, { size: 32 })])),
            caveat(enforcers.golemPhase, window(100n, 2_500n)),
          ]),
        ],
      },
      // A collect with no pinned recipient does not count.
      {
        hash: hash(9),
        label: 'unpinned collect',
        chain: [link([caveat(enforcers.allowedTargets, MANAGER2), caveat(enforcers.allowedMethods, COLLECT_SELECTOR)])],
      },
    ],
  }

  it('finds the vaults a redeem delegation targets, the approvals with a pinned spender and the managers it removes from and collects on, each once', () => {
    expect(grantedPositions(record, enforcers)).toEqual({
      liquidity: [{ manager: MANAGER, removal: hash(7), collect: hash(8), recipient: OWNER, endsAt: 2_500n }],
      vaults: [
        { vault: VAULT, delegation: hash(2), endsAt: 2_000n },
        { vault: VAULT2, delegation: hash(2), endsAt: 2_000n },
      ],
      approvals: [{ token: USDC, spender: VAULT, delegation: hash(3), endsAt: null }],
    })
  })

  it('finds nothing in a grant without targets or methods', () => {
    const bare: ActionGrantRecord = { v: 1, delegations: [{ hash: hash(9), label: 'bare', chain: [link([])] }] }
    expect(grantedPositions(bare, enforcers)).toEqual({ vaults: [], approvals: [], liquidity: [] })
  })
})
