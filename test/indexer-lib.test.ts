// The indexer's pure parts, without a chain: configuration from the environment (local, Base, Base
// Sepolia), the delegation hash, the enforcers' period arithmetic, redemption grouping, cursors and a
// liquidity removal's decoding.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import fc from 'fast-check'
import { getAddress, type Address, type Hex } from 'viem'
import { getSmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import { hashDelegation } from '@metamask/smart-accounts-kit/utils'
import { BardoError } from '../core/errors.ts'
import { encodeActionCall } from '../core/actions/actionCall.ts'
import { decodeAction } from '../indexer/lib/actions.ts'
import { createDelegationHasher, delegationHash } from '../indexer/lib/delegationHash.ts'
import { decodeCursor, encodeCursor } from '../indexer/lib/cursor.ts'
import { groupRedemptions, type RedemptionRow, type SpendRow } from '../indexer/lib/redemptions.ts'
import { bardoEnforcerSet, hasBardoCaveat } from '../indexer/lib/relevance.ts'
import { UNCONFIGURED, indexerEnv, loadIndexerSettings, parseDeployment } from '../indexer/lib/settings.ts'
import { defaultPrices, toIndexerDeployment } from '../indexer/lib/deployment.ts'
import { usdAtPar, usdValue } from '../indexer/lib/usd.ts'
import { grantTimeline, type GrantRow } from '../indexer/lib/grants.ts'
import { remainingReads } from '../indexer/lib/remaining.ts'
import { dayLabel, dayPeriod, parseDayLabel, periodDelta, transferPeriod, utcDay } from '../indexer/lib/spend.ts'
import { createEmptyApp, registeredEvents } from '../bench/indexer.ts'
import { DEFAULT_MIX, eventsPerGolem } from '../bench/indexer-events.ts'

const A = (n: number): Address => getAddress(`0x${n.toString(16).padStart(40, '0')}`)
const lookup = (chainId: number) => getSmartAccountsEnvironment(chainId)

describe('settings', () => {
  it('defaults to the local anvil chain and PGlite', () => {
    const s = loadIndexerSettings({}, lookup)
    expect(s).toMatchObject({
      chainId: 31337,
      chainName: 'anvil',
      rpcUrl: 'http://127.0.0.1:8545',
      startBlock: 0,
      indexAllDelegations: false,
    })
    expect(s.database).toEqual({ kind: 'pglite', directory: '.ponder/pglite' })
    // Nothing configured: every contract is pinned to an address that never emits.
    expect(s.addresses.vitalityOracle).toBe(UNCONFIGURED)
    expect(s.addresses.delegationManager).toBe(UNCONFIGURED)
    expect(s.unconfigured).toContain('delegationManager')
  })

  it('reads a partial deployment: the addresses given, the framework under environment', () => {
    const deployment = {
      vitalityOracle: A(1).toLowerCase(),
      dreamOracle: A(2),
      environment: { DelegationManager: A(3), caveatEnforcers: { AllowedTargetsEnforcer: A(7) } },
      enforcers: { dailySpendLimit: A(4), replicantBudget: A(5), vaultNav: A(6) },
    }
    const s = loadIndexerSettings(
      { BARDO_DEPLOYMENT: JSON.stringify(deployment), BARDO_START_BLOCK: '42', BARDO_INDEXER_PGLITE_DIR: '/tmp/x' },
      lookup,
    )
    expect(s.addresses.vitalityOracle).toBe(A(1))
    expect(s.addresses.delegationManager).toBe(A(3))
    expect(s.addresses.enforcers.dailySpendLimit).toBe(A(4))
    expect(s.addresses.enforcers.replicantBudget).toBe(A(5))
    expect(s.addresses.enforcers.golemPhase).toBe(UNCONFIGURED)
    expect(s.addresses.daimonOracle).toBe(UNCONFIGURED)
    expect(s.caveatNames[A(7).toLowerCase()]).toBe('allowedTargets')
    // Framework enforcers are not Bardo's: they do not make a delegation relevant.
    expect(s.bardoEnforcers.sort()).toEqual([A(4), A(5), A(6)].sort())
    expect(s.startBlock).toBe(42)
    expect(s.database).toEqual({ kind: 'pglite', directory: '/tmp/x' })
  })

  // The framework's addresses at the top level and enforcers under contract names were read before one
  // schema; nothing writes them any more, and each is refused where it used to go.
  it.each([
    [{ delegationManager: A(3) }, 'BARDO_DEPLOYMENT.delegationManager: is not a deployment field'],
    [{ entryPoint: A(3) }, 'BARDO_DEPLOYMENT.entryPoint: is not a deployment field'],
    [{ caveatEnforcers: { AllowedTargetsEnforcer: A(7) } }, 'BARDO_DEPLOYMENT.caveatEnforcers: is not a deployment field'],
    [{ enforcers: { DailySpendLimitEnforcer: A(4) } }, 'BARDO_DEPLOYMENT.enforcers.DailySpendLimitEnforcer: is not one of the nine'],
    [{ enforcers: { erc20PeriodTransfer: A(4) } }, 'BARDO_DEPLOYMENT.enforcers.erc20PeriodTransfer: is not one of the nine'],
    [
      { environment: { DelegationManager: 'nope' } },
      'BARDO_DEPLOYMENT.environment.DelegationManager: must be a 0x-prefixed 20-byte address',
    ],
    [{ startBlock: -1 }, 'BARDO_DEPLOYMENT.startBlock: must be a whole number >= 0'],
    [{ chainId: '31337' }, 'BARDO_DEPLOYMENT.chainId: must be a chain id'],
  ])('refuses the deployment %j naming the field and the rule', (deployment, message) => {
    expect(() => loadIndexerSettings({ BARDO_DEPLOYMENT: JSON.stringify(deployment) }, lookup)).toThrow(message)
  })

  it('reads BARDO_DEPLOYMENT from a file, and the devnet BardoDeployment shape', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bardo-settings-'))
    const file = join(dir, 'deployment.json')
    const environment = {
      DelegationManager: A(9),
      caveatEnforcers: { ERC20PeriodTransferEnforcer: A(10), NativeTokenPeriodTransferEnforcer: A(11) },
    }
    writeFileSync(
      file,
      JSON.stringify({ chainId: 31337, environment, vitalityOracle: A(1), enforcers: { golemPhase: A(12) }, startBlock: '77' }),
    )
    try {
      const s = loadIndexerSettings({ BARDO_DEPLOYMENT: file }, lookup)
      expect(s.addresses.delegationManager).toBe(A(9))
      expect(s.addresses.enforcers.erc20PeriodTransfer).toBe(A(10))
      expect(s.addresses.enforcers.nativeTokenPeriodTransfer).toBe(A(11))
      expect(s.addresses.enforcers.golemPhase).toBe(A(12))
      expect(s.startBlock).toBe(77)
      // BARDO_START_BLOCK wins over the deployment's.
      expect(loadIndexerSettings({ BARDO_DEPLOYMENT: file, BARDO_START_BLOCK: '5' }, lookup).startBlock).toBe(5)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it.each([
    [8453, 'base'],
    [84532, 'baseSepolia'],
  ])('takes the framework addresses for chain %i from getSmartAccountsEnvironment', (chainId, name) => {
    const env = getSmartAccountsEnvironment(chainId)
    const s = loadIndexerSettings(
      {
        BARDO_CHAIN_ID: String(chainId),
        BARDO_RPC_URL: 'https://rpc.example',
        BARDO_DEPLOYMENT: JSON.stringify({ vitalityOracle: A(1) }),
        DATABASE_URL: 'postgres://db/bardo',
      },
      lookup,
    )
    expect(s.chainName).toBe(name)
    expect(s.addresses.delegationManager).toBe(env.DelegationManager)
    expect(s.addresses.enforcers.erc20PeriodTransfer).toBe(env.caveatEnforcers.ERC20PeriodTransferEnforcer)
    expect(s.addresses.enforcers.nativeTokenPeriodTransfer).toBe(env.caveatEnforcers.NativeTokenPeriodTransferEnforcer)
    expect(s.database).toEqual({ kind: 'postgres', connectionString: 'postgres://db/bardo' })
    expect(s.pollingInterval).toBe(1_000)
  })

  it('lets the deployment override the framework address on a public chain', () => {
    const s = loadIndexerSettings(
      {
        BARDO_CHAIN_ID: '8453',
        BARDO_RPC_URL: 'https://rpc.example',
        BARDO_DEPLOYMENT: JSON.stringify({ environment: { DelegationManager: A(3) } }),
      },
      lookup,
    )
    expect(s.addresses.delegationManager).toBe(A(3))
  })

  it.each([
    [{ BARDO_CHAIN_ID: 'base' }, 'BARDO_CHAIN_ID'],
    [{ BARDO_START_BLOCK: '-1' }, 'BARDO_START_BLOCK'],
    [{ BARDO_CHAIN_ID: '8453' }, 'BARDO_RPC_URL'],
    [{ BARDO_DEPLOYMENT: '{"vitalityOracle":"0x12"}' }, 'BARDO_DEPLOYMENT.vitalityOracle'],
    [{ BARDO_DEPLOYMENT: '{not json' }, 'BARDO_DEPLOYMENT'],
    [{ BARDO_DEPLOYMENT: '/no/such/file.json' }, 'BARDO_DEPLOYMENT'],
    [{ BARDO_POLLING_INTERVAL_MS: '50' }, 'BARDO_POLLING_INTERVAL_MS'],
    [{ BARDO_INDEX_ALL_DELEGATIONS: 'yes' }, 'BARDO_INDEX_ALL_DELEGATIONS'],
  ])('rejects %j naming the field', (env, field) => {
    let error: unknown
    try {
      loadIndexerSettings(env, lookup)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(BardoError)
    expect((error as BardoError).code).toBe('INDEXER_CONFIG_INVALID')
    expect((error as BardoError).message.startsWith(`${field}:`)).toBe(true)
  })

  it('round-trips a devnet deployment through the child-process environment', () => {
    const deployment = toIndexerDeployment({
      chainId: 31337,
      vitalityOracle: A(1),
      dreamOracle: A(2),
      daimonOracle: A(3),
      enforcers: {
        golemPhase: A(4),
        mortalityTimeWindow: A(5),
        dreamMode: A(6),
        vaultNav: A(7),
        replicantBudget: A(8),
        maxSlippage: A(9),
        dailySpendLimit: A(10),
        emotionalState: A(11),
        knowledgeRoyalty: A(12),
      },
      environment: {
        DelegationManager: A(13),
        caveatEnforcers: { ERC20PeriodTransferEnforcer: A(14), NativeTokenPeriodTransferEnforcer: A(15) },
      } as never,
      startBlock: 7n,
    })
    const env = indexerEnv({ chainId: 31337, rpcUrl: 'http://127.0.0.1:1', deployment, pgliteDir: '/tmp/p' })
    const s = loadIndexerSettings(env, lookup)
    expect(s.unconfigured).toEqual([])
    expect(s.addresses.enforcers).toEqual({
      dailySpendLimit: A(10),
      replicantBudget: A(8),
      golemPhase: A(4),
      erc20PeriodTransfer: A(14),
      nativeTokenPeriodTransfer: A(15),
    })
    expect(s.bardoEnforcers).toHaveLength(9)
    expect(s.startBlock).toBe(7) // the deployment's, since no start block was given
    expect(parseDeployment(env.BARDO_DEPLOYMENT).startBlock).toBe(7)
    expect(
      loadIndexerSettings(indexerEnv({ chainId: 31337, rpcUrl: 'http://127.0.0.1:1', deployment, startBlock: 3n }), lookup).startBlock,
    ).toBe(3)
  })
})

describe('ponder.config.ts', () => {
  afterEach(() => {
    vi.unstubAllEnvs()
    vi.resetModules()
  })

  it('builds one Base chain with the framework DelegationManager and the configured Bardo contracts', async () => {
    vi.stubEnv('BARDO_CHAIN_ID', '8453')
    vi.stubEnv('BARDO_RPC_URL', 'https://rpc.example')
    vi.stubEnv('BARDO_START_BLOCK', '30000000')
    vi.stubEnv('BARDO_DEPLOYMENT', JSON.stringify({ vitalityOracle: A(1), dreamOracle: A(2), enforcers: { dailySpendLimit: A(3) } }))
    const { default: config } = await import('../indexer/ponder.config.ts')
    expect(Object.keys(config.chains)).toEqual(['base'])
    expect(config.chains.base).toMatchObject({ id: 8453, rpc: 'https://rpc.example' })
    expect(config.contracts.DelegationManager).toMatchObject({
      chain: 'base',
      address: getSmartAccountsEnvironment(8453).DelegationManager,
      startBlock: 30_000_000,
    })
    expect(config.contracts.VitalityOracle.address).toBe(A(1))
    expect(config.contracts.DailySpendLimitEnforcer.address).toBe(A(3))
    expect(config.contracts.DaimonOracle.address).toBe(UNCONFIGURED)
    // Only events reach Ponder's decoder.
    expect(config.contracts.VitalityOracle.abi.every((item: { type: string }) => item.type === 'event')).toBe(true)
  })
})

describe('delegation hash', () => {
  it('matches the kit for delegations with and without caveats', () => {
    const arb = fc.record({
      delegate: fc.integer({ min: 1, max: 1e9 }).map(A),
      delegator: fc.integer({ min: 1, max: 1e9 }).map(A),
      authority: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => `0x${Buffer.from(b).toString('hex')}` as Hex),
      salt: fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
      caveats: fc.array(
        fc.record({
          enforcer: fc.integer({ min: 1, max: 1e9 }).map(A),
          terms: fc.uint8Array({ maxLength: 200 }).map((b) => `0x${Buffer.from(b).toString('hex')}` as Hex),
          args: fc.uint8Array({ maxLength: 40 }).map((b) => `0x${Buffer.from(b).toString('hex')}` as Hex),
        }),
        { maxLength: 4 },
      ),
    })
    fc.assert(
      fc.property(arb, (d) => {
        const kit = hashDelegation({ ...d, salt: `0x${d.salt.toString(16)}`, signature: '0x' })
        expect(delegationHash(d)).toBe(kit)
      }),
      { numRuns: 60 },
    )
  })
})

describe('spend periods', () => {
  it('uses UTC days as DailySpendLimitEnforcer does', () => {
    expect(utcDay(86_399n)).toBe(0)
    expect(utcDay(86_400n)).toBe(1)
    expect(dayPeriod(20_000n)).toEqual({ periodStart: 1_728_000_000n, periodEnd: 1_728_086_400n })
    expect(dayLabel(20_000)).toBe('2024-10-04')
    expect(parseDayLabel('2024-10-04')).toBe(20_000)
    expect(parseDayLabel('2024-02-30')).toBeUndefined()
    expect(parseDayLabel('yesterday')).toBeUndefined()
  })

  it('finds the period-transfer window containing a time', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 2n ** 40n }),
        fc.bigInt({ min: 1n, max: 10n ** 7n }),
        fc.bigInt({ min: 0n, max: 2n ** 40n }),
        (start, duration, offset) => {
          const { periodStart, periodEnd } = transferPeriod(start, duration, start + offset)
          expect(periodEnd - periodStart).toBe(duration)
          expect(periodStart <= start + offset && start + offset < periodEnd).toBe(true)
          expect((periodStart - start) % duration).toBe(0n)
        },
      ),
    )
  })

  it('derives each step from the running total', () => {
    expect(periodDelta(undefined, 10n)).toBe(10n)
    expect(periodDelta(10n, 25n)).toBe(15n)
    expect(periodDelta(25n, 5n)).toBe(5n) // a new period restarted the total
  })
})

describe('USD values', () => {
  it('prices token amounts in USD6 from a feed, rounding up like the enforcers, or at par', () => {
    expect(usdValue(25_000_000n, 6, 10n ** 8n, 8)).toBe(25_000_000n)
    expect(usdValue(10n ** 18n, 18, 3_000n * 10n ** 8n, 8)).toBe(3_000_000_000n)
    expect(usdValue(1n, 18, 3_000n * 10n ** 8n, 8)).toBe(1n) // a wei is worth less than a micro-dollar: rounds up
    expect(usdValue(0n, 18, 3_000n * 10n ** 8n, 8)).toBe(0n)
    expect(usdValue(5n, 6, 0n, 8)).toBeNull()
    expect(usdValue(5n, 6, -1n, 8)).toBeNull()
    expect(usdAtPar(1_500_000n, 6)).toBe(1_500_000n)
    expect(usdAtPar(10n ** 18n, 18)).toBe(1_000_000n)
  })

  it('defaults prices: the devnet feeds, USDC at par on Base and Base Sepolia, nothing elsewhere', () => {
    const assets = { usdc: A(20), weth: A(21), ethUsdFeed: A(22), usdcUsdFeed: A(23), vault: A(24), router: A(25) }
    expect(defaultPrices(31337, assets)).toEqual({
      [A(20).toLowerCase()]: { decimals: 6, feed: A(23) },
      [A(21).toLowerCase()]: { decimals: 18, feed: A(22) },
      '0x0000000000000000000000000000000000000000': { decimals: 18, feed: A(22) },
    })
    expect(defaultPrices(8453)).toEqual({ '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913': { decimals: 6 } })
    expect(defaultPrices(84532)).toEqual({ '0x036cbd53842c5426634e7929541ec2318f3dcf7e': { decimals: 6 } })
    expect(defaultPrices(1)).toEqual({})
  })

  it('reads prices from BARDO_DEPLOYMENT and refuses a bad one, naming the field', () => {
    const s = loadIndexerSettings(
      { BARDO_DEPLOYMENT: JSON.stringify({ prices: { [A(30)]: { decimals: 18, feed: A(31) }, [A(32)]: { decimals: 6 } } }) },
      lookup,
    )
    expect(s.prices).toEqual({ [A(30).toLowerCase()]: { decimals: 18, feed: A(31) }, [A(32).toLowerCase()]: { decimals: 6 } })
    for (const [prices, field] of [
      [{ '0x12': { decimals: 6 } }, 'BARDO_DEPLOYMENT.prices.0x12'],
      [{ [A(30)]: { decimals: 99 } }, `BARDO_DEPLOYMENT.prices.${A(30)}.decimals`],
      [{ [A(30)]: { decimals: 6, feed: 'nope' } }, `BARDO_DEPLOYMENT.prices.${A(30)}.feed`],
      [[1], 'BARDO_DEPLOYMENT.prices'],
    ] as const) {
      expect(() => loadIndexerSettings({ BARDO_DEPLOYMENT: JSON.stringify({ prices }) }, lookup)).toThrow(
        new RegExp(`^${field.replace(/\./g, '\\.')}:`),
      )
    }
  })
})

describe('grant timeline', () => {
  const grant = (hash: string, delegator: string, block: bigint, enabled = true): GrantRow => ({
    hash,
    delegator,
    delegate: '0xkey',
    enabled,
    firstSeenBlock: block,
    statusBlock: null,
    redemptionCount: 1,
    lastRedeemedBlock: block,
    caveats: [],
  })

  it('orders grants, links renewals from the same delegator, and lets a revocation win', () => {
    const timeline = grantTimeline([
      grant('0xc', '0xowner', 30n),
      grant('0xa', '0xowner', 10n),
      grant('0xb', '0xother', 20n, false),
      grant('0xd', '0xowner', 40n, false),
    ])
    expect(timeline.map((g) => [g.hash, g.kind, g.status, g.supersededBy])).toEqual([
      ['0xa', 'grant', 'superseded', '0xc'],
      ['0xb', 'grant', 'revoked', null],
      ['0xc', 'renewal', 'superseded', '0xd'],
      ['0xd', 'renewal', 'revoked', null],
    ])
    expect(grantTimeline([])).toEqual([])
  })
})

describe('remaining-budget reads', () => {
  it('plans one view call per caveat whose enforcer has one, and none for the others', () => {
    const names = {
      [A(1).toLowerCase()]: 'dailyspendlimit',
      [A(2).toLowerCase()]: 'erc20periodtransfer',
      [A(3).toLowerCase()]: 'golemphase',
    }
    const hash = `0x${'11'.repeat(32)}` as Hex
    const reads = remainingReads(
      [
        { enforcer: A(1), terms: '0x01' },
        { enforcer: A(9), terms: '0x02' },
        { enforcer: A(2).toLowerCase(), terms: '0x03' },
        { enforcer: A(3), terms: '0x04' },
      ],
      names,
      A(7),
      hash,
    )
    expect(reads.map((r) => [r.request.functionName, r.request.args])).toEqual([
      ['remainingToday', [A(7), hash, '0x01']],
      ['getAvailableAmount', [hash, A(7), '0x03']],
      ['timeRemaining', ['0x04']],
    ])
    expect(reads[0]!.shape([5n, 86_400n])).toEqual({ kind: 'daily-spend-limit', enforcer: A(1), remainingUsd6: 5n, resetsAt: 86_400n })
    expect(reads[1]!.shape([7n, true, 3n])).toMatchObject({
      kind: 'erc20-period',
      availableAmount: 7n,
      isNewPeriod: true,
      currentPeriod: 3n,
    })
    expect(reads[2]!.shape(60n)).toMatchObject({ kind: 'golem-phase', timeRemaining: 60n })
  })
})

describe('redemption grouping', () => {
  const row = (tx: string, logIndex: number, hash: string, extra: Partial<RedemptionRow> = {}): RedemptionRow => ({
    rootDelegator: '0xowner',
    redeemer: '0xkey',
    delegationHash: hash,
    delegator: '0xd',
    delegate: '0xe',
    blockNumber: 10n,
    timestamp: 100n,
    txHash: tx,
    logIndex,
    ...extra,
  })
  const spend = (tx: string, source: string, asset: string, amount: bigint, hash: string, logIndex = 0): SpendRow => ({
    txHash: tx,
    source,
    asset,
    amount,
    delegationHash: hash,
    logIndex,
  })

  it('gives one item per transaction, leaf first, with USD counted once across a chain', () => {
    const rows = [row('0xt1', 5, '0xparent'), row('0xt1', 4, '0xchild'), row('0xt2', 9, '0xsolo')]
    const spends = [
      spend('0xt1', 'replicant-budget', 'usd', 5n, '0xchild'),
      spend('0xt1', 'daily-spend-limit', 'usd', 5n, '0xparent'),
      spend('0xt1', 'erc20-period', '0xusdc', 5n, '0xparent'),
      spend('0xt2', 'erc20-period', '0xusdc', 3n, '0xsolo'),
      spend('0xt2', 'native-period', '0x0000000000000000000000000000000000000000', 1n, '0xsolo'),
    ]
    const [t1, t2] = groupRedemptions(rows, spends)
    expect(t1).toMatchObject({ txHash: '0xt1', delegationHash: '0xchild', usd6: 5n, transfers: [{ asset: '0xusdc', amount: 5n }] })
    expect(t1!.delegations.map((d) => d.hash)).toEqual(['0xchild', '0xparent'])
    expect(t2).toMatchObject({ txHash: '0xt2', usd6: null })
    expect(t2!.transfers).toEqual([
      { asset: '0x0000000000000000000000000000000000000000', amount: 1n, usd6: null },
      { asset: '0xusdc', amount: 3n, usd6: null },
    ])
  })

  it('values a runway redemption by its priced transfers when no USD enforcer ran', () => {
    const priced = (tx: string, asset: string, amount: bigint, usd6: bigint | null): SpendRow => ({
      ...spend(tx, asset === '0xusdc' ? 'erc20-period' : 'native-period', asset, amount, '0xh'),
      usd6,
    })
    const [runway] = groupRedemptions([row('0xt', 1, '0xh')], [priced('0xt', '0xusdc', 25_000_000n, 25_000_000n)])
    expect(runway).toMatchObject({ usd6: 25_000_000n, transfers: [{ asset: '0xusdc', amount: 25_000_000n, usd6: 25_000_000n }] })
    const [both] = groupRedemptions(
      [row('0xt', 1, '0xh')],
      [
        priced('0xt', '0xusdc', 2_000_000n, 2_000_000n),
        priced('0xt', '0x0000000000000000000000000000000000000000', 10n ** 15n, 3_000_000n),
      ],
    )
    expect(both!.usd6).toBe(5_000_000n)
    // One unpriced transfer leaves the total unknown rather than understated.
    const [partial] = groupRedemptions(
      [row('0xt', 1, '0xh')],
      [priced('0xt', '0xusdc', 2_000_000n, 2_000_000n), priced('0xt', '0x0000000000000000000000000000000000000000', 1n, null)],
    )
    expect(partial!.usd6).toBeNull()
    // A USD enforcer's count wins over the price of the transfers.
    const [enforced] = groupRedemptions(
      [row('0xt', 1, '0xh')],
      [spend('0xt', 'daily-spend-limit', 'usd', 7n, '0xh'), priced('0xt', '0xusdc', 6n, 6n)],
    )
    expect(enforced!.usd6).toBe(7n)
  })

  it('sums a batch of executions under one delegation', () => {
    const [t] = groupRedemptions(
      [row('0xt', 3, '0xh')],
      [spend('0xt', 'daily-spend-limit', 'usd', 2n, '0xh', 1), spend('0xt', 'daily-spend-limit', 'usd', 7n, '0xh', 2)],
    )
    expect(t!.usd6).toBe(9n)
  })
})

describe('relevance and cursors', () => {
  it('recognises a Bardo caveat in any letter case and ignores the unconfigured address', () => {
    const set = bardoEnforcerSet([A(4), UNCONFIGURED], UNCONFIGURED)
    expect(set.size).toBe(1)
    expect(hasBardoCaveat([{ enforcer: A(9) }, { enforcer: A(4).toLowerCase() as Address }], set)).toBe(true)
    expect(hasBardoCaveat([{ enforcer: A(9) }], set)).toBe(false)
  })

  it('round-trips cursors and rejects foreign ones', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 63n }), fc.integer({ min: 0, max: 1e8 }), (blockNumber, logIndex) => {
        expect(decodeCursor(encodeCursor({ blockNumber, logIndex }))).toEqual({ blockNumber, logIndex })
      }),
    )
    expect(decodeCursor('nope')).toBeUndefined()
    expect(decodeCursor(Buffer.from('1.2.3').toString('base64url'))).toBeUndefined()
  })
})

describe('delegation hasher memo', () => {
  it('returns the same hashes as the plain function and stays bounded', () => {
    const hasher = createDelegationHasher(2)
    const base = {
      delegate: A(1),
      delegator: A(2),
      authority: `0x${'ff'.repeat(32)}` as Hex,
      caveats: [{ enforcer: A(3), terms: '0x01' as Hex, args: '0x' as Hex }],
    }
    for (const salt of [1n, 2n, 3n, 1n, 1n]) expect(hasher({ ...base, salt })).toBe(delegationHash({ ...base, salt }))
    // Terms are part of the key: same parties and salt, different terms, different hash.
    expect(hasher({ ...base, salt: 1n, caveats: [{ enforcer: A(3), terms: '0x02', args: '0x' }] })).not.toBe(hasher({ ...base, salt: 1n }))
  })
})

describe('benchmark plumbing', () => {
  it('gives the empty app a no-op handler for every event the Bardo app handles', () => {
    const events = registeredEvents()
    expect(events).toEqual(
      expect.arrayContaining([
        'VitalityOracle:PhaseTransition',
        'DreamOracle:DreamEnded',
        'DelegationManager:RedeemedDelegation',
        'DailySpendLimitEnforcer:SpendRecorded',
        'ERC20PeriodTransferEnforcer:TransferredInPeriod',
      ]),
    )
    const app = createEmptyApp()
    try {
      const handlers = readFileSync(join(app.root, 'src', 'index.ts'), 'utf8')
      for (const name of events) expect(handlers).toContain(`ponder.on(${JSON.stringify(name)}, async () => {})`)
      expect(readFileSync(join(app.root, 'ponder.config.ts'), 'utf8')).toContain('indexer/ponder.config.ts')
    } finally {
      app.remove()
    }
    expect(existsSync(app.root)).toBe(false)
  })

  it('counts the generated events per Golem', () => {
    expect(eventsPerGolem(DEFAULT_MIX) * DEFAULT_MIX.golems).toBeGreaterThanOrEqual(10_000)
  })
})

describe('decoding a liquidity removal (pure)', () => {
  it('reads decreaseLiquidity as removeLiquidity: the position and the liquidity, nothing valued (it stays owed to the position)', () => {
    const call = encodeActionCall({ kind: 'removeLiquidity', positionManager: A(9), tokenId: 7n, liquidity: 1_000n }, A(1))
    expect(decodeAction({ target: call.target, value: 0n, callData: call.callData })).toEqual({
      kind: 'removeLiquidity',
      selector: '0x0c49ccbe',
      target: A(9),
      counterparty: null,
      tokens: [],
      amounts: [7n, 1_000n],
      valued: null,
    })
    // Cut short, it is not guessed at.
    expect(decodeAction({ target: A(9), value: 0n, callData: call.callData.slice(0, 74) as Hex })).toMatchObject({ kind: 'other' })
  })
})
