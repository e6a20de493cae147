// readGrantedRunway reads what the wallet granted from the signed root delegations it returns. The
// answers here are built as MetaMask's permissions Snap builds them (the permission's caveats, a
// TimestampEnforcer for the expiry, the owner's NonceEnforcer nonce) and then changed the way a wallet
// or an owner could change them.
import { ROOT_AUTHORITY, type Caveat, type Delegation } from '@metamask/smart-accounts-kit'
import { createCaveatBuilder, encodeDelegations, hashDelegation } from '@metamask/smart-accounts-kit/utils'
import { encodePacked, getAddress, toHex, type Address, type Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { ENV } from '../../test/support/caveats/fixtures.ts'
import { compileStrategy } from './compileStrategy.ts'
import { toErc7715Request, WALLET_PERIOD_PRESETS, type RunwayPermissionRequests } from './erc7715.ts'
import { GrantedPermissionError, readGrantedRunway } from './grantedPermission.ts'
import { localRegistry } from './protocolRegistry.ts'

const CHAIN_ID = 31337
const NOW = 1_790_000_000
const DAY = 86_400
const asset = (n: number) => getAddress(`0x${n.toString(16).padStart(40, '0')}`)
const OWNER = asset(0xa11ce)
const SESSION = asset(0x5e55)
const USDC = asset(0xa1)
const REGISTRY = localRegistry({ usdc: USDC, weth: asset(0xa2), router: asset(0xa3), vault: asset(0xa4) })
const plan = compileStrategy({
  text: '---\ncapabilities: [swap]\nbudget: $25/day\nrunway_days: 30\n---\n',
  chainId: CHAIN_ID,
  owner: OWNER,
  sessionKey: SESSION,
  now: NOW,
  registry: REGISTRY,
})
const request: RunwayPermissionRequests = toErc7715Request(plan)
const USDC_AMOUNT = 25_000_000n
const GAS_AMOUNT = plan.dailyGasCap
const EXPIRY = NOW + 30 * DAY

type Grant = {
  token?: Address | null
  amount?: bigint
  period?: number
  start?: number
  expiry?: number | null
  nonce?: bigint | null
  delegate?: Address
  delegator?: Address
  extra?: Caveat[]
}

function rootDelegation(i: 0 | 1, g: Grant = {}): Delegation {
  const b = createCaveatBuilder(ENV, { allowInsecureUnrestrictedDelegation: true })
  // The kit refuses to build a zero amount; a wallet could still sign one, so its terms are written by hand below.
  const amount = g.amount ?? (i === 0 ? USDC_AMOUNT : GAS_AMOUNT)
  const common = { periodAmount: amount === 0n ? 1n : amount, periodDuration: g.period ?? DAY, startDate: g.start ?? NOW }
  if (i === 0) b.addCaveat('erc20PeriodTransfer', { tokenAddress: g.token ?? USDC, ...common }).addCaveat('valueLte', { maxValue: 0n })
  else b.addCaveat('nativeTokenPeriodTransfer', common).addCaveat('exactCalldata', { calldata: '0x' })
  const expiry = g.expiry === undefined ? EXPIRY : g.expiry
  if (expiry !== null) b.addCaveat('timestamp', { afterThreshold: 0, beforeThreshold: expiry })
  if (g.nonce !== null) b.addCaveat('nonce', { nonce: toHex(g.nonce ?? 7n) })
  const caveats = b.build()
  if (amount === 0n && i === 0)
    caveats[0] = {
      ...caveats[0]!,
      terms: encodePacked(
        ['address', 'uint256', 'uint256', 'uint256'],
        [g.token ?? USDC, 0n, BigInt(common.periodDuration), BigInt(common.startDate)],
      ),
    }
  return {
    delegate: g.delegate ?? SESSION,
    delegator: g.delegator ?? OWNER,
    authority: ROOT_AUTHORITY,
    caveats: [...caveats, ...(g.extra ?? [])],
    salt: '0x01',
    signature: '0x',
  }
}

/** The Snap's answer for one request: the request as granted, the context and the manager in signerMeta. */
function answer(i: 0 | 1, g: Grant = {}) {
  return {
    ...request[i],
    context: encodeDelegations([rootDelegation(i, g)]),
    dependencyInfo: [],
    signerMeta: { delegationManager: ENV.DelegationManager },
  }
}

const read = (granted: unknown, now = NOW) => readGrantedRunway({ granted, request, environment: ENV, now, minimumLifeSeconds: 7 * DAY })

function refusal(granted: unknown): GrantedPermissionError {
  try {
    read(granted)
  } catch (error) {
    expect(error).toBeInstanceOf(GrantedPermissionError)
    return error as GrantedPermissionError
  }
  throw new Error('expected a refusal')
}

describe('readGrantedRunway', () => {
  it('reads the runway and the gas as granted: token, amount, period, start, expiry, the nonce, the root and its hash', () => {
    const { runway, gas } = read([answer(0), answer(1)])
    const root = rootDelegation(0)
    expect(runway).toEqual({
      type: 'erc20-token-periodic',
      token: USDC,
      periodAmount: USDC_AMOUNT,
      periodDuration: DAY,
      startDate: NOW,
      expiry: EXPIRY,
      nonce: 7n,
      delegator: OWNER,
      delegate: SESSION,
      delegationManager: getAddress(ENV.DelegationManager),
      // Decoded from the context: the same delegation (its hash), addresses as the encoding writes them.
      root: {
        delegation: expect.objectContaining({ delegator: OWNER.toLowerCase(), delegate: SESSION.toLowerCase() }),
        hash: hashDelegation(root),
      },
      chain: [expect.objectContaining({ authority: ROOT_AUTHORITY })],
    })
    expect(gas).toMatchObject({ type: 'native-token-periodic', token: null, periodAmount: GAS_AMOUNT, nonce: 7n })
  })

  it('takes the daily preset for a life shorter than a day (a period longer than the life pays once at most)', () => {
    const shortLife = toErc7715Request({ ...plan, expiry: NOW + 600 })
    const granted = ([0, 1] as const).map((i) => ({ ...answer(i, { expiry: NOW + 600 }), ...shortLife[i] }))
    const { runway } = readGrantedRunway({ granted, request: shortLife, environment: ENV, now: NOW, minimumLifeSeconds: 60 })
    expect(runway.periodDuration).toBe(DAY)
    expect(runway.expiry).toBe(NOW + 600)
  })

  it('takes an amount the owner lowered in the dialog', () => {
    const { runway, gas } = read([answer(0, { amount: 10_000_000n }), answer(1, { amount: GAS_AMOUNT / 2n })])
    expect(runway.periodAmount).toBe(10_000_000n)
    expect(gas.periodAmount).toBe(GAS_AMOUNT / 2n)
  })

  it('takes another of the wallet’s preset periods that spends no faster (the same amount weekly)', () => {
    const { runway } = read([answer(0, { period: WALLET_PERIOD_PRESETS.weekly }), answer(1)])
    expect(runway.periodDuration).toBe(604_800)
  })

  it('takes a grant without an expiry (expiry null)', () => {
    const { runway, gas } = read([answer(0, { expiry: null }), answer(1, { expiry: null })])
    expect(runway.expiry).toBeNull()
    expect(gas.expiry).toBeNull()
  })

  it('reads the NonceEnforcer nonce the wallet put on the grant', () => {
    expect(read([answer(0, { nonce: 0n }), answer(1, { nonce: 12345n })]).gas.nonce).toBe(12345n)
  })

  it('takes the later ERC-7715 answer shape (delegationManager at the top)', () => {
    const { signerMeta: _s, ...later } = answer(0)
    expect(read([{ ...later, delegationManager: ENV.DelegationManager }, answer(1)]).runway.periodAmount).toBe(USDC_AMOUNT)
  })

  const refusals: [string, () => unknown, string, RegExp][] = [
    ['not two permissions', () => [answer(0)], 'granted', /the runway then the gas/],
    ['the gas first', () => [answer(1), answer(0)], 'granted.0.permission.type', /erc20-token-periodic/],
    ['another delegate', () => [answer(0, { delegate: asset(0xbad) }), answer(1)], 'granted.0.delegate', /Golem's session account/],
    ['another delegator', () => [answer(0), answer(1, { delegator: asset(0xbad) })], 'granted.1.delegator', /owner's account/],
    ['another chain', () => [{ ...answer(0), chainId: '0x1' }, answer(1)], 'granted.0.chainId', /requested chain/],
    [
      'another delegation manager',
      () => [answer(0), { ...answer(1), signerMeta: { delegationManager: asset(0xdead) } }],
      'granted.1.signerMeta.delegationManager',
      /DelegationManager/,
    ],
    ['another token', () => [answer(0, { token: asset(0xbad) }), answer(1)], 'granted.0.token', /plan's token/],
    ['an amount of 0', () => [answer(0, { amount: 0n }), answer(1)], 'granted.0.periodAmount', /more than 0/],
    [
      'an amount raised above the request',
      () => [answer(0, { amount: USDC_AMOUNT + 1n }), answer(1)],
      'granted.0.periodAmount',
      /not raise/,
    ],
    [
      'a shorter period (hourly) that spends faster',
      () => [answer(0, { period: WALLET_PERIOD_PRESETS.hourly }), answer(1)],
      'granted.0.periodDuration',
      /spends faster/,
    ],
    [
      'a period longer than the plan’s life (yearly for a 30-day plan)',
      () => [answer(0), answer(1, { period: WALLET_PERIOD_PRESETS.yearly })],
      'granted.1.periodDuration',
      /plan's life/,
    ],
    [
      'an expiry before now plus the plan’s minimum',
      () => [answer(0, { expiry: NOW + 7 * DAY - 1 }), answer(1)],
      'granted.0.expiry',
      /minimum life/,
    ],
    ['no NonceEnforcer caveat', () => [answer(0, { nonce: null }), answer(1)], 'granted.0.nonce', /NonceEnforcer/],
    [
      'an enforcer the deployment does not know',
      () => [answer(0, { extra: [{ enforcer: asset(0xe4), terms: '0x', args: '0x' }] }), answer(1)],
      'granted.0.caveats.4',
      /must be one of/,
    ],
    [
      'a caveat no such permission holds',
      () => [answer(0, { extra: createCaveatBuilder(ENV).addCaveat('limitedCalls', { limit: 1 }).build() }), answer(1)],
      'granted.0.caveats.4',
      /not part of a erc20-token-periodic/,
    ],
    [
      'a context that decodes to nothing',
      () => [{ ...answer(0), context: '0x1234' as Hex }, answer(1)],
      'granted.0.context',
      /delegation chain/,
    ],
  ]
  it.each(refusals)('refuses %s, naming the field', (_what, granted, field, rule) => {
    const error = refusal(granted())
    expect(error.field).toBe(field)
    expect(error.rule).toMatch(rule)
    expect(error.message).toBe(`${field}: ${error.rule}`)
  })
})
