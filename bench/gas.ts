// Gas bench: what each Bardo enforcer adds to a USDC runway redemption, and what the Golem's
// complete runway policy costs next to MetaMask's own `erc20PeriodTransfer` scope alone, all measured in
// one run on one deterministic devnet (see bench/lib/gasDevnet.ts). Every number is a receipt's gasUsed
// for an EOA Golem key calling DelegationManager.redeemDelegations with one USDC `transfer`; "first" is
// a delegation's first redemption (its enforcers create their storage), "repeat" the second in the
// same period and day (warm storage, the steady state of a heartbeat). Goal: repeat <= 1.16x bare (it was
// 1.25x until golemPhase gained runway terms).
//   npx tsx bench/gas.ts        (or: npm run bench -- gas)
import { WALLET_GRANT_ALONE } from './lib/goalFigures.ts'
import type { Caveat } from '@metamask/smart-accounts-kit'
import { keccak256, toHex, type Address, type Hex } from 'viem'
import { NonceEnforcer } from '@metamask/delegation-abis'
import { pathToFileURL } from 'node:url'
import { fromCaveat, toCaveat } from '../core/caveats/caveat.ts'
import { lifeWindowOf } from '../core/caveats/semantics.ts'
import type { BardoCaveat, BardoCaveatType } from '../core/caveats/types.ts'
import { buildGolemDelegation } from '../core/delegations/buildGolemDelegation.ts'
import { smartAccountSigner } from '../core/delegations/signers.ts'
import { DelegationTree } from '../core/delegations/tree.ts'
import { buildRunwayRedelegation } from '../core/delegations/buildRunwayRedelegation.ts'
import { signDelegation } from '@metamask/smart-accounts-kit'
import { privateKeyToAccount } from 'viem/accounts'
import { BENCH_T0, DAY, RUNWAY, startGasChain, type GasChain, type GasPair } from './lib/gasDevnet.ts'
import { formatDelta, formatInt, formatRatio, formatTable, ratio, verdict } from './lib/table.ts'

export type { GasPair } from './lib/gasDevnet.ts'

export type EnforcerGas = {
  caveat: BardoCaveatType
  /**
   * The row's name: the caveat type, `golemPhase+window` for golemPhase carrying the life window in the
   * table's terms, `golemPhase runway` for its runway terms (the window, no table read).
   */
  label: string
  /** What the enforcer checked on this redemption. */
  work: string
  /** Period scope + this caveat. */
  gas: GasPair
  /** gas - (period scope + NoopEnforcer): the enforcer's own work beyond the per-caveat hook overhead. */
  marginal: GasPair
  /** gas - bare period scope: everything adding this caveat costs (hook overhead included). */
  overBare: GasPair
}

export type PolicyGas = {
  name: string
  /** Every caveat of the delegation, in order, by name. */
  caveats: string[]
  gas: GasPair
  ratio: { first: number; repeat: number }
  verdict: 'PASS' | 'MISS'
}

export type GasBenchResult = {
  /** ValueLte(0) + ERC20PeriodTransfer: MetaMask's `erc20PeriodTransfer` scope alone. */
  bare: GasPair
  /** Bare scope + NoopEnforcer (empty terms). */
  noop: GasPair
  /** noop - bare: what the DelegationManager spends to call one caveat's four hooks. */
  hookOverhead: GasPair
  enforcers: EnforcerGas[]
  /** The first entry is the headline: the runway delegation exactly as buildGolemDelegation builds it. */
  policies: PolicyGas[]
  goal: number
  /** bare.repeat * goal: the most a repeat redemption of the complete policy may cost. */
  budgetRepeat: bigint
}

const GOAL = 1.16
/** The runway's life window in every case: open an hour before BENCH_T0, closing a year later. */
const WINDOW = { startTime: BENCH_T0 - 3_600n, endTime: BENCH_T0 + 365n * DAY }
const sub = (a: GasPair, b: GasPair): GasPair => ({
  first: a.first - b.first,
  repeat: a.repeat - b.repeat,
  calldata: a.calldata - b.calldata,
})

/** Terms for each of the nine enforcers that pass a 1 USDC runway transfer while doing their real work. */
function enforcerCases(c: GasChain): { caveat: BardoCaveat; label?: string; work: string }[] {
  const { usdc, usdcUsdFeed, vault } = c.devnet.deployment.assets
  const golem = c.golem.address
  const feeds = [{ token: usdc, decimals: 6, feed: usdcUsdFeed }]
  return [
    { caveat: { type: 'golemPhase', golem }, work: 'VitalityOracle.getPhase (Thriving) + selector-table SLOAD: transfer is TRANSFER' },
    {
      caveat: { type: 'golemPhase', golem, ...WINDOW },
      label: 'golemPhase+window',
      work: 'as golemPhase, after block.timestamp inside [start, end] (36-byte terms)',
    },
    {
      caveat: { type: 'golemPhase', golem, ...WINDOW, runway: true },
      label: 'golemPhase runway',
      work: 'runway terms (32 bytes): window, one plain transfer, VitalityOracle.getPhase (Thriving); no table read',
    },
    {
      caveat: { type: 'mortalityTimeWindow', startTime: BENCH_T0 - 3_600n, endTime: BENCH_T0 + 365n * DAY },
      work: 'block.timestamp inside [start, end], no external call',
    },
    { caveat: { type: 'dreamMode', golem }, work: 'DreamOracle.dreamingSince: awake' },
    {
      caveat: { type: 'emotionalState', golem, minPleasure: -50, maxArousal: 50, minDominance: -50, restrictedSelectors: ['0xa9059cbb'] },
      work: 'transfer is restricted: DaimonOracle.getPAD (20, 10, 30) inside bounds',
    },
    {
      caveat: { type: 'vaultNav', vault, maxNavBps: 1_000 },
      work: 'USDC is the vault asset: vault.asset() + totalAssets(), 1 USDC <= 10% of 1M',
    },
    {
      caveat: { type: 'dailySpendLimit', dailyLimitUsd: 1_000_000_000n, maxPriceAge: 3_600, feeds },
      work: "USDC/USD feed read, $1 recorded in today's slot (SSTORE + event)",
    },
    {
      caveat: { type: 'replicantBudget', maxBudgetUsd: 1_000_000_000n, maxLifespanSeconds: 30n * DAY, maxPriceAge: 3_600, feeds },
      work: 'lifespan activated on first use, feed read, $1 added to spent (SSTORE + event)',
    },
    {
      caveat: { type: 'maxSlippage', maxSlippageBps: 50, maxPriceAge: 3_600, feeds },
      work: 'execution decoded; not a swap, so it passes without a feed read',
    },
    {
      caveat: { type: 'knowledgeRoyalty', token: usdc, author: golem, royaltyBps: 1_000 },
      work: 'USDC transfers summed; the only one pays the author (royalty), no sale to charge',
    },
  ]
}

/**
 * Runway policies, each built by buildGolemDelegation and signed by the owner. The first is the headline:
 * the runway exactly as Bardo builds it (golemPhase carrying the life window, which the builder writes as
 * runway terms on the runway slot). The previous shape
 * (golemPhase + a separate mortalityTimeWindow, still accepted and still on-chain in older grants) shows
 * what folding saves; the others add what callers may put on the runway.
 */
async function policies(c: GasChain, bare: GasPair, nextSalt: () => Hex): Promise<PolicyGas[]> {
  const d = c.devnet.deployment
  const golem = c.golem.address
  const folded: BardoCaveat[] = [{ type: 'golemPhase', golem, ...WINDOW }]
  const previous: BardoCaveat[] = [
    { type: 'golemPhase', golem },
    { type: 'mortalityTimeWindow', ...WINDOW },
  ]
  const dreamMode: BardoCaveat = { type: 'dreamMode', golem }
  const dailySpendLimit: BardoCaveat = {
    type: 'dailySpendLimit',
    dailyLimitUsd: 1_000_000_000n,
    maxPriceAge: 3_600,
    feeds: [{ token: d.assets.usdc, decimals: 6, feed: d.assets.usdcUsdFeed }],
  }
  const now = (await c.devnet.publicClient.getBlock()).timestamp
  const tree = new DelegationTree({ environment: d.environment, deployment: d, now: () => now })
  const signer = smartAccountSigner(c.owner.smartAccount)

  // Caveat names are read back from the signed delegation (enforcer address, and the window and terms shape
  // a golemPhase carries), so the table reports exactly what was redeemed.
  const names = new Map<string, string>([
    ...Object.entries(d.environment.caveatEnforcers).map(
      ([name, address]) => [address.toLowerCase(), name.replace(/Enforcer$/, '')] as const,
    ),
    ...Object.entries(d.enforcers).map(([name, address]) => [address.toLowerCase(), name] as const),
  ])
  const nameOf = (x: Caveat) => {
    const name = names.get(x.enforcer.toLowerCase()) ?? x.enforcer
    if (name !== 'golemPhase') return name
    const gate = fromCaveat(x, d, d.environment)
    if (gate.type === 'golemPhase' && gate.runway) return 'golemPhase runway'
    return lifeWindowOf(gate) ? 'golemPhase+window' : name
  }
  const built = async (name: string, bardo: BardoCaveat[], extra: BardoCaveat[]): Promise<Omit<PolicyGas, 'ratio' | 'verdict'>> => {
    const grant = buildGolemDelegation({
      tree,
      owner: c.owner.address,
      golem,
      bardo,
      runway: { token: d.assets.usdc, ...RUNWAY, bardo: extra },
      salt: nextSalt(),
    })
    await tree.sign(grant.runway!.hash, signer)
    const chain = tree.chain(grant.runway!.hash)
    if (chain.length !== 1) throw new Error('gas bench: the runway grant is expected to be a root delegation')
    return { name, caveats: chain[0]!.caveats.map(nameOf), gas: await c.measureChain(name, chain) }
  }
  // MetaMask puts the owner's NonceEnforcer nonce on every grant it makes (its permissions Snap adds the
  // caveat; the local owner wallet does too): the wallet's grant, on both sides of the ratio, carries it.
  const ownerNonce = (await c.devnet.publicClient.readContract({
    address: d.environment.caveatEnforcers.NonceEnforcer as Address,
    abi: NonceEnforcer,
    functionName: 'currentNonce',
    args: [d.environment.DelegationManager, c.owner.address],
  })) as bigint
  // The ERC-7715 shape: the wallet's periodic grant (with its expiry) to a Session Account, which
  // re-delegates to the key adding the phase gate; the key redeems both layers.
  const sevenSevenFifteen = async (): Promise<Omit<PolicyGas, 'ratio' | 'verdict'>> => {
    // A fixed key: the same Session Account (and calldata) on every run.
    const sessionKey = keccak256(toHex('bardo gas bench: session account'))
    const session = privateKeyToAccount(sessionKey)
    const r = buildRunwayRedelegation({
      tree,
      permission: {
        owner: c.owner.address,
        sessionAccount: session.address,
        token: d.assets.usdc,
        ...RUNWAY,
        startTime: RUNWAY.startDate,
        expiry: Number(WINDOW.endTime + 1n),
        nonce: ownerNonce,
        salt: nextSalt(),
      },
      executionKey: golem,
      bardo: folded,
      salt: nextSalt(),
    })
    await tree.sign(r.parent.hash, signer)
    await tree.sign(r.child.hash, (delegation) =>
      signDelegation({
        privateKey: sessionKey,
        delegation,
        delegationManager: d.environment.DelegationManager,
        chainId: c.devnet.chain.id,
      }),
    )
    const chain = r.chain()
    const name = 'ERC-7715 chain: wallet grant -> Session Account -> key'
    return { name, caveats: chain.flatMap((x) => x.caveats.map(nameOf)), gas: await c.measureChain(name, chain) }
  }
  // The baseline of the ERC-7715 chain: the same wallet grant redeemed directly by its delegate (here the
  // key stands in as the Session Account, so it can redeem it), without Bardo's re-delegation.
  const walletGrantAlone = async (): Promise<Omit<PolicyGas, 'ratio' | 'verdict'>> => {
    const other = privateKeyToAccount(keccak256(toHex('bardo gas bench: execution key')))
    const r = buildRunwayRedelegation({
      tree,
      permission: {
        owner: c.owner.address,
        sessionAccount: golem,
        token: d.assets.usdc,
        ...RUNWAY,
        startTime: RUNWAY.startDate,
        expiry: Number(WINDOW.endTime + 1n),
        nonce: ownerNonce,
        salt: nextSalt(),
      },
      executionKey: other.address,
      bardo: [{ type: 'golemPhase', golem: other.address, ...WINDOW }],
      salt: nextSalt(),
    })
    await tree.sign(r.parent.hash, signer)
    const chain = tree.chain(r.parent.hash)
    const name = WALLET_GRANT_ALONE
    return { name, caveats: chain.flatMap((x) => x.caveats.map(nameOf)), gas: await c.measureChain(name, chain) }
  }
  const rows = [
    await built('runway as built (complete Bardo policy)', folded, []),
    await built('previous shape: golemPhase + mortalityTimeWindow', previous, []),
    await built('runway + dreamMode', folded, [dreamMode]),
    await built('runway + dreamMode + dailySpendLimit', folded, [dreamMode, dailySpendLimit]),
    await built('previous shape + dreamMode + dailySpendLimit', previous, [dreamMode, dailySpendLimit]),
    await sevenSevenFifteen(),
    await walletGrantAlone(),
  ]
  return rows.map((r) => {
    const rr = { first: ratio(r.gas.first, bare.first), repeat: ratio(r.gas.repeat, bare.repeat) }
    return { ...r, ratio: rr, verdict: verdict(rr.repeat, GOAL) }
  })
}

export async function runGasBench(options: { log?: (line: string) => void } = {}): Promise<GasBenchResult> {
  process.env.DO_NOT_TRACK ??= '1' // the kit's createDelegation reports usage unless told not to
  const log = options.log ?? (() => {})
  const c = await startGasChain()
  try {
    let caseIndex = 0
    const nextSalt = () => c.salt(caseIndex++)
    const d = c.devnet.deployment
    log('bare scope and NoopEnforcer baseline')
    const bare = await c.measure('bare erc20PeriodTransfer scope', [], nextSalt())
    const noop = await c.measure('NoopEnforcer', [{ enforcer: c.noopEnforcer, terms: '0x', args: '0x' }], nextSalt())
    const enforcers: EnforcerGas[] = []
    for (const { caveat, label = caveat.type, work } of enforcerCases(c)) {
      log(label)
      const gas = await c.measure(label, [toCaveat(caveat, d)], nextSalt())
      enforcers.push({ caveat: caveat.type, label, work, gas, marginal: sub(gas, noop), overBare: sub(gas, bare) })
    }
    log('runway policies')
    return {
      bare,
      noop,
      hookOverhead: sub(noop, bare),
      enforcers,
      policies: await policies(c, bare, nextSalt),
      goal: GOAL,
      budgetRepeat: (bare.repeat * BigInt(Math.round(GOAL * 100))) / 100n,
    }
  } finally {
    await c.stop()
  }
}

export function formatGasBench(r: GasBenchResult): string {
  const right = (header: string) => ({ header, align: 'right' as const })
  const pair = (g: GasPair) => [formatInt(g.first), formatInt(g.repeat)]
  const marginal = formatTable(
    [
      'delegation (period scope + ...)',
      ...['first', 'repeat', 'marginal first', 'marginal repeat', 'over bare repeat', 'of which calldata'].map(right),
      'work done',
    ],
    [
      ['nothing (bare erc20PeriodTransfer scope)', ...pair(r.bare), '', '', '', '', 'baseline'],
      [
        'NoopEnforcer',
        ...pair(r.noop),
        '0',
        '0',
        formatDelta(r.hookOverhead.repeat),
        formatDelta(r.hookOverhead.calldata),
        'none: the four hook calls alone',
      ],
      ...r.enforcers.map((e) => [
        e.label,
        ...pair(e.gas),
        formatDelta(e.marginal.first),
        formatDelta(e.marginal.repeat),
        formatDelta(e.overBare.repeat),
        formatDelta(e.overBare.calldata),
        e.work,
      ]),
    ],
  )
  const policy = formatTable(
    ['runway delegation', ...['first', 'repeat', 'first vs bare', 'repeat vs bare'].map(right), `goal <= ${r.goal}x`, 'caveats'],
    r.policies.map((p) => [
      p.name,
      ...pair(p.gas),
      formatRatio(p.ratio.first, 4),
      formatRatio(p.ratio.repeat, 4),
      p.verdict,
      p.caveats.join(', '),
    ]),
  )
  const head = r.policies[0]!
  const previous = r.policies[1]!
  const over = head.gas.repeat - r.budgetRepeat
  const table = r.enforcers.find((e) => e.label === 'golemPhase+window')
  const runway = r.enforcers.find((e) => e.label === 'golemPhase runway')
  return [
    'Gas: one USDC runway redemption (EOA Golem key -> DelegationManager.redeemDelegations), gasUsed from receipts',
    `Per-caveat hook overhead (NoopEnforcer - bare): first ${formatDelta(r.hookOverhead.first)}, repeat ${formatDelta(r.hookOverhead.repeat)} ` +
      `(${formatDelta(r.hookOverhead.calldata)} of it calldata). Marginal = enforcer - NoopEnforcer; "over bare" = enforcer - bare scope.`,
    '',
    marginal,
    '',
    policy,
    '',
    `Complete Bardo runway policy: repeat ${formatInt(head.gas.repeat)} = ${formatRatio(head.ratio.repeat, 4)} bare (goal <= ${r.goal}x, budget ${formatInt(r.budgetRepeat)}): ${head.verdict}` +
      (over > 0n ? `, ${formatInt(over)} gas over budget` : `, ${formatInt(-over)} gas to spare`),
    `Folding the life window into golemPhase saves ${formatInt(previous.gas.repeat - head.gas.repeat)} gas a repeat redemption ` +
      `(${formatInt(previous.gas.first - head.gas.first)} a first) against the previous shape (${formatRatio(previous.ratio.repeat, 4)} bare).`,
    ...r.policies
      .filter((p) => p.name.startsWith('ERC-7715 chain'))
      .map(
        (p) =>
          `The ERC-7715 chain (the wallet's grant, then the Session Account's re-delegation) costs ${formatInt(p.gas.repeat - head.gas.repeat)} gas ` +
          `more a repeat redemption than the direct grant (${formatRatio(ratio(p.gas.repeat, head.gas.repeat), 4)} of it): a second signature check and its caveats.`,
      ),
    ...(table && runway
      ? [
          `Runway terms (one word, no selector-table read) save ${formatInt(table.gas.repeat - runway.gas.repeat)} gas a repeat redemption ` +
            `against the table's golemPhase+window terms on the same enforcer.`,
        ]
      : []),
  ].join('\n')
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(formatGasBench(await runGasBench({ log: (l) => console.error(l) })))
}
