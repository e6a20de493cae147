// One test per rule of the constitution, each with the refusal it names, plus the hash and the start check.
import { getAddress, type Address } from 'viem'
import { describe, expect, it } from 'vitest'
import { Phase } from '../lifecycle/phase.ts'
import {
  checkConstitutionAtStart,
  checkPolicy,
  checkPolicyBatch,
  constitutionHash,
  constitutionJson,
  ConstitutionError,
  parseConstitution,
  type PolicyAction,
  type PolicyState,
} from './index.ts'

const USDC = getAddress('0x00000000000000000000000000000000000000c0')
const WETH = getAddress('0x00000000000000000000000000000000000000e0')
const VAULT = getAddress('0x00000000000000000000000000000000000000f0')
const DOGE = getAddress('0x00000000000000000000000000000000000000d0')
const GOLEM = getAddress('0x0000000000000000000000000000000000000a01')
const usd = (dollars: number) => BigInt(dollars) * 1_000_000n

const raw = {
  v: 1,
  baseAsset: USDC,
  assets: [
    { address: WETH, maxConcentrationBps: 2_500 },
    { address: VAULT, maxConcentrationBps: 5_000 },
  ],
  maxTransactionUsd: usd(100).toString(),
  maxSessionUsd: usd(250).toString(),
  maxDayUsd: usd(400).toString(),
  maxDrawdownBps: 1_500,
  revokeOn: ['approvedAsset'],
}
const constitution = parseConstitution(raw)

/** $1,000 of USDC, nothing else, at its high-water mark, nothing spent. */
const state = (p: Partial<PolicyState> = {}): PolicyState => ({
  holdingsUsd: new Map([[USDC.toLowerCase(), usd(1_000)]]),
  portfolioUsd: usd(1_000),
  highWaterMarkUsd: usd(1_000),
  sessionSpentUsd: 0n,
  daySpentUsd: 0n,
  ...p,
})
const buy = (asset: Address, dollars: number): PolicyAction => ({
  assets: [USDC, asset],
  acquires: { asset, usd: usd(dollars) },
  spendUsd: usd(dollars),
})
const refusalOf = (d: ReturnType<typeof checkPolicy>) => {
  if (d.ok) throw new Error('expected a refusal')
  return d.refusal
}

describe('parseConstitution', () => {
  it('reads amounts as bigint and addresses checksummed', () => {
    expect(constitution.maxDayUsd).toBe(usd(400))
    expect(constitution.assets[0]!.address).toBe(WETH)
  })
  it.each([
    [{ ...raw, maxDrawdownBps: 10_001 }, 'constitution.maxDrawdownBps: must be 0..10000 basis points'],
    [{ ...raw, assets: [{ address: '0x12', maxConcentrationBps: 1 }] }, 'constitution.assets.0.address: must be a 20-byte 0x address'],
    [
      { ...raw, assets: [{ address: USDC, maxConcentrationBps: 1 }] },
      'constitution.assets.0.address: must name each asset once, and not the base asset',
    ],
    [{ ...raw, maxTransactionUsd: usd(300).toString() }, 'constitution.maxTransactionUsd: must not exceed maxSessionUsd or maxDayUsd'],
    [{ ...raw, maxDayUsd: '-1' }, 'constitution.maxDayUsd: must be a USD amount with 6 decimals'],
    [{ ...raw, revokeOn: ['maxDay', 'maxDay'] }, 'constitution.revokeOn: must name each rule once'],
  ])('refuses a bad field, naming it and the rule (%#)', (input, message) => {
    expect(() => parseConstitution(input)).toThrow(ConstitutionError)
    expect(() => parseConstitution(input)).toThrow(message)
  })
  it('round-trips through its JSON form', () => {
    expect(parseConstitution(JSON.parse(JSON.stringify(constitutionJson(constitution))))).toEqual(constitution)
  })
})

describe('constitutionHash', () => {
  it('does not depend on the order or the case the assets are written in', () => {
    const reordered = parseConstitution({
      ...raw,
      assets: [
        { address: VAULT.toLowerCase(), maxConcentrationBps: 5_000 },
        { address: WETH, maxConcentrationBps: 2_500 },
      ],
    })
    expect(constitutionHash(reordered)).toBe(constitutionHash(constitution))
  })
  it('is keccak256(abi.encode(constitution)), the hash contracts/test/PolicyCage.t.sol computes in Solidity', () => {
    const pinned = parseConstitution({
      ...raw,
      assets: [
        { address: VAULT, maxConcentrationBps: 5_000 },
        { address: WETH, maxConcentrationBps: 2_500 },
      ],
      revokeOn: ['approvedAsset', 'maxDrawdown'],
    })
    expect(constitutionHash(pinned)).toBe('0x89502266cc3450d31c846d9a9fa92c4314c2c583bfd988077a6564c0b2f42f63')
  })
  it('changes with any bound', () => {
    expect(constitutionHash(parseConstitution({ ...raw, maxDrawdownBps: 1_501 }))).not.toBe(constitutionHash(constitution))
    expect(constitutionHash(parseConstitution({ ...raw, revokeOn: [] }))).not.toBe(constitutionHash(constitution))
  })
})

describe('checkPolicy: one refusal per rule', () => {
  it('allows a buy inside every bound', () => {
    expect(checkPolicy(constitution, buy(WETH, 100), state(), Phase.Thriving)).toEqual({ ok: true })
  })

  it('approvedAsset: refuses an asset the constitution does not list, and asks for revocation when it says so', () => {
    const r = refusalOf(checkPolicy(constitution, buy(DOGE, 10), state(), Phase.Thriving))
    expect(r).toMatchObject({ rule: 'approvedAsset', field: 'assets', values: { asset: DOGE }, revoke: true })
    expect(r.reason).toBe(`policy.approvedAsset: ${DOGE} is not an approved asset of the constitution`)
    // An approval of an unlisted token is refused too.
    expect(refusalOf(checkPolicy(constitution, { assets: [DOGE], spendUsd: 0n }, state(), Phase.Thriving)).rule).toBe('approvedAsset')
  })

  it('maxConcentration: refuses a position past the asset bound', () => {
    const r = refusalOf(
      checkPolicy(constitution, buy(WETH, 100), state({ holdingsUsd: new Map([[WETH.toLowerCase(), usd(200)]]) }), Phase.Thriving),
    )
    expect(r).toMatchObject({
      rule: 'maxConcentration',
      field: `assets[${WETH}].maxConcentrationBps`,
      values: { positionUsd: usd(300), positionBps: 3_000, limitBps: 2_500 },
      revoke: false,
    })
    expect(r.reason).toBe(
      `policy.maxConcentration: ${WETH} would be 30% of the portfolio ($300.00 of $1,000.00); the constitution allows at most 25%`,
    )
  })

  it('phaseMaxPosition: 30 % while Thriving, 20 % while Stable, no new position from Conservation on', () => {
    const held = state({ holdingsUsd: new Map([[VAULT.toLowerCase(), usd(150)]]) })
    expect(checkPolicy(constitution, buy(VAULT, 100), held, Phase.Thriving)).toEqual({ ok: true })
    const stable = refusalOf(checkPolicy(constitution, buy(VAULT, 100), held, Phase.Stable))
    expect(stable).toMatchObject({ rule: 'phaseMaxPosition', field: 'phase', values: { positionBps: 2_500, limitBps: 2_000 } })
    expect(stable.reason).toBe(
      `policy.phaseMaxPosition: ${VAULT} would be 25% of the portfolio ($250.00 of $1,000.00); Stable allows at most 20% per position`,
    )
    expect(refusalOf(checkPolicy(constitution, buy(VAULT, 160), held, Phase.Thriving)).values.limitBps).toBe(3_000)
    const conservation = refusalOf(checkPolicy(constitution, buy(WETH, 1), state(), Phase.Conservation))
    expect(conservation.reason).toBe(
      `policy.phaseMaxPosition: the Golem is in Conservation, where no new position is opened (${WETH} would be $1.00)`,
    )
    // Closing into the base asset stays allowed.
    const close: PolicyAction = { assets: [VAULT, USDC], acquires: { asset: USDC, usd: usd(150) }, spendUsd: 0n }
    expect(checkPolicy(constitution, close, held, Phase.Declining)).toEqual({ ok: true })
  })

  it('maxTransaction: refuses one action over the per-transaction bound', () => {
    const big = { ...raw, assets: [{ address: VAULT, maxConcentrationBps: 10_000 }] }
    const r = refusalOf(checkPolicy(parseConstitution(big), { ...buy(VAULT, 101) }, state(), Phase.Thriving))
    expect(r).toMatchObject({ rule: 'maxTransaction', field: 'maxTransactionUsd', values: { spendUsd: usd(101), limitUsd: usd(100) } })
    expect(r.reason).toBe('policy.maxTransaction: this action puts $101.00 at risk; at most $100.00 per transaction')
  })

  it('maxSession: refuses once the session has put its bound at risk', () => {
    const r = refusalOf(checkPolicy(constitution, buy(VAULT, 60), state({ sessionSpentUsd: usd(200) }), Phase.Thriving))
    expect(r).toMatchObject({
      rule: 'maxSession',
      field: 'maxSessionUsd',
      values: { spentUsd: usd(200), spendUsd: usd(60), limitUsd: usd(250) },
    })
    expect(r.reason).toBe('policy.maxSession: this action puts $60.00 at risk, $200.00 already this session; at most $250.00 per session')
  })

  it('maxDay: refuses once the day has put its bound at risk', () => {
    const r = refusalOf(checkPolicy(constitution, buy(VAULT, 60), state({ daySpentUsd: usd(350) }), Phase.Thriving))
    expect(r).toMatchObject({ rule: 'maxDay', field: 'maxDayUsd', values: { spentUsd: usd(350), limitUsd: usd(400) } })
    expect(r.reason).toBe('policy.maxDay: this action puts $60.00 at risk, $350.00 already today; at most $400.00 per day')
  })

  it('maxDrawdown: refuses new risk once the portfolio fell past the bound from its high-water mark, but not a close', () => {
    const fallen = state({ portfolioUsd: usd(840), holdingsUsd: new Map([[USDC.toLowerCase(), usd(840)]]), highWaterMarkUsd: usd(1_000) })
    const r = refusalOf(checkPolicy(constitution, buy(WETH, 10), fallen, Phase.Thriving))
    expect(r).toMatchObject({ rule: 'maxDrawdown', field: 'maxDrawdownBps', values: { drawdownBps: 1_600, limitBps: 1_500 } })
    expect(r.reason).toBe(
      'policy.maxDrawdown: the portfolio ($840.00) is 16% below its high-water mark $1,000.00; past 15% no new risk is taken',
    )
    expect(checkPolicy(constitution, buy(WETH, 10), { ...fallen, portfolioUsd: usd(850) }, Phase.Thriving)).toEqual({ ok: true })
  })

  it('revoked: once a revokeOn violation started the revocation cascade, refuses even a close', () => {
    const locked = state({ revokedBy: { rule: 'approvedAsset', at: 1_764_000_000n } })
    const close: PolicyAction = { assets: [WETH, USDC], acquires: { asset: USDC, usd: usd(10) }, spendUsd: 0n }
    const r = refusalOf(checkPolicy(constitution, close, locked, Phase.Thriving))
    expect(r).toMatchObject({ rule: 'revoked', field: 'revokeOn', values: { rule: 'approvedAsset' }, revoke: true })
    expect(r.reason).toBe(
      "policy.revoked: the approvedAsset violation at 24 Nov 2025 16:00 UTC started the revocation cascade (the constitution's revokeOn); custody acts no more for this Golem under this constitution",
    )
  })

  it('checks a batch on the state the earlier actions leave', () => {
    const d = checkPolicyBatch(constitution, [buy(VAULT, 100), buy(VAULT, 100), buy(VAULT, 100)], state(), Phase.Thriving)
    expect(d).toMatchObject({ ok: false, index: 2, refusal: { rule: 'maxSession', values: { spentUsd: usd(200), spendUsd: usd(100) } } })
  })
})

describe('checkConstitutionAtStart', () => {
  it('starts when the PolicyCage holds the constitution hash', () => {
    expect(checkConstitutionAtStart(GOLEM, constitution, constitutionHash(constitution))).toEqual({
      ok: true,
      hash: constitutionHash(constitution),
    })
  })
  it('refuses to start on another hash, or none, naming both', () => {
    const other = constitutionHash(parseConstitution({ ...raw, maxDayUsd: usd(401).toString() }))
    const r = checkConstitutionAtStart(GOLEM, constitution, other)
    if (r.ok) throw new Error('expected a refusal')
    expect(r.refusal).toMatchObject({
      rule: 'constitutionHash',
      field: 'constitutionHash',
      values: { expected: constitutionHash(constitution), onChain: other },
    })
    expect(r.refusal.reason).toContain(`but the PolicyCage holds ${other} for ${GOLEM}; the Golem does not start`)
    const none = checkConstitutionAtStart(GOLEM, constitution, `0x${'0'.repeat(64)}`)
    expect(!none.ok && none.refusal.values.onChain).toBe('no constitution')
  })
})
