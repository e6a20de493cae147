import type { Erc20TokenPeriodicPermission, NativeTokenPeriodicPermission } from '@metamask/7715-permission-types'
import { requestExecutionPermissions, type MetaMaskExtensionClient } from '@metamask/smart-accounts-kit/actions'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { CAPABILITIES } from './capability.ts'
import { compileStrategy, type PermissionPlan } from './compileStrategy.ts'
import { NOW, OWNER, REGISTRIES, SESSION_KEY } from '../../test/support/permissions/corpus.ts'
import {
  JUSTIFICATION_MAX_CHARS,
  parseErc7715Request,
  runwayJustification,
  runwayRequestsSchema,
  runwayTermsFromErc7715Request,
  toErc7715Request,
  toKitPermissionRequests,
  WALLET_PERIOD_PRESETS,
  type RunwayPermissionRequests,
  type WalletPermissionRequest,
} from './erc7715.ts'
import { StrategyCompileError } from './errors.ts'

const plan = (text: string, registry: keyof typeof REGISTRIES = 'local', chainId = 31337): PermissionPlan =>
  compileStrategy({ text, chainId, owner: OWNER, sessionKey: SESSION_KEY, now: NOW, registry: REGISTRIES[registry]() })

describe('toErc7715Request', () => {
  it("builds erc20-token-periodic (USDC runway) and native-token-periodic (gas) in MetaMask's permissions Snap 0.7.0 shape", () => {
    const p = plan('---\nrunway_days: 30\n---\nSwap. budget: $25/day', 'base', 8453)
    const [usdc, gas] = toErc7715Request(p)
    // Compile-time: the permissions are the package's own permission types.
    const typed: [WalletPermissionRequest<Erc20TokenPeriodicPermission>, WalletPermissionRequest<NativeTokenPeriodicPermission>] = [
      usdc,
      gas,
    ]
    expect(typed[0]).toEqual({
      chainId: '0x2105',
      address: OWNER,
      signer: { type: 'account', data: { address: SESSION_KEY } },
      permission: {
        type: 'erc20-token-periodic',
        isAdjustmentAllowed: true,
        data: {
          tokenAddress: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
          periodAmount: '0x17d7840', // 25_000_000
          periodDuration: 86400,
          startTime: NOW,
          justification: 'Bardo runway subscription: 25 USDC/day for 30 days (Swap)',
        },
      },
      rules: [{ type: 'expiry', isAdjustmentAllowed: false, data: { timestamp: NOW + 30 * 86400 } }],
    })
    expect(gas).toEqual({
      chainId: '0x2105',
      address: OWNER,
      signer: { type: 'account', data: { address: SESSION_KEY } },
      permission: {
        type: 'native-token-periodic',
        isAdjustmentAllowed: true,
        data: {
          periodAmount: '0xb1a2bc2ec50000',
          periodDuration: 86400,
          startTime: NOW,
          justification: 'Bardo Golem gas: 0.05 ETH/day for 30 days',
        },
      },
      rules: [{ type: 'expiry', isAdjustmentAllowed: false, data: { timestamp: NOW + 30 * 86400 } }],
    })
    expect('to' in usdc).toBe(false)
    expect('from' in usdc).toBe(false)
    // The Snap offers only preset periods; the plan's day is its daily preset.
    expect(usdc.permission.data.periodDuration).toBe(WALLET_PERIOD_PRESETS.daily)
  })

  it("keeps the runway's justification within the Snap's 120 characters, naming the capabilities while they fit", () => {
    const every: PermissionPlan = { ...plan('Swap.'), capabilities: CAPABILITIES, dailyUsdcCap: 100_000_000_000n, runwayDays: 3650 }
    const text = runwayJustification(every)
    expect(text.length).toBeLessThanOrEqual(JUSTIFICATION_MAX_CHARS)
    expect(text).toBe(`Bardo runway subscription: 100000 USDC/day for 3650 days (${every.capabilities.length} capabilities)`)
    expect(() => toErc7715Request(every)).not.toThrow()
  })

  it("round-trips through JSON and zod back to the plan's terms", () => {
    const p = plan('---\noverride: true\n---\nManage the vault.')
    const wire = JSON.parse(JSON.stringify(toErc7715Request(p))) as unknown
    expect(parseErc7715Request(wire)).toEqual(toErc7715Request(p))
    expect(runwayTermsFromErc7715Request(wire)).toEqual({
      chainId: 31337,
      owner: p.owner,
      sessionKey: p.sessionKey,
      usdc: p.usdc,
      dailyUsdcCap: p.dailyUsdcCap,
      dailyGasCap: p.dailyGasCap,
      period: 86400,
      startTime: p.startTime,
      expiry: p.expiry,
    })
  })

  it('round-trips any cap and runway (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 90 }), fc.bigInt({ min: 1n, max: 100_000_000n }), (days, units) => {
        const p = plan(
          `---\nrunway_days: ${days}\n---\nSwap.\nbudget: ${units / 1_000_000n}.${(units % 1_000_000n).toString().padStart(6, '0')}`,
        )
        const terms = runwayTermsFromErc7715Request(JSON.parse(JSON.stringify(toErc7715Request(p))))
        expect(terms.dailyUsdcCap).toBe(units)
        expect(terms.expiry).toBe(NOW + days * 86400)
      }),
      { numRuns: 300 },
    )
  })

  it('carries exactly the terms the kit sends for the same permission (requestExecutionPermissions, the later shape)', async () => {
    const p = plan('---\noverride: true\n---\nSwap and bridge cross-chain.', 'baseSepolia', 84532)
    let sent: unknown
    const client = {
      request: async ({ params }: { method: string; params: unknown }) => {
        sent = params
        return []
      },
    } as unknown as MetaMaskExtensionClient
    await requestExecutionPermissions(client, toKitPermissionRequests(p))
    // The later shape names the owner `from` and the session account `to`, and its rules carry no adjustment flag.
    const laterShape = (requests: RunwayPermissionRequests) =>
      requests.map(({ address, signer, rules, ...rest }) => ({
        ...rest,
        from: address,
        to: signer.data.address,
        rules: rules.map(({ isAdjustmentAllowed: _a, ...rule }) => rule),
      }))
    expect(sent).toEqual(laterShape(toErc7715Request(p)))
  })
})

describe('zod validation refuses malformed requests', () => {
  const good = () => JSON.parse(JSON.stringify(toErc7715Request(plan('Swap.')))) as any[]
  it.each([
    [
      'zero period amount',
      (r: any[]) => {
        r[0].permission.data.periodAmount = '0x0'
      },
      'erc7715.0.permission.data.periodAmount',
    ],
    [
      'decimal amount',
      (r: any[]) => {
        r[0].permission.data.periodAmount = '100'
      },
      'erc7715.0.permission.data.periodAmount',
    ],
    [
      'padded hex amount',
      (r: any[]) => {
        r[1].permission.data.periodAmount = '0x00ff'
      },
      'erc7715.1.permission.data.periodAmount',
    ],
    [
      'bad token address',
      (r: any[]) => {
        r[0].permission.data.tokenAddress = '0x1234'
      },
      'erc7715.0.permission.data.tokenAddress',
    ],
    [
      'weekly period',
      (r: any[]) => {
        r[0].permission.data.periodDuration = 604800
      },
      'erc7715.0.permission.data.periodDuration',
    ],
    [
      'a key signer (the Snap grants only to an account)',
      (r: any[]) => {
        r[0].signer = { type: 'key', data: { id: SESSION_KEY } }
      },
      'erc7715.0.signer',
    ],
    [
      'no signer (the later shape names the session account `to`)',
      (r: any[]) => {
        delete r[0].signer
        r[0].to = SESSION_KEY
      },
      'erc7715.0',
    ],
    [
      'a bad signer address',
      (r: any[]) => {
        r[1].signer.data.address = '0x1234'
      },
      'erc7715.1.signer.data.address',
    ],
    [
      'no owner address',
      (r: any[]) => {
        delete r[0].address
      },
      'erc7715.0.address',
    ],
    [
      'an expiry rule without its adjustment flag',
      (r: any[]) => {
        delete r[0].rules[0].isAdjustmentAllowed
      },
      'erc7715.0.rules.0.isAdjustmentAllowed',
    ],
    [
      'a justification longer than the Snap shows',
      (r: any[]) => {
        r[0].permission.data.justification = 'x'.repeat(121)
      },
      'erc7715.0.permission.data.justification',
    ],
    [
      'a justification with markup',
      (r: any[]) => {
        r[1].permission.data.justification = 'Bardo <b>gas</b>'
      },
      'erc7715.1.permission.data.justification',
    ],
    [
      'legacy permission type',
      (r: any[]) => {
        r[0].permission.type = 'erc20-recurring-allowance'
      },
      'erc7715.0.permission.type',
    ],
    [
      'no expiry rule',
      (r: any[]) => {
        r[0].rules = []
      },
      'erc7715.0.rules',
    ],
    [
      'wrong order',
      (r: any[]) => {
        r.reverse()
      },
      'erc7715.0.permission.type',
    ],
    [
      'mismatched expiries',
      (r: any[]) => {
        r[1].rules[0].data.timestamp += 1
      },
      'erc7715.',
    ],
    [
      'mismatched session keys',
      (r: any[]) => {
        r[1].signer.data.address = OWNER
      },
      'erc7715.',
    ],
  ])('%s', (_name, mutate, field) => {
    const r = good()
    mutate(r)
    expect(runwayRequestsSchema.safeParse(r).success).toBe(false)
    try {
      parseErc7715Request(r)
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(StrategyCompileError)
      expect((e as StrategyCompileError).field.startsWith(field)).toBe(true)
    }
  })
})
