import { describe, expect, it } from 'vitest'
import { compileStrategy, DAILY_GAS_CAP_WEI, type PermissionPlan } from './compileStrategy.ts'
import { CORPUS, NOW, OWNER, REGISTRIES, SESSION_KEY, type CorpusCase } from './corpus/corpus.ts'
import { StrategyCompileError, StrategyGuardrailError } from './errors.ts'
import { SELECTORS } from './selectors.ts'
import { BardoError } from '../errors.ts'

function compileCase(c: CorpusCase): PermissionPlan {
  return compileStrategy({
    text: c.text,
    chainId: c.chainId ?? 31337,
    owner: (c.owner ?? OWNER) as `0x${string}`,
    sessionKey: SESSION_KEY,
    ...(c.runwayDays === undefined ? {} : { runwayDays: c.runwayDays }),
    now: NOW,
    registry: REGISTRIES[c.registry ?? 'local'](),
  })
}

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
        compileCase(c)
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
    const plan = compileCase(c)
    expect(plan.capabilities).toEqual(expected.capabilities)
    expect(plan.dailyUsdcCap).toBe(expected.dailyUsdcCap)
    expect(plan.dailyGasCap).toBe(DAILY_GAS_CAP_WEI)
    expect(plan.targets).toEqual(expected.targets)
    expect(plan.selectors).toEqual(expected.selectors)
    expect(plan.approvals).toEqual(expected.approvals)
    expect(plan.selectors).not.toContain(SELECTORS.erc20Approve)
    expect(plan.expiry).toBe(expected.expiry)
    expect(plan.startTime).toBe(NOW)
    expect(plan.period).toBe(86_400)
    if (expected.warnings !== undefined) {
      if (expected.warnings.length === 0) expect(plan.warnings).toEqual([])
      for (const w of expected.warnings) expect(plan.warnings.some((x) => w.test(x)), `warning ${w} in ${JSON.stringify(plan.warnings)}`).toBe(true)
    }
  })
})

describe('compileStrategy', () => {
  const base = { chainId: 31337, owner: OWNER, sessionKey: SESSION_KEY, now: NOW, registry: REGISTRIES.local() }

  it('is minimal: a swap-only strategy gets no LP, vault or bridge selectors', () => {
    const plan = compileStrategy({ ...base, text: 'Swap USDC for WETH.' })
    for (const s of [SELECTORS.vaultDeposit, SELECTORS.vaultWithdraw, SELECTORS.vaultRedeem, SELECTORS.vaultMint,
      SELECTORS.positionMint, SELECTORS.increaseLiquidity, SELECTORS.decreaseLiquidity, SELECTORS.collect, SELECTORS.cctpDepositForBurn]) {
      expect(plan.selectors).not.toContain(s)
    }
  })

  it('pairs each target with only its own selectors, without approve, and lists the approvals per spender', () => {
    const plan = compileStrategy({ ...base, text: 'Swap USDC for WETH.' })
    const r = REGISTRIES.local()
    expect(plan.calls).toEqual([
      { target: r.usdc, selectors: [SELECTORS.erc20Transfer] },
      { target: '0x3000000000000000000000000000000000000003', selectors: [SELECTORS.exactInputSingle, SELECTORS.exactInput] },
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

  it.each([
    ['approve', SELECTORS.erc20Approve],
    ['increaseAllowance', SELECTORS.erc20IncreaseAllowance],
  ] as const)('refuses a registry that lists %s as a call, naming the registry', (_name, selector) => {
    const registry = REGISTRIES.local()
    const leaky = {
      ...registry,
      capabilities: { ...registry.capabilities, Swap: { calls: [{ name: 'token allowance', target: registry.usdc, selectors: [selector] }], approvals: [] } },
    }
    expect(() => compileStrategy({ ...base, registry: leaky, text: 'Swap.' })).toThrowError(StrategyCompileError)
    expect(() => compileStrategy({ ...base, registry: leaky, text: 'Swap.' })).toThrowError(
      `registry: token allowance lists ${selector} on ${registry.usdc} as a call; an approval must be a (token, spender) pair in approvals, so its spender can be pinned`,
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
