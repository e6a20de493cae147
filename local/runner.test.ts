import { describe, expect, it } from 'vitest'
import { formatSpan, localStackSettings, moneyLines, progressLine, returnLines } from './runner.ts'

describe('npm start settings', () => {
  it('keeps the chain clock with the wall clock by default; the demo life is minutes long by its own parameters', () => {
    expect(localStackSettings({})).toMatchObject({ secondsPerBeat: 0, lifeSeconds: 720, periodSeconds: 60, tickSeconds: 5, beatMs: 1000 })
    expect(localStackSettings({ BARDO_SECONDS_PER_BEAT: '3600' }).secondsPerBeat).toBe(3600)
  })

  it('refuses settings that cannot make a life, naming the variable', () => {
    expect(() => localStackSettings({ BARDO_LIFE_SECONDS: '0' })).toThrow('BARDO_LIFE_SECONDS: must be an integer of at least 1, got 0')
    expect(() => localStackSettings({ BARDO_LIFE_SECONDS: '60', BARDO_PERIOD_SECONDS: '120' })).toThrow(
      'BARDO_PERIOD_SECONDS: must not exceed BARDO_LIFE_SECONDS (60), got 120',
    )
  })

  it('prints ages and spans as people read them, and a dead Golem as dead', () => {
    expect([formatSpan(65), formatSpan(7_500), formatSpan(86_400 * 1.5)]).toEqual(['1m05s', '2h05m', '1.5 d'])
    expect(
      progressLine(10, { golemId: 'demo', outcome: 'died' }, { runwayLeftSeconds: 0, grantLeftSeconds: 0, redeemedTotal: 0n }),
    ).toContain('health dead')
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
  })
})
