// Properties of the constitution check over drawn constitutions, portfolios and actions: a refusal is
// always the bound it names, an allowed buy stays inside every bound, and the hash is canonical.
import fc from 'fast-check'
import { getAddress, type Address } from 'viem'
import { describe, expect, it } from 'vitest'
import { Phase } from '../lifecycle/phase.ts'
import {
  BPS,
  checkPolicy,
  constitutionHash,
  parseConstitution,
  PHASE_MAX_POSITION_BPS,
  type Constitution,
  type PolicyAction,
  type PolicyState,
} from './index.ts'

const USDC = getAddress('0x00000000000000000000000000000000000000c0')
const ASSETS = [1, 2, 3, 4].map((i) => getAddress(`0x${i.toString(16).padStart(40, '0')}`))
const dollars = (max: number) => fc.bigInt({ min: 0n, max: BigInt(max) * 1_000_000n })

const constitutionArb = fc
  .record({
    caps: fc.array(fc.integer({ min: 0, max: BPS }), { minLength: ASSETS.length, maxLength: ASSETS.length }),
    listed: fc.subarray(ASSETS, { minLength: 1 }),
    tx: dollars(500),
    session: dollars(2_000),
    day: dollars(5_000),
    drawdown: fc.integer({ min: 0, max: BPS }),
  })
  .map(
    (r): Constitution =>
      parseConstitution({
        v: 1,
        baseAsset: USDC,
        assets: r.listed.map((a) => ({ address: a, maxConcentrationBps: r.caps[ASSETS.indexOf(a)]! })),
        maxTransactionUsd: r.tx.toString(),
        maxSessionUsd: (r.tx + r.session).toString(),
        maxDayUsd: (r.tx + r.day).toString(),
        maxDrawdownBps: r.drawdown,
      }),
  )
const stateArb = fc
  .record({
    held: fc.array(dollars(2_000), { minLength: 5, maxLength: 5 }),
    fall: dollars(3_000),
    session: dollars(3_000),
    day: dollars(6_000),
  })
  .map((r): PolicyState => {
    const holdingsUsd = new Map([USDC, ...ASSETS].map((a, i) => [a.toLowerCase(), r.held[i]!]))
    const portfolioUsd = r.held.reduce((x, y) => x + y, 0n)
    return { holdingsUsd, portfolioUsd, highWaterMarkUsd: portfolioUsd + r.fall, sessionSpentUsd: r.session, daySpentUsd: r.day }
  })
const buyArb = fc
  .record({ asset: fc.constantFrom(...ASSETS), usd: dollars(800) })
  .map((b): PolicyAction => ({ assets: [USDC, b.asset], acquires: { asset: b.asset as Address, usd: b.usd }, spendUsd: b.usd }))
const phaseArb = fc.constantFrom(Phase.Thriving, Phase.Stable, Phase.Conservation, Phase.Declining, Phase.Terminal)

describe('checkPolicy properties', () => {
  it('an allowed buy keeps the position, the spend and the drawdown inside every bound', () => {
    fc.assert(
      fc.property(constitutionArb, stateArb, buyArb, phaseArb, (c, s, a, phase) => {
        if (!checkPolicy(c, a, s, phase).ok) return
        const asset = a.acquires!.asset
        const listed = c.assets.find((x) => x.address === asset)
        expect(listed).toBeDefined()
        const position = (s.holdingsUsd.get(asset.toLowerCase()) ?? 0n) + a.acquires!.usd
        const cap = Math.min(listed!.maxConcentrationBps, PHASE_MAX_POSITION_BPS[phase])
        expect(position * BigInt(BPS)).toBeLessThanOrEqual(BigInt(cap) * s.portfolioUsd)
        expect(a.spendUsd).toBeLessThanOrEqual(c.maxTransactionUsd)
        expect(s.sessionSpentUsd + a.spendUsd).toBeLessThanOrEqual(c.maxSessionUsd)
        expect(s.daySpentUsd + a.spendUsd).toBeLessThanOrEqual(c.maxDayUsd)
        expect((s.highWaterMarkUsd - s.portfolioUsd) * BigInt(BPS)).toBeLessThan(BigInt(c.maxDrawdownBps + 1) * s.highWaterMarkUsd)
      }),
      { numRuns: 2_000 },
    )
  })

  it('a refusal names a rule whose bound the action does break, and its reason starts with that rule', () => {
    fc.assert(
      fc.property(constitutionArb, stateArb, buyArb, phaseArb, (c, s, a, phase) => {
        const d = checkPolicy(c, a, s, phase)
        if (d.ok) return
        const r = d.refusal
        expect(r.reason.startsWith(`policy.${r.rule}: `)).toBe(true)
        const v = r.values
        switch (r.rule) {
          case 'approvedAsset':
            expect(c.assets.some((x) => x.address === v.asset)).toBe(false)
            break
          case 'maxDrawdown':
          case 'phaseMaxPosition':
          case 'maxConcentration':
            expect(Number(v.positionBps ?? v.drawdownBps)).toBeGreaterThan(Number(v.limitBps))
            break
          default:
            expect(BigInt(v.spendUsd!) + BigInt(v.spentUsd ?? 0n)).toBeGreaterThan(BigInt(v.limitUsd!))
        }
      }),
      { numRuns: 2_000 },
    )
  })

  it('from Conservation on, no buy of any size is allowed', () => {
    fc.assert(
      fc.property(
        constitutionArb,
        stateArb,
        buyArb,
        fc.constantFrom(Phase.Conservation, Phase.Declining, Phase.Terminal),
        (c, s, a, phase) => {
          fc.pre(s.portfolioUsd > 0n && a.acquires!.usd > 0n)
          expect(checkPolicy(c, a, s, phase).ok).toBe(false)
        },
      ),
      { numRuns: 500 },
    )
  })

  it('the hash does not depend on the order the assets are listed in', () => {
    fc.assert(
      fc.property(constitutionArb, (c) => {
        const reversed = { ...c, assets: [...c.assets].reverse() }
        expect(constitutionHash(reversed)).toBe(constitutionHash(c))
      }),
      { numRuns: 300 },
    )
  })
})
