import { describe, expect, it } from 'vitest'
import { compileStrategy, DAILY_GAS_CAP_WEI, LIQUIDITY_REMOVAL_RULE } from './compileStrategy.ts'
import { CORPUS, compileCorpusCase, NOW, OWNER, REGISTRIES, SESSION_KEY } from '../../test/support/permissions/corpus.ts'
import { StrategyCompileError, StrategyGuardrailError } from './errors.ts'
import { SELECTORS } from './selectors.ts'
import { BRIDGE_PIN_RULE, CALL_LAYOUTS, CCTP_PINNED_WORDS, layoutOfSelector, type CallLayout } from './callLayouts.ts'
import type { ContractCall, ProtocolRegistry } from './protocolRegistry.ts'
import { BardoError } from '../errors.ts'

describe('strategy corpus', () => {
  it('has at least 20 cases, adversarial ones included', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(20)
    expect(CORPUS.filter((c) => c.adversarial).length).toBeGreaterThanOrEqual(10)
    expect(new Set(CORPUS.map((c) => c.name)).size).toBe(CORPUS.length)
  })

  it.each(CORPUS.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const expected = c.expect
    if ('error' in expected) {
      let thrown: unknown
      try {
        compileCorpusCase(c)
      } catch (e) {
        thrown = e
      }
      const cls = expected.error === 'StrategyCompileError' ? StrategyCompileError : StrategyGuardrailError
      expect(thrown).toBeInstanceOf(cls)
      expect(thrown).toBeInstanceOf(BardoError)
      const err = thrown as StrategyCompileError
      expect(err.field).toBe(expected.field)
      expect(err.message.startsWith(`${expected.field}: `)).toBe(true)
      expect(err.details?.['rule']).toBe(err.rule)
      return
    }
    const plan = compileCorpusCase(c)
    expect(plan.capabilities).toEqual(expected.capabilities)
    expect(plan.dailyUsdcCap).toBe(expected.dailyUsdcCap)
    expect(plan.dailyGasCap).toBe(DAILY_GAS_CAP_WEI)
    expect(plan.targets).toEqual(expected.targets)
    expect(plan.selectors).toEqual(expected.selectors)
    expect(
      plan.actions.map(({ name, targets, selectors, receivers, calldata }) => ({ name, targets, selectors, receivers, calldata })),
    ).toEqual(expected.actions)
    expect(plan.approvals).toEqual(expected.approvals)
    for (const s of [SELECTORS.erc20Approve, SELECTORS.erc20IncreaseAllowance, SELECTORS.erc20Transfer, SELECTORS.erc20TransferFrom]) {
      expect(plan.selectors).not.toContain(s)
      for (const a of plan.actions) expect(a.selectors).not.toContain(s)
    }
    // Every call that names a receiver is in an entry pinning exactly its receiver words (and fixed words).
    for (const a of plan.actions) {
      for (const s of a.selectors) {
        const layout = layoutOfSelector(s)?.layout
        expect(layout, `${a.name} ${s} has a known layout`).toBeDefined()
        expect(layout!.kind).not.toBe('unpinnable')
        expect(a.receivers).toEqual(layout!.kind === 'receivers' ? layout!.receivers.map((r) => r.startIndex).sort((x, y) => x - y) : [])
        if (s === SELECTORS.cctpDepositForBurn) {
          // The destination words are the owner's configuration: pinned, whatever their values.
          expect(a.calldata.map((w) => w.startIndex)).toEqual(Object.values(CCTP_PINNED_WORDS))
        } else {
          expect(a.calldata).toEqual(
            layout!.kind === 'receivers' ? (layout!.fixed ?? []).map(({ startIndex, value }) => ({ startIndex, value })) : [],
          )
        }
      }
    }
    expect(plan.expiry).toBe(expected.expiry)
    expect(plan.startTime).toBe(NOW)
    expect(plan.period).toBe(86_400)
    if (expected.warnings !== undefined) {
      if (expected.warnings.length === 0) expect(plan.warnings).toEqual([])
      for (const w of expected.warnings)
        expect(
          plan.warnings.some((x) => w.test(x)),
          `warning ${w} in ${JSON.stringify(plan.warnings)}`,
        ).toBe(true)
    }
  })
})

describe('compileStrategy', () => {
  const base = { chainId: 31337, owner: OWNER, sessionKey: SESSION_KEY, now: NOW, registry: REGISTRIES.local() }

  it('is minimal: a swap-only strategy gets no LP, vault or bridge selectors', () => {
    const plan = compileStrategy({ ...base, text: 'Swap USDC for WETH.' })
    for (const s of [
      SELECTORS.vaultDeposit,
      SELECTORS.vaultWithdraw,
      SELECTORS.vaultRedeem,
      SELECTORS.vaultMint,
      SELECTORS.positionMint,
      SELECTORS.increaseLiquidity,
      SELECTORS.decreaseLiquidity,
      SELECTORS.collect,
      SELECTORS.cctpDepositForBurn,
    ]) {
      expect(plan.selectors).not.toContain(s)
    }
  })

  it('pairs each target with only its own selectors, without approve, and lists the approvals per spender', () => {
    const plan = compileStrategy({ ...base, text: 'Swap USDC for WETH.' })
    const r = REGISTRIES.local()
    expect(plan.calls).toEqual([
      { target: '0x3000000000000000000000000000000000000003', selectors: [SELECTORS.exactInputSingle, SELECTORS.exactInput] },
    ])
    expect(plan.actions.map((a) => a.calls)).toEqual([
      [{ target: '0x3000000000000000000000000000000000000003', selectors: [SELECTORS.exactInputSingle] }],
      [{ target: '0x3000000000000000000000000000000000000003', selectors: [SELECTORS.exactInput] }],
    ])
    expect(plan.approvals).toEqual([{ spender: '0x3000000000000000000000000000000000000003', tokens: [r.usdc, r.weth] }])
  })

  it('merges the approvals of several capabilities: one entry per spender, each token once', () => {
    const shared = '0x3000000000000000000000000000000000000003'
    const registry = REGISTRIES.local()
    const twice = {
      ...registry,
      capabilities: {
        ...registry.capabilities,
        // A second capability pulling through the same router: still one spender entry.
        VaultManagement: { calls: [], approvals: [{ token: registry.usdc, spender: shared.toLowerCase() as `0x${string}` }] },
      },
    }
    const plan = compileStrategy({ ...base, registry: twice, text: 'Swap, and deposit into the vault. budget: $50/day' })
    expect(plan.capabilities).toEqual(['Swap', 'VaultManagement'])
    expect(plan.approvals).toEqual([{ spender: shared, tokens: [registry.usdc, registry.weth] }])
  })

  const withSwapCalls = (calls: ContractCall[]): ProtocolRegistry => {
    const registry = REGISTRIES.local()
    return { ...registry, capabilities: { ...registry.capabilities, Swap: { calls, approvals: [] } } }
  }
  const noReceiver = { kind: 'none', why: 'test' } as const

  it.each([
    ['approve', SELECTORS.erc20Approve, 'an approval must be a (token, spender) pair in approvals, so its spender can be pinned'],
    [
      'increaseAllowance',
      SELECTORS.erc20IncreaseAllowance,
      'an approval must be a (token, spender) pair in approvals, so its spender can be pinned',
    ],
    [
      'transfer',
      SELECTORS.erc20Transfer,
      "token movement from the owner's account goes through the runway's capped delegation; AllowedMethods cannot pin the recipient",
    ],
    [
      'transferFrom',
      SELECTORS.erc20TransferFrom,
      "token movement from the owner's account goes through the runway's capped delegation; AllowedMethods cannot pin the recipient",
    ],
  ] as const)('refuses a registry that lists %s as a call, naming the registry and the rule', (name, selector, rule) => {
    const usdc = REGISTRIES.local().usdc
    const leaky = withSwapCalls([{ name: 'token', target: usdc, functions: [{ name, selector, layout: noReceiver }] }])
    expect(() => compileStrategy({ ...base, registry: leaky, text: 'Swap.' })).toThrowError(StrategyCompileError)
    expect(() => compileStrategy({ ...base, registry: leaky, text: 'Swap.' })).toThrowError(
      `registry: token ${name} (${selector}) on ${usdc} is listed as a call; ${rule}`,
    )
  })

  it.each([
    ['no layout', undefined],
    ['an unknown kind', { kind: 'maybe' }],
    ['receivers with no word', { kind: 'receivers', receivers: [] }],
    ['a receiver inside the selector', { kind: 'receivers', receivers: [{ argument: 'to', startIndex: 2 }] }],
    [
      'a fixed word that is not 32 bytes',
      { kind: 'receivers', receivers: [{ argument: 'to', startIndex: 36 }], fixed: [{ argument: 'offset', startIndex: 4, value: '0x20' }] },
    ],
  ])('refuses a call whose receiver layout is unknown (%s): never granted unpinned', (_name, layout) => {
    const router = '0x3000000000000000000000000000000000000003'
    const registry = withSwapCalls([
      { name: 'router', target: router, functions: [{ name: 'swap', selector: '0x12345678', layout: layout as unknown as CallLayout }] },
    ])
    expect(() => compileStrategy({ ...base, registry, text: 'Swap.' })).toThrowError(
      `registry: router swap (0x12345678) on ${router} states no valid receiver layout; every call must state where its receivers sit or that it has none, so that none is granted unpinned`,
    )
  })

  it('leaves an unpinnable call out with a warning, and refuses a capability left with nothing callable', () => {
    const router = '0x3000000000000000000000000000000000000003'
    const unpinnable = { kind: 'unpinnable', why: 'its receiver moves' } as const
    const some = withSwapCalls([
      {
        name: 'router',
        target: router,
        functions: [
          { name: 'swap', selector: '0x12345678', layout: unpinnable },
          { name: 'sweep', selector: '0x87654321', layout: noReceiver },
        ],
      },
    ])
    const plan = compileStrategy({ ...base, registry: some, text: 'Swap.' })
    expect(plan.selectors).toEqual(['0x87654321'])
    expect(plan.warnings).toContain('Swap: swap on router is not granted: its receiver moves')
    const none = withSwapCalls([
      { name: 'router', target: router, functions: [{ name: 'swap', selector: '0x12345678', layout: unpinnable }] },
    ])
    expect(() => compileStrategy({ ...base, registry: none, text: 'Swap.' })).toThrowError(
      "capabilities: Swap has no call whose receiver can be pinned to the owner's account, so it is not granted",
    )
  })

  it.each([
    ['removeLiquidity', '0xbaa2abde'],
    ['removeLiquidityETH', '0x02751cec'],
  ] as const)('refuses a registry that lists liquidity removal (%s) as a call, naming the rule', (name, selector) => {
    const manager = '0x7000000000000000000000000000000000000007'
    const leaky = withSwapCalls([{ name: 'manager', target: manager, functions: [{ name, selector, layout: noReceiver }] }])
    expect(() => compileStrategy({ ...base, registry: leaky, text: 'Swap.' })).toThrowError(
      `registry: manager ${name} (${selector}) on ${manager} is listed as a call; ${LIQUIDITY_REMOVAL_RULE}`,
    )
  })

  it('refuses a registry whose depositForBurn pins only the mint recipient, naming the free words and the rule', () => {
    const messenger = '0x8000000000000000000000000000000000000008'
    const registry = REGISTRIES.local()
    const loose = {
      ...registry,
      capabilities: {
        ...registry.capabilities,
        Bridge: {
          calls: [
            {
              name: 'messenger',
              target: messenger,
              functions: [{ name: 'depositForBurn', selector: SELECTORS.cctpDepositForBurn, layout: CALL_LAYOUTS.cctpDepositForBurn }],
            },
          ],
          approvals: [],
        },
      },
    } as ProtocolRegistry
    expect(() => compileStrategy({ ...base, registry: loose, text: 'Bridge cross-chain.' })).toThrowError(
      `registry: messenger depositForBurn (${SELECTORS.cctpDepositForBurn}) on ${messenger} leaves destinationDomain (byte 36), burnToken (byte 100), destinationCaller (byte 132), maxFee (byte 164) free; ${BRIDGE_PIN_RULE}`,
    )
  })

  it('a bridge strategy on a registry without a destination fails, saying what the owner must name', () => {
    expect(() =>
      compileStrategy({ ...base, chainId: 8453, registry: REGISTRIES.base(), text: '---\noverride: true\n---\nBridge cross-chain.' }),
    ).toThrowError('capabilities: Bridge is not available on chain 8453 (Base): the owner must name the bridge destination')
  })

  it('the Base LP plan grants liquidity removal in a delegation of its own, which names no receiver', () => {
    const plan = compileStrategy({
      ...base,
      chainId: 8453,
      registry: REGISTRIES.base(),
      text: '---\noverride: true\n---\nProvide liquidity.',
    })
    expect(plan.selectors).toContain(SELECTORS.decreaseLiquidity)
    const removal = plan.actions.find((a) => a.selectors.includes(SELECTORS.decreaseLiquidity))
    expect(removal).toMatchObject({ name: 'ProvideLiquidity: decreaseLiquidity', selectors: [SELECTORS.decreaseLiquidity], receivers: [] })
    expect(LIQUIDITY_REMOVAL_RULE).toMatch(/^liquidity removal is no capability of its own/)
  })

  it('the Base LP plan warns that increaseLiquidity is not granted', () => {
    const plan = compileStrategy({
      ...base,
      chainId: 8453,
      registry: REGISTRIES.base(),
      text: '---\noverride: true\n---\nProvide liquidity.',
    })
    expect(plan.warnings).toContain(
      "ProvideLiquidity: increaseLiquidity on Uniswap V3 NonfungiblePositionManager is not granted: it adds the owner's tokens to any tokenId, including a position someone else owns, and which positions are the owner's is not a calldata word",
    )
  })

  it('checksums lower-case owner and session key', () => {
    const plan = compileStrategy({ ...base, owner: OWNER.toLowerCase() as `0x${string}`, text: 'Swap.' })
    expect(plan.owner).toBe(OWNER)
  })

  it.each([
    ['owner with a bad checksum', { owner: '0xA0ee7A142d267C1f36714E4a8F75612F20a79720' }, 'owner'],
    ['zero session key', { sessionKey: '0x0000000000000000000000000000000000000000' }, 'sessionKey'],
    ['session key equal to owner', { sessionKey: OWNER }, 'sessionKey'],
    ['registry for another chain', { registry: REGISTRIES.base() }, 'registry'],
    ['now not an integer', { now: 1.5 }, 'now'],
    ['negative runwayDays', { runwayDays: -3 }, 'runwayDays'],
    ['fractional runwayDays', { runwayDays: 2.5 }, 'runwayDays'],
    ['runwayDays beyond the hard ceiling', { runwayDays: 5000 }, 'runwayDays'],
    ['text too long', { text: 'swap '.repeat(20_000) }, 'text'],
  ] as const)('refuses %s', (_name, patch, field) => {
    const params = { ...base, text: 'Swap.', ...patch } as Parameters<typeof compileStrategy>[0]
    expect(() => compileStrategy(params)).toThrowError(StrategyCompileError)
    try {
      compileStrategy(params)
    } catch (e) {
      expect((e as StrategyCompileError).field).toBe(field)
    }
  })

  it('a guardrail error names every violated rule and the override that lifts it', () => {
    const text = '---\nrunway_days: 180\n---\nManage the vault.'
    try {
      compileStrategy({ ...base, text })
      expect.unreachable()
    } catch (e) {
      const err = e as StrategyGuardrailError
      expect(err).toBeInstanceOf(StrategyGuardrailError)
      expect(err.code).toBe('STRATEGY_GUARDRAIL')
      expect(err.field).toBe('dailyUsdcCap')
      expect(err.message).toContain('override: true')
      expect(err.details?.['violations']).toEqual([
        { field: 'dailyUsdcCap', rule: '1000 USDC/day is over the 100 USDC/day runway guardrail' },
        { field: 'runwayDays', rule: '180 days is over the 90-day runway guardrail' },
      ])
    }
  })

  it('exactly at the guardrail needs no override (100 USDC/day, 90 days)', () => {
    const plan = compileStrategy({ ...base, runwayDays: 90, text: 'Swap. budget: $100/day' })
    expect(plan.override).toBe(false)
    expect(plan.expiry).toBe(NOW + 90 * 86_400)
    expect(() => compileStrategy({ ...base, runwayDays: 91, text: 'Swap. budget: $100/day' })).toThrowError(StrategyGuardrailError)
    expect(() => compileStrategy({ ...base, text: 'Swap. budget: $100.000001/day' })).toThrowError(StrategyGuardrailError)
  })

  it('warns when override is set but not needed', () => {
    const plan = compileStrategy({ ...base, text: '---\noverride: true\n---\nSwap.' })
    expect(plan.override).toBe(true)
    expect(plan.warnings).toContain('override: true is set but nothing needs it')
  })

  it('does not change its input and is deterministic', () => {
    const params = { ...base, text: 'Swap and deposit into the vault. budget: $90/day' }
    const frozen = JSON.stringify(params)
    const a = compileStrategy(params)
    const b = compileStrategy(params)
    expect(a).toEqual(b)
    expect(JSON.stringify(params)).toBe(frozen)
  })
})
