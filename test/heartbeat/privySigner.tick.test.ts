// Embedded custody on the real tick: a Golem whose key is a Privy server wallet, served over HTTP by a
// local stand-in that speaks Privy's wallet API and holds the key. The heartbeat resolves it from the
// profile's `{ kind: 'privy', walletId }` through the Privy settings (BARDO_PRIVY_*), and its runway is
// redeemed on anvil through the DelegationManager by a transaction the wallet signed. A stand-in that
// refuses the app's credentials (401) fails the tick, naming Privy and never the secret, and nothing is
// redeemed.
import { readFileSync } from 'node:fs'
import { inspect } from 'node:util'
import { isAddressEqual, type Address } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runTick } from '../../app/tick/runTick.ts'
import type { TickResult } from '../../app/tick/types.ts'
import { privySignersFromEnv } from '../../adapters/signers/privySignerResolver.ts'
import { SignersByKind } from '../../adapters/signers/signersByKind.ts'
import { parseGolemProfile } from '../../core/lifecycle/profile.ts'
import { provisionGolemAt } from '../../local/provision.ts'
import { startPrivyStandIn } from '../support/custody/privyStandIn.ts'
import { DAY, passStaggerOffsets, redemptionsBy, startHeartbeatEnv, usdcBalance, type HeartbeatEnv } from './harness.ts'

const APP_ID = 'clbh2t7ou0000l508xyzl6n5k'
const APP_SECRET = 'privy-app-secret-4f9c2d7e1a3b'
const WRONG_SECRET = 'privy-wrong-secret-9e8d7c6b5a4f'
const STRATEGY = readFileSync(new URL('../../examples/STRATEGY.md', import.meta.url), 'utf8')

let env: HeartbeatEnv
let wallet: Awaited<ReturnType<typeof startPrivyStandIn>>
let refusing: Awaited<ReturnType<typeof startPrivyStandIn>>
let signed: TickResult
let refused: unknown
let dm: Address

/** The heartbeat's signers with the Privy app's settings from the environment, as the runner builds them. */
function signersFor(apiUrl: string, appSecret: string): SignersByKind {
  const privy = privySignersFromEnv(env.devnet.deployment, {
    BARDO_PRIVY_APP_ID: APP_ID,
    BARDO_PRIVY_APP_SECRET: appSecret,
    BARDO_PRIVY_API_URL: apiUrl,
  })
  return new SignersByKind({ memory: env.signers, ...privy.resolvers }, privy.missing)
}

async function provisionAt(golemId: string, address: Address, walletId: string) {
  return provisionGolemAt({
    clients: env.devnet,
    deployment: env.devnet.deployment,
    store: env.store,
    owner: await env.devnet.createOwner(),
    golemId,
    strategy: STRATEGY,
    key: { address, signer: { kind: 'privy', walletId } },
  })
}

beforeAll(async () => {
  env = await startHeartbeatEnv()
  dm = env.devnet.deployment.environment.DelegationManager
  wallet = await startPrivyStandIn({ appId: APP_ID, appSecret: APP_SECRET, walletId: 'privy-wallet-signs' })
  // Its app secret is not the one the heartbeat sends, and it echoes what it was sent into its error.
  refusing = await startPrivyStandIn({
    appId: APP_ID,
    appSecret: APP_SECRET,
    walletId: 'privy-wallet-refuses',
    misbehave: 'echo-secret-in-error',
  })
  await provisionAt('privy', wallet.address, 'privy-wallet-signs')
  await provisionAt('privy-refused', refusing.address, 'privy-wallet-refuses')
  await passStaggerOffsets(env.devnet, ['privy', 'privy-refused'])
  await env.devnet.increaseTime(DAY)
  signed = await runTick(env.deps(undefined, { signers: signersFor(wallet.url, APP_SECRET) }), { golemId: 'privy' })
  refused = await runTick(env.deps(undefined, { signers: signersFor(refusing.url, WRONG_SECRET) }), { golemId: 'privy-refused' }).then(
    (result) => result,
    (error: unknown) => error,
  )
}, 180_000)
afterAll(async () => {
  await Promise.allSettled([wallet?.close(), refusing?.close()])
  await env?.stop()
})

describe('a Golem whose key is a Privy wallet', () => {
  it('is stored with the wallet address as its key and only the wallet id as its signer', async () => {
    const record = await env.store.getGolem('privy')
    const profile = parseGolemProfile(record!.profile)
    expect(profile.golemKey).toBe(wallet.address)
    expect(profile.signer).toEqual({ kind: 'privy', walletId: 'privy-wallet-signs' })
    expect(inspect(record, { depth: null })).not.toContain(APP_SECRET)
  })

  it('has its runway redeemed on chain through the DelegationManager, by a transaction the Privy wallet signed over HTTP', async () => {
    expect(signed.outcome).toBe('ticked')
    expect(signed.redemption?.status).toBe('confirmed')
    const txHash = signed.redemption!.txHash as `0x${string}`
    const tx = await env.client.getTransaction({ hash: txHash })
    expect(isAddressEqual(tx.from, wallet.address)).toBe(true)
    expect(isAddressEqual(tx.to!, dm)).toBe(true)
    expect((await env.client.getTransactionReceipt({ hash: txHash })).status).toBe('success')
    const onChain = await redemptionsBy(env.client, dm, wallet.address)
    expect(onChain.map((r) => r.txHash)).toContain(txHash)
    expect(await usdcBalance(env.client, env.devnet.deployment.assets.usdc, wallet.address)).toBe(signed.redemption!.amount)
    // Privy's API on the wire: the wallet read once, then one eth_signTransaction per transaction the key
    // sent, every call with the app's credentials.
    const rpc = wallet.requests.filter((r) => r.path === '/v1/wallets/privy-wallet-signs/rpc')
    expect(wallet.requests[0]).toMatchObject({ method: 'GET', path: '/v1/wallets/privy-wallet-signs', authOk: true })
    expect(wallet.requests.every((r) => r.authOk && r.appIdHeader === APP_ID)).toBe(true)
    expect(rpc.length).toBe(await env.client.getTransactionCount({ address: wallet.address }))
    expect(rpc.map((r) => (r.body as { method: string }).method)).toEqual(rpc.map(() => 'eth_signTransaction'))
  })

  it('is refused when Privy refuses the app: the tick fails naming Privy, without the secret, and nothing is redeemed', async () => {
    expect(refused).toBeInstanceOf(Error)
    const error = refused as Error
    expect(error.message).toMatch(/Privy wallet privy-wallet-refuses: GET \/v1\/wallets\/privy-wallet-refuses answered 401/)
    for (const shown of [error.message, JSON.stringify(error), inspect(error), String(error.stack)]) {
      expect(shown).not.toContain(WRONG_SECRET)
      expect(shown).not.toContain(Buffer.from(`${APP_ID}:${WRONG_SECRET}`).toString('base64'))
    }
    expect(refusing.requests.length).toBeGreaterThan(0)
    expect(refusing.requests.every((r) => !r.authOk)).toBe(true)
    expect(await redemptionsBy(env.client, dm, refusing.address)).toEqual([])
    expect(await env.client.getTransactionCount({ address: refusing.address })).toBe(0)
    expect(await usdcBalance(env.client, env.devnet.deployment.assets.usdc, refusing.address)).toBe(0n)
    const events = await env.store.listEvents({ golemId: 'privy-refused', limit: 100, cursor: null, order: 'asc' })
    expect(inspect(events, { depth: null })).not.toContain(WRONG_SECRET)
  })
})
