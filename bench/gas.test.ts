// Sanity of the gas bench on a real devnet: the baseline is measured, every enforcer does work beyond
// the empty caveat, stateful enforcers pay more on the first redemption, the headline is the runway as
// buildGolemDelegation builds it (golemPhase carrying the life window as runway terms), runway terms cost
// less than the table's terms, folding beats the previous shape
// by at least one caveat's hook overhead, and a second run gives exactly the same numbers (the bench
// claims determinism). No absolute gas is asserted: enforcers may change.
import { WALLET_GRANT_ALONE } from './lib/goalFigures.ts'
import { describe, expect, it } from 'vitest'
import { formatGasBench, runGasBench, type GasBenchResult } from './gas.ts'

const STATEFUL = ['dailySpendLimit', 'replicantBudget']

describe('gas bench', () => {
  let first: GasBenchResult

  it('measures the bare scope, the per-caveat overhead, all nine enforcers and golemPhase with its window', async () => {
    first = await runGasBench()
    expect(first.bare.repeat).toBeLessThan(first.bare.first) // the period's storage is created once
    expect(first.hookOverhead.first).toBe(first.hookOverhead.repeat)
    expect(first.hookOverhead.repeat).toBeGreaterThan(0n)
    expect(first.enforcers.map((e) => e.label).sort()).toEqual([
      'dailySpendLimit',
      'dreamMode',
      'emotionalState',
      'golemPhase',
      'golemPhase runway',
      'golemPhase+window',
      'knowledgeRoyalty',
      'maxSlippage',
      'mortalityTimeWindow',
      'replicantBudget',
      'vaultNav',
    ])
    for (const e of first.enforcers) {
      expect(e.marginal.repeat, e.label).toBeGreaterThan(0n)
      expect(e.overBare.repeat, e.label).toBe(e.marginal.repeat + first.hookOverhead.repeat)
      if (STATEFUL.includes(e.caveat)) expect(e.marginal.first, e.label).toBeGreaterThan(e.marginal.repeat)
      else expect(e.marginal.first, e.label).toBe(e.marginal.repeat)
    }
    // The window inside golemPhase costs less than a MortalityTimeWindow caveat's own work, let alone its hook overhead.
    const byLabel = (label: string) => first.enforcers.find((e) => e.label === label)!
    const windowInside = byLabel('golemPhase+window').marginal.repeat - byLabel('golemPhase').marginal.repeat
    expect(windowInside).toBeGreaterThan(0n)
    expect(windowInside).toBeLessThan(byLabel('mortalityTimeWindow').marginal.repeat)
    // Runway terms skip the selector-table read and a word of terms: cheaper than the table's windowed terms.
    expect(byLabel('golemPhase runway').gas.repeat).toBeLessThan(byLabel('golemPhase+window').gas.repeat)
  }, 180_000)

  it('headlines the runway as built, and shows the previous shape and the rows with more caveats', () => {
    const [built, previous, withDream, withDreamAndCap, previousWithDreamAndCap, erc7715, walletAlone] = first.policies
    expect(first.policies).toHaveLength(7)
    // The ERC-7715 chain redeems two delegations: the wallet's grant and the Session Account's re-delegation.
    expect(erc7715!.caveats).toEqual(expect.arrayContaining(['golemPhase runway', 'ERC20PeriodTransfer', 'Timestamp', 'Nonce']))
    expect(erc7715!.gas.repeat).toBeGreaterThan(built!.gas.repeat)
    // Its baseline: the same wallet grant redeemed directly by its delegate, none of Bardo's caveats; both
    // carry the owner's NonceEnforcer nonce, as every grant MetaMask makes does.
    expect(walletAlone!.name).toBe(WALLET_GRANT_ALONE)
    expect(walletAlone!.caveats).toEqual(['ValueLte', 'ERC20PeriodTransfer', 'Timestamp', 'Nonce'])
    expect(erc7715!.gas.repeat).toBeGreaterThan(walletAlone!.gas.repeat)
    expect(built!.caveats).toEqual(['ValueLte', 'ERC20PeriodTransfer', 'golemPhase runway'])
    expect(previous!.caveats).toEqual(['ValueLte', 'ERC20PeriodTransfer', 'golemPhase', 'mortalityTimeWindow'])
    expect(withDream!.caveats).toEqual(['ValueLte', 'ERC20PeriodTransfer', 'golemPhase runway', 'dreamMode'])
    expect(withDreamAndCap!.caveats).toEqual(['ValueLte', 'ERC20PeriodTransfer', 'golemPhase runway', 'dreamMode', 'dailySpendLimit'])
    expect(previousWithDreamAndCap!.caveats).toEqual([
      'ValueLte',
      'ERC20PeriodTransfer',
      'golemPhase',
      'mortalityTimeWindow',
      'dreamMode',
      'dailySpendLimit',
    ])
    for (const p of first.policies) {
      expect(p.ratio.repeat, p.name).toBeCloseTo(Number(p.gas.repeat) / Number(first.bare.repeat), 12)
      expect(p.verdict, p.name).toBe(p.ratio.repeat <= first.goal ? 'PASS' : 'MISS')
    }
    // One caveat fewer saves at least one hook overhead, on a bare runway and with more caveats alike.
    for (const [folded, separate] of [
      [built!, previous!],
      [withDreamAndCap!, previousWithDreamAndCap!],
    ] as const) {
      expect(separate.gas.repeat - folded.gas.repeat, folded.name).toBeGreaterThan(first.hookOverhead.repeat)
      expect(separate.gas.first - folded.gas.first, folded.name).toBeGreaterThan(first.hookOverhead.first)
    }
    expect(withDream!.gas.repeat).toBeGreaterThan(built!.gas.repeat)
    expect(withDreamAndCap!.gas.repeat).toBeGreaterThan(withDream!.gas.repeat)
    const table = formatGasBench(first)
    expect(first.goal).toBe(1.16)
    expect(first.budgetRepeat).toBe((first.bare.repeat * 116n) / 100n)
    expect(table).toMatch(/Complete Bardo runway policy: repeat [\d,]+ = \d\.\d{4}x bare \(goal <= 1\.16x, budget [\d,]+\): (PASS|MISS)/)
    expect(table).toMatch(/Runway terms \(one word, no selector-table read\) save [\d,]+ gas a repeat redemption/)
    expect(table).toMatch(/Folding the life window into golemPhase saves [\d,]+ gas a repeat redemption/)
  })

  it('gives the same gas on a second run', async () => {
    const again = await runGasBench()
    expect(again).toEqual(first)
  }, 180_000)
})
