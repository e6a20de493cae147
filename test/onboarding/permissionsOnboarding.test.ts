// Onboarding an owner whose wallet account is itself a smart account (EIP-7702, as MetaMask upgrades its
// accounts), on anvil through the real API: the API drafts the Golem with the ERC-7715 request for its
// Session Account; the wallet grants it (here the local wallet that grants as MetaMask does, with the
// owner lowering the runway amount in the dialog); the API reads what was granted, has the Session
// Account re-delegate both grants to the Golem's key with Bardo's phase gate, registers the Golem, and
// the heartbeat redeems through [re-delegation, grant]. The owner's nonce increment from the wallet, not
// through Bardo, ends the Golem at the next heartbeat. Every refused grant names the field and the rule
// and writes nothing.
import { NonceEnforcer } from '@metamask/delegation-abis'
import { createWalletClient, encodeFunctionData, getAddress, http, pad, type Address, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import { golemStatus } from '../../cli/lifecycle.ts'
import type { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import { VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import { parseGolemProfile } from '../../core/lifecycle/profile.ts'
import { createLocalOwnerWallet, type LocalOwnerWallet, type PeriodicPermissionRequest } from '../../core/permissions/localOwnerWallet.ts'
import type { OwnerAccount } from '../../local/devnet.ts'
import { startHeartbeatEnv, type HeartbeatEnv } from '../heartbeat/harness.ts'
import { usdcBalance } from '../chain/harness.ts'
import { onboardingApi } from './harness.ts'
import { AlchemySigningKey, custodyContractsOfDeployment, custodyWebhookQuery } from '../../core/webhooks/index.ts'
import { alchemyDelivery } from '../support/webhooks/alchemyDelivery.ts'

const RUNWAY_ONLY = '---\nname: runway-only\nbudget: $20/day\nrunway_days: 5\n---\n\nHold USDC; live on the runway.\n'

let env: HeartbeatEnv
let invoker: LocalInvoker
let owner: OwnerAccount
let wallet: LocalOwnerWallet
let tickErrors: unknown[]
let post: ReturnType<typeof onboardingApi>['post']
let api: ReturnType<typeof onboardingApi>['api']
const signingKey = new AlchemySigningKey('whsec_bardo_onboarding_test_key')

type DraftBody = {
  golemId: string
  status: string
  account: Address
  golemKey: Address
  sessionAccount: Address
  periodAmount: string
  periodSeconds: number
  delegations: unknown[]
  request: PeriodicPermissionRequest[]
}

const draftFor = async (golemId: string, who: OwnerAccount = owner): Promise<DraftBody> => {
  const res = await post('/api/v1/onboarding', { golemId, owner: who.address, strategy: RUNWAY_ONLY, shape: 'permissions' })
  const body = (await res.json()) as DraftBody
  expect(res.status, JSON.stringify(body)).toBe(201)
  return body
}
const chainNow = async () => (await env.client.getBlock()).timestamp

/** The owner's grant in the wallet, with the runway amount the owner set in the dialog. */
async function grantInWallet(d: DraftBody, runwayAmount?: bigint, w: LocalOwnerWallet = wallet) {
  const requests = d.request.map((r) =>
    runwayAmount !== undefined && r.permission.type === 'erc20-token-periodic'
      ? { ...r, permission: { ...r.permission, data: { ...r.permission.data, periodAmount: `0x${runwayAmount.toString(16)}` as Hex } } }
      : r,
  )
  return w.requestExecutionPermissions(requests as PeriodicPermissionRequest[])
}

const walletOf = async (who: OwnerAccount): Promise<LocalOwnerWallet> => {
  const now = await chainNow()
  return createLocalOwnerWallet({
    smartAccount: who.smartAccount,
    environment: env.devnet.deployment.environment,
    chainId: env.devnet.chain.id,
    publicClient: env.devnet.publicClient,
    now: () => Number(now),
  })
}

/** The owner's own transaction (MetaMask's "All permissions" page sends the same): its NonceEnforcer nonce moves on. */
async function incrementNonce(who: OwnerAccount) {
  const client = createWalletClient({ account: who.signer, chain: env.devnet.chain, transport: http(env.devnet.rpcUrl) })
  const { environment } = env.devnet.deployment
  return env.client.waitForTransactionReceipt({
    hash: await client.sendTransaction({
      to: environment.caveatEnforcers.NonceEnforcer as Address,
      data: encodeFunctionData({ abi: NonceEnforcer, functionName: 'incrementNonce', args: [environment.DelegationManager] }),
    }),
  })
}

async function footprint(golemId: string, key: Address) {
  const [registered] = (await env.client.readContract({
    address: env.devnet.deployment.vitalityOracle,
    abi: VitalityOracleAbi,
    functionName: 'getPhase',
    args: [key],
  })) as readonly [boolean, number]
  return { golem: await env.store.getGolem(golemId), registered }
}

beforeAll(async () => {
  env = await startHeartbeatEnv()
  ;({ api, invoker, post, tickErrors } = onboardingApi(env, { signingKey }))
  owner = await env.devnet.createWalletOwner()
  wallet = await walletOf(owner)
}, 120_000)
afterAll(async () => env?.stop())

describe("an owner whose wallet account is the smart account onboards through the wallet's Advanced Permissions", () => {
  let d: DraftBody
  const lowered = 12_000_000n

  it('the draft asks for the runway and the gas to the Session Account in a period the wallet offers, and holds no delegation to sign', async () => {
    d = await draftFor('wallet-golem')
    expect(d.account).toBe(owner.address)
    expect(d.delegations).toEqual([])
    expect(d.periodSeconds).toBe(86_400)
    expect(d.request.map((r) => r.permission.type)).toEqual(['erc20-token-periodic', 'native-token-periodic'])
    for (const r of d.request) expect(r.permission.data.periodDuration).toBe(86_400)
    expect(d.sessionAccount).not.toBe(d.golemKey)
  })

  it('a grant Bardo cannot carry the Golem on is refused, naming the field and the rule, and writes nothing', async () => {
    const [runway, gas] = await grantInWallet(d)
    const cases: [string, unknown, string][] = [
      ['no gas grant', [runway], 'permissions'],
      ['the runway twice', [runway, runway], 'permissions.1.permission.type'],
      ['another chain', [{ ...runway, chainId: '0x1' }, gas], 'permissions.0.chainId'],
      ['a context that is not hex', [{ ...runway, context: 'granted' }, gas], 'permissions.0.context'],
      ['a grant to another account', [(await grantInWallet(await draftFor('other-golem')))[0], gas], 'permissions.0.delegate'],
    ]
    for (const [name, permissions, field] of cases) {
      const res = await post('/api/v1/onboarding/wallet-golem/grant', { permissions })
      const out = (await res.json()) as { code: string; details: { field: string } }
      expect([name, res.status, out.code, out.details.field]).toEqual([name, 422, 'GRANT_REFUSED', field])
      expect(await footprint('wallet-golem', d.golemKey)).toEqual({ golem: null, registered: false })
    }
  })

  it('a runway above what was asked is refused: the plan is the least the Golem needs', async () => {
    const above = await grantInWallet(d, BigInt(d.periodAmount) + 1n)
    const res = await post('/api/v1/onboarding/wallet-golem/grant', { permissions: above })
    expect(res.status).toBe(422)
    expect(await res.json()).toMatchObject({ code: 'GRANT_REFUSED', details: { field: 'permissions.0.periodAmount' } })
    expect(await footprint('wallet-golem', d.golemKey)).toEqual({ golem: null, registered: false })
  })

  it('takes what the wallet granted: the owner lowered the runway; the profile, the chain and the nonce are the grant', async () => {
    const permissions = await grantInWallet(d, lowered)
    const res = await post('/api/v1/onboarding/wallet-golem/grant', { permissions })
    const body = (await res.json()) as { golemKey: Address }
    expect(res.status, JSON.stringify(body)).toBe(201)
    const profile = parseGolemProfile((await env.store.getGolem('wallet-golem'))!.profile)
    expect(profile.runway.periodAmount).toBe(lowered)
    expect(profile.runway.periodDuration).toBe(86_400n)
    expect(profile.runway.chain).toHaveLength(2)
    expect(getAddress(profile.runway.chain[0]!.delegator)).toBe(d.sessionAccount)
    expect(getAddress(profile.runway.chain[0]!.delegate)).toBe(d.golemKey)
    expect(getAddress(profile.runway.chain[1]!.delegator)).toBe(owner.address)
    expect(profile.gas?.chain).toHaveLength(2)
    expect(profile.sessionAccount?.address).toBe(d.sessionAccount)
    expect(profile.runway.nonce).toMatchObject({ delegator: owner.address, value: 0n })
    expect((await footprint('wallet-golem', d.golemKey)).registered).toBe(true)
  })

  it('the heartbeat redeems the runway and the gas through [re-delegation, grant] from the owner’s account', async () => {
    const before = await usdcBalance(env.devnet, owner.address)
    await runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker })
    expect(tickErrors).toEqual([])
    const result = invoker.results.find((r) => r.golemId === 'wallet-golem')!
    expect(result.redemption?.status).toBe('confirmed')
    expect(result.redemption!.amount).toBeLessThanOrEqual(lowered)
    // The gas re-delegation pays the key from the owner's native-token grant.
    expect(result.gas).toMatchObject({ status: 'confirmed' })
    const after = await usdcBalance(env.devnet, owner.address)
    expect(before - after).toBe(result.redemption!.amount)
  })

  it("the owner's nonce increment in the wallet (not through Bardo) revokes: the next heartbeat runs the death protocol", async () => {
    const receipt = await incrementNonce(owner)
    // Permission health says so at once, before any tick, dated by the owner's transaction.
    const res = await api.request('/api/v1/golems/wallet-golem/permission-health')
    expect(res.status).toBe(200)
    const revokedAt = String((await env.client.getBlock({ blockNumber: receipt.blockNumber })).timestamp)
    expect(await res.json()).toMatchObject({
      health: 'revoked',
      revocation: { kind: 'RevokedByOwner', revokedAt, txHash: receipt.transactionHash },
    })
    // So does `bardo status`, from the tick's own read.
    const status = await golemStatus(env.store, { publicClient: env.devnet.publicClient } as never, env.devnet.deployment, 'wallet-golem')
    expect(status.chain.grantDisabled).toBe(true)
    invoker.results.length = 0
    // The Golem's next tick: the heartbeat reads the owner's nonce and finds the grants void.
    await env.devnet.increaseTime(120)
    await runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker })
    const result = invoker.results.find((r) => r.golemId === 'wallet-golem')!
    expect(['died', 'dead']).toContain(result.outcome)
    expect((await env.store.getGolem('wallet-golem'))?.status).toBe('dead')
    expect((await footprint('wallet-golem', d.golemKey)).registered).toBe(false)
  })
})

describe("with the Alchemy webhook configured, the owner's nonce increment ends its Golem at once", () => {
  it('the delivery of the increment wakes the Golem whose grant carries that nonce; its tick runs the death protocol, no beat or time needed', async () => {
    const other = await env.devnet.createWalletOwner()
    const d = await draftFor('hooked-golem', other)
    const granted = await post('/api/v1/onboarding/hooked-golem/grant', {
      permissions: await grantInWallet(d, undefined, await walletOf(other)),
    })
    expect(granted.status).toBe(201)
    const receipt = await incrementNonce(other)
    // What Alchemy sends for that block: the query `bardo deploy` registers, applied to the block's logs.
    const variable = 'bardo_owners_onboarding'
    const body = alchemyDelivery({
      id: 'whevt_nonce',
      query: custodyWebhookQuery(custodyContractsOfDeployment(env.devnet.deployment), variable),
      blockNumber: receipt.blockNumber,
      blockHash: receipt.blockHash,
      logs: receipt.logs,
      variable: (name) => (name === variable ? [pad(other.address.toLowerCase() as Hex, { size: 32 })] : []),
    })
    const res = await api.request('/api/v1/webhooks/alchemy', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-alchemy-signature': signingKey.sign(body) },
      body,
    })
    const out = (await res.json()) as { woken: { golemId: string; reasons: string[] }[] }
    expect(res.status, JSON.stringify(out)).toBe(200)
    expect(out.woken).toEqual([{ golemId: 'hooked-golem', reasons: ['NonceIncremented'] }])
    expect((await env.store.getGolem('hooked-golem'))?.status).toBe('dead')
    expect((await footprint('hooked-golem', d.golemKey)).registered).toBe(false)
  })
})
