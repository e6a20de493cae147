import { describe, expect, it } from 'vitest'
import { vitalSigns } from '../core/lifecycle/vitalSigns.ts'
import { formatSpan, moneyLines, progressLine, returnLines } from './consoleLines.ts'
import { localStackSettings } from './runner.ts'

const NOW = 1_000_000
const signs = (patch: Partial<Parameters<typeof vitalSigns>[0]>) =>
  vitalSigns({ now: NOW, lifecycle: 'alive', phase: 1, vitality: 0.6, runwayEndsAt: NOW + 250, grantEndsAt: NOW + 400, ...patch })
const line = (vitals: ReturnType<typeof signs>, outcome: 'ticked' | 'died' = 'ticked') =>
  progressLine(60, { golemId: 'demo', outcome, vitality: vitals.vitality, health: 'low', vitals }, { redeemedTotal: 0n })

describe('npm start settings', () => {
  it('keeps the chain clock with the wall clock by default; the demo life is minutes long by its own parameters', () => {
    expect(localStackSettings({})).toMatchObject({ secondsPerBeat: 0, lifeSeconds: 720, periodSeconds: 60, tickSeconds: 5, beatMs: 1000 })
    expect(localStackSettings({ BARDO_SECONDS_PER_BEAT: '3600' }).secondsPerBeat).toBe(3600)
  })

  it('halts a Golem after 5 failed ticks in a row by default, or BARDO_MAX_FAILED_TICKS; a bad limit is refused by name', () => {
    expect(localStackSettings({}).maxFailedTicks).toBe(5)
    expect(localStackSettings({ BARDO_MAX_FAILED_TICKS: '2' }).maxFailedTicks).toBe(2)
    for (const bad of ['0', '1.5', 'many', '1001'])
      expect(() => localStackSettings({ BARDO_MAX_FAILED_TICKS: bad })).toThrow(
        `BARDO_MAX_FAILED_TICKS: must be a whole number from 1 to 1000, got ${bad}`,
      )
  })

  it('pays runtime from the key by default, by delegation from the owner grant when asked; anything else is refused by name', () => {
    expect(localStackSettings({}).runtimePayment).toBe('key')
    expect(localStackSettings({ BARDO_RUNTIME_PAYMENT: 'delegation' }).runtimePayment).toBe('delegation')
    expect(() => localStackSettings({ BARDO_RUNTIME_PAYMENT: 'grant' })).toThrow(
      'BARDO_RUNTIME_PAYMENT: must be key or delegation, got grant',
    )
  })

  it('refuses settings that cannot make a life, naming the variable', () => {
    expect(() => localStackSettings({ BARDO_LIFE_SECONDS: '0' })).toThrow('BARDO_LIFE_SECONDS: must be an integer of at least 1, got 0')
    expect(() => localStackSettings({ BARDO_LIFE_SECONDS: '60', BARDO_PERIOD_SECONDS: '120' })).toThrow(
      'BARDO_PERIOD_SECONDS: must not exceed BARDO_LIFE_SECONDS (60), got 120',
    )
  })

  it('prints ages and spans as people read them, and a dead Golem as dead', () => {
    expect([formatSpan(65), formatSpan(7_500), formatSpan(86_400 * 1.5)]).toEqual(['1m05s', '2h05m', '1.5 d'])
    expect(progressLine(10, { golemId: 'demo', outcome: 'died' }, { redeemedTotal: 0n })).toContain('health dead')
  })

  it('names each clock once: the life left, then the other clock', () => {
    expect(line(signs({}))).toContain('phase Stable | vitality 0.600 | lives 4m10s more | grant ends in 6m40s | health low')
    // The grant ends first: the life ends with it, and the runway paid past it is said as such.
    const grantFirst = line(signs({ runwayEndsAt: NOW + 86_450, grantEndsAt: NOW + 50 }))
    expect(grantFirst).toContain('lives 0m50s more, until its grant ends | runway paid 1.0 d past it')
    // Both ending together: one clock, said once.
    expect(line(signs({ runwayEndsAt: NOW + 56, grantEndsAt: NOW + 56 }))).toContain(
      'lives 0m56s more, until its runway and its grant end together | health low',
    )
    expect(grantFirst.match(/\d+m\d+s|\d\.\d d/g)).toEqual(['1m00s', '0m50s', '1.0 d'])
  })

  it('prints a forward move, a feed reprieve as a reprieve, a recovered vitality and a death with its final vitality', () => {
    expect(line(signs({ from: 0 }))).toContain('phase Thriving -> Stable | vitality 0.600')
    expect(line(signs({ phase: 0, vitality: 0.8, from: 1, reprieve: true }))).toContain(
      'reprieve Stable -> Thriving (fed) | vitality 0.800',
    )
    expect(line(signs({ vitality: 1 }))).toContain('phase Stable | vitality 1.000 (recovered; Stable holds until a reprieve)')
    const died = line(signs({ lifecycle: 'dead', phase: 4, vitality: 0, from: 1 }), 'died')
    expect(died).toContain('phase Stable -> Terminal (died) | vitality 0.000 | dead | health dead')
    expect(died).not.toContain('lives')
  })

  it('prints the Golem buying its runtime, topping up gas and returning its funds at death', () => {
    expect(
      moneyLines({
        golemId: 'demo',
        outcome: 'ticked',
        gas: { status: 'confirmed', amount: 10n ** 16n },
        selfExtension: { status: 'confirmed', hours: 1, amount: 500_000n },
      }),
    ).toEqual([
      "gas topped up 0.01 ETH from the owner's gas grant",
      'bought 1h of its own runtime for 0.5 USDC (x402 POST /api/v1/extend, signed by its session key)',
    ])
    expect(
      moneyLines({
        golemId: 'demo',
        outcome: 'ticked',
        selfExtension: { status: 'confirmed', hours: 1, amount: 500_000n, paidFrom: 'grant' },
      }),
    ).toEqual(["bought 1h of its own runtime for 0.5 USDC (x402 POST /api/v1/extend, paid by delegation from the owner's grant)"])
    expect(moneyLines({ golemId: 'demo', outcome: 'ticked', selfExtension: { status: 'refused', reason: 'over the bound' } })).toEqual([
      'runtime not bought: over the bound',
    ])
    expect(moneyLines(undefined)).toEqual([])
    expect(
      returnLines({
        fundsReturned: [
          { asset: '0xusdc', status: 'returned', amount: '124500000' },
          { asset: 'native', status: 'returned', amount: '1000000000000000' },
        ],
      }),
    ).toEqual(['returned 124.5 USDC to the owner', 'returned 0.001 ETH to the owner'])
    const vault = '0x000000000000000000000000000000000000a11a'
    const token = '0x00000000000000000000000000000000000005dc'
    expect(
      returnLines({
        positionsSettled: [
          { kind: 'vault', vault, shares: '15000000', assets: '15000000', txHash: '0x01' },
          { kind: 'approval', token, spender: vault, txHash: '0x02' },
        ],
        positionsLeftOpen: [{ kind: 'approval', token, spender: vault, allowance: '5', reason: 'refused: CannotUseADisabledDelegation' }],
      }),
    ).toEqual([
      `redeemed 15000000 shares of vault ${vault} for 15000000 base units to the owner (0x01)`,
      `revoked the allowance of ${vault} on ${token} (0x02)`,
      `left open: allowance of 5 to ${vault} on ${token} (refused: CannotUseADisabledDelegation)`,
    ])
    const manager = '0x00000000000000000000000000000000000009f1'
    const weth = '0x00000000000000000000000000000000000007e7'
    const position = { kind: 'liquidity', manager, tokenId: '7', token0: token, token1: weth } as const
    expect(
      returnLines({
        positionsSettled: [{ ...position, liquidity: '10', amount0: '5', amount1: '4', txHash: '0x03' }],
        positionsLeftOpen: [
          { ...position, tokenId: '8', liquidity: '9', tokensOwed0: '0', tokensOwed1: '0', reason: 'refused: PoolPriceOffFeeds' },
        ],
      }),
    ).toEqual([
      `removed 10 liquidity of position 7 on ${manager} and collected 5 of ${token} and 4 of ${weth} to the owner (0x03)`,
      `left open: position 8 on ${manager}, liquidity 9 (refused: PoolPriceOffFeeds)`,
    ])
  })
})
