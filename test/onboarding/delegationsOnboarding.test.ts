// Onboarding an owner with a separate MetaMask smart account, on anvil through the real API: the API
// drafts the Golem (plan in words, the delegations to sign, the smart account's deployment when it is not
// deployed yet); the owner's wallet signs each delegation over EIP-712 as MetaMask does (its rules
// refuse nothing here: the delegator is the smart account, not the wallet's account); the API checks
// every signature, deploys the account, registers the key and records the Golem; the next heartbeat
// redeems its runway. Every refused request names the field and the rule and writes nothing.
import { parseEther, parseUnits, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import type { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import { loadActionGrant } from '../../app/actions/actionGrantStore.ts'
import { VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import { parseGolemProfile } from '../../core/lifecycle/profile.ts'
import { startHeartbeatEnv, type HeartbeatEnv } from '../heartbeat/harness.ts'
import { usdcBalance } from '../chain/harness.ts'
import { onboardingApi } from './harness.ts'
import { walletRequest } from '../web/testWallet.ts'

const RUNWAY_ONLY = '---\nname: runway-only\nbudget: $20/day\nrunway_days: 5\n---\n\nHold USDC; live on the runway.\n'
const SWAPPER =
  '---\nname: swapper\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 5\n---\n\nSwap a little USDC into WETH every day.\n'

let env: HeartbeatEnv
let api: ReturnType<typeof onboardingApi>['api']
let invoker: LocalInvoker
let tickErrors: unknown[]
let post: ReturnType<typeof onboardingApi>['post']

type DraftBody = {
  golemId: string
  status: string
  account: Address
  golemKey: Address
  plan: { lines: string[]; capabilities: string[] }
  delegations: { role: string; label: string; hash: Hex; typedData: Record<string, unknown> }[]
  deploy?: { factory: Address; factoryData: Hex }
}

const draft = async (body: Record<string, unknown>) => post('/api/v1/onboarding', body)

/** The wallet signs each drafted delegation as the page asks it: eth_signTypedData_v4 with the JSON payload. */
async function signAll(wallet: PrivateKeyAccount, d: DraftBody) {
  const signatures = []
  for (const x of d.delegations) {
    const types = { EIP712Domain: domainFields(x.typedData.domain as Record<string, unknown>), ...(x.typedData.types as object) }
    const signature = (await walletRequest(wallet, env.devnet.chain.id, 'eth_signTypedData_v4', [
      wallet.address,
      JSON.stringify({ ...x.typedData, types }),
    ])) as Hex
    signatures.push({ hash: x.hash, signature })
  }
  return signatures
}
const domainFields = (domain: Record<string, unknown>) =>
  [
    ['name', 'string'],
    ['version', 'string'],
    ['chainId', 'uint256'],
    ['verifyingContract', 'address'],
  ]
    .filter(([k]) => domain[k!] !== undefined)
    .map(([name, type]) => ({ name: name!, type: type! }))

/** Everything a refused request could have written. */
async function footprint(golemId: string, key?: Address) {
  return {
    golem: await env.store.getGolem(golemId),
    drafts: (await env.store.readLog({ log: `golemDraft:${golemId}` })).length,
    registered: key
      ? (
          (await env.client.readContract({
            address: env.devnet.deployment.vitalityOracle,
            abi: VitalityOracleAbi,
            functionName: 'getPhase',
            args: [key],
          })) as readonly [boolean, number]
        )[0]
      : false,
  }
}

beforeAll(async () => {
  env = await startHeartbeatEnv()
  ;({ api, invoker, post, tickErrors } = onboardingApi(env))
}, 120_000)
afterAll(async () => env?.stop())

describe('an owner with a separate smart account onboards a Golem from the wallet', () => {
  const wallet = privateKeyToAccount(generatePrivateKey())
  let d: DraftBody

  it('the draft: the plan in words, the runway, gas and action delegations from the counterfactual smart account, and its deployment', async () => {
    const res = await draft({ golemId: 'swapper', owner: wallet.address, strategy: SWAPPER, shape: 'delegations' })
    expect(res.status).toBe(201)
    d = (await res.json()) as DraftBody
    expect(d.status).toBe('waiting')
    expect(d.plan.capabilities).toEqual(['Swap'])
    expect(d.plan.lines.join('\n')).toMatch(/runway\s+up to 20 USDC per day/)
    const roles = d.delegations.map((x) => x.role)
    expect(roles.slice(0, 2)).toEqual(['runway', 'gas'])
    // The swap's calls and its approvals: each is its own delegation.
    expect(roles.slice(2).length).toBeGreaterThanOrEqual(2)
    expect(new Set(roles.slice(2))).toEqual(new Set(['actions']))
    expect(d.deploy).toBeDefined()
    for (const x of d.delegations) expect((x.typedData.message as { delegator: string }).delegator).toBe(d.account)
    // The same owner asking again (a reloaded page) gets the same draft.
    const again = (await (
      await draft({ golemId: 'swapper', owner: wallet.address, strategy: SWAPPER, shape: 'delegations' })
    ).json()) as DraftBody
    expect(again.golemKey).toBe(d.golemKey)
    // The smart account holds the owner's USDC, as it would before a first Golem.
    await env.devnet.mintUsdc(d.account, parseUnits('1000', 6))
  })

  it('MetaMask refuses a Delegation from its own account; the smart account is not its own', async () => {
    const x = d.delegations[0]!
    const own = { ...x.typedData, message: { ...(x.typedData.message as object), delegator: wallet.address } }
    await expect(walletRequest(wallet, env.devnet.chain.id, 'eth_signTypedData_v4', [wallet.address, JSON.stringify(own)])).rejects.toThrow(
      'External signature requests cannot sign delegations for internal accounts.',
    )
  })

  it('a grant missing a signature, signed by someone else, or naming a foreign hash is refused and writes nothing', async () => {
    const signatures = await signAll(wallet, d)
    const forged = await signAll(privateKeyToAccount(generatePrivateKey()), d)
    const cases: [unknown, number, string, string][] = [
      [{ signatures: signatures.slice(1) }, 422, 'GRANT_REFUSED', 'signatures'],
      [
        { signatures: signatures.map((s, i) => (i === 2 ? { ...s, signature: forged[2]!.signature } : s)) },
        422,
        'GRANT_REFUSED',
        'signatures[2].signature',
      ],
      [
        { signatures: [...signatures, { hash: `0x${'ab'.repeat(32)}`, signature: signatures[0]!.signature }] },
        422,
        'GRANT_REFUSED',
        `signatures[${signatures.length}].hash`,
      ],
      [{ signatures: [{ hash: 'nope', signature: '0x' }] }, 400, 'VALIDATION_FAILED', 'signatures'],
      [{ permissions: [] }, 400, 'VALIDATION_FAILED', 'permissions'],
    ]
    const code = async () => env.client.getCode({ address: d.account })
    for (const [body, status, errorCode, field] of cases) {
      const res = await post('/api/v1/onboarding/swapper/grant', body)
      const out = (await res.json()) as { code: string; message: string; details: { field?: string } }
      expect(res.status, JSON.stringify(out)).toBe(status)
      expect(out.code).toBe(errorCode)
      expect(`${out.details.field ?? ''} ${out.message}`).toContain(field)
      expect(await footprint('swapper', d.golemKey)).toEqual({ golem: null, drafts: 1, registered: false })
      expect(await code()).toBeUndefined()
    }
  })

  it('the whole grant: the account is deployed, the key registered and given its first gas, the Golem recorded with its action grant', async () => {
    const res = await post('/api/v1/onboarding/swapper/grant', { signatures: await signAll(wallet, d) })
    const body = (await res.json()) as { golemKey: string; txHashes: Hex[]; account: string }
    expect(res.status, JSON.stringify(body)).toBe(201)
    expect(body.txHashes).toHaveLength(3)
    expect(await env.client.getCode({ address: d.account })).toMatch(/^0x.+/)
    const record = (await env.store.getGolem('swapper'))!
    expect(record.owner.toLowerCase()).toBe(d.account.toLowerCase())
    const profile = parseGolemProfile(record.profile)
    expect(profile.golemKey).toBe(d.golemKey)
    expect(profile.gas).toBeDefined()
    expect((await loadActionGrant(env.store, 'swapper'))?.delegations).toHaveLength(d.delegations.length - 2)
    expect(await env.client.getBalance({ address: d.golemKey })).toBe(parseEther('0.001'))
    expect((await footprint('swapper', d.golemKey)).registered).toBe(true)
    expect(((await (await api.request('/api/v1/onboarding/swapper')).json()) as DraftBody).status).toBe('registered')
    // A second grant for the same draft registers nothing more.
    const again = await post('/api/v1/onboarding/swapper/grant', { signatures: await signAll(wallet, d) })
    expect(again.status).toBe(409)
    expect(await again.json()).toMatchObject({ code: 'GOLEM_EXISTS' })
  })

  it('the next heartbeat ticks it and redeems its runway from the smart account (which holds no ETH yet: the gas top-up is refused, the tick goes on)', async () => {
    const before = await usdcBalance(env.devnet, d.account)
    await runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker })
    expect(tickErrors).toEqual([])
    const result = invoker.results.find((r) => r.golemId === 'swapper')!
    expect(result.gas).toMatchObject({ status: 'refused', reason: 'execution reverted without a reason' })
    expect(result.redemption?.status).toBe('confirmed')
    const after = await usdcBalance(env.devnet, d.account)
    expect(before - after).toBe(result.redemption!.amount)
  })
})

describe('a draft request that onboarding refuses names the field and the rule and writes nothing', () => {
  const owner = privateKeyToAccount(generatePrivateKey()).address
  const cases: [string, Record<string, unknown>, number, string, string][] = [
    ['an id with capitals', { golemId: 'Big', owner, strategy: RUNWAY_ONLY, shape: 'delegations' }, 400, 'VALIDATION_FAILED', 'golemId'],
    [
      'an owner that is no address',
      { golemId: 'a1', owner: '0x12', strategy: RUNWAY_ONLY, shape: 'delegations' },
      400,
      'VALIDATION_FAILED',
      'owner',
    ],
    ['an unknown shape', { golemId: 'a2', owner, strategy: RUNWAY_ONLY, shape: 'custody' }, 400, 'VALIDATION_FAILED', 'shape'],
    ['an empty strategy', { golemId: 'a3', owner, strategy: '', shape: 'delegations' }, 400, 'VALIDATION_FAILED', 'strategy'],
    [
      'a strategy with an unknown capability',
      { golemId: 'a4', owner, strategy: '---\ncapabilities: [teleport]\n---\nGo.\n', shape: 'delegations' },
      422,
      'DRAFT_REFUSED',
      'strategy.',
    ],
    [
      'a strategy over the guardrail without the owner override',
      { golemId: 'a5', owner, strategy: '---\nbudget: $500/day\nrunway_days: 5\n---\nSpend.\n', shape: 'delegations' },
      422,
      'DRAFT_REFUSED',
      'strategy.',
    ],
    [
      'a plan with actions for the wallet’s own account (Advanced Permissions carry token allowances only)',
      { golemId: 'a6', owner, strategy: SWAPPER, shape: 'permissions' },
      422,
      'DRAFT_REFUSED',
      'strategy',
    ],
    [
      'the id of a Golem that exists',
      { golemId: 'swapper', owner, strategy: RUNWAY_ONLY, shape: 'delegations' },
      409,
      'GOLEM_EXISTS',
      'golemId',
    ],
  ]
  it.each(cases)('%s', async (_name, body, status, code, field) => {
    const res = await draft(body)
    const out = (await res.json()) as { code: string; message: string; details: { field?: string; issues?: { path: string }[] } }
    expect(res.status, JSON.stringify(out)).toBe(status)
    expect(out.code).toBe(code)
    expect(`${out.details.field ?? ''} ${out.message}`).toContain(field)
    if (body.golemId !== 'swapper') expect(await footprint(String(body.golemId))).toEqual({ golem: null, drafts: 0, registered: false })
  })

  it('a grant for a Golem with no draft is refused', async () => {
    const res = await post('/api/v1/onboarding/nobody/grant', { signatures: [{ hash: `0x${'00'.repeat(32)}`, signature: '0x00' }] })
    expect(res.status).toBe(404)
    expect(await res.json()).toMatchObject({ code: 'DRAFT_NOT_FOUND', details: { field: 'golemId' } })
  })

  it('a grant after the draft lapsed is refused; a new draft may then be asked for', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey())
    const d = (await (
      await draft({ golemId: 'late', owner: wallet.address, strategy: RUNWAY_ONLY, shape: 'delegations' })
    ).json()) as DraftBody
    const signatures = await signAll(wallet, d)
    await env.devnet.increaseTime(3_601)
    const res = await post('/api/v1/onboarding/late/grant', { signatures })
    expect(res.status).toBe(410)
    expect(await res.json()).toMatchObject({ code: 'DRAFT_EXPIRED', details: { field: 'golemId' } })
    expect(await footprint('late', d.golemKey)).toEqual({ golem: null, drafts: 1, registered: false })
    const fresh = (await (
      await draft({ golemId: 'late', owner: wallet.address, strategy: RUNWAY_ONLY, shape: 'delegations' })
    ).json()) as DraftBody
    expect(fresh.status).toBe('waiting')
    expect(fresh.golemKey).not.toBe(d.golemKey)
  })
})
