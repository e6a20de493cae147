import { inspect } from 'node:util'
import { recoverTransactionAddress } from 'viem'
import { afterEach, describe, expect, it } from 'vitest'
import type { BardoDeployment } from '../../core/deployment.ts'
import type { GolemProfile } from '../../core/lifecycle/profile.ts'
import { MemoryPaymentLedger, type PaymentPolicy } from '../../core/custody/paymentPolicy.ts'
import { PrivySignerError, SignerResolutionError } from '../../core/custody/errors.ts'
import { CHAIN_ID, DELEGATION_MANAGER, DAIMON_ORACLE, DREAM_ORACLE, tx, VITALITY_ORACLE } from '../../test/support/custody/fixtures.ts'
import { startPrivyStandIn, type PrivyStandInOptions } from '../../test/support/custody/privyStandIn.ts'
import { PrivySignerResolver, privySignersFromEnv } from './privySignerResolver.ts'
import { PRIVY_MISSING, privySettingsFromEnv } from './privySettings.ts'
import { SignersByKind } from './signersByKind.ts'

const APP = { appId: 'clbh2t7ou0000l508xyzl6n5k', appSecret: 'privy-app-secret-4f9c2d7e1a3b', walletId: 'id2tptkqrxd39qo9j423etij' }
const OWNER = '0x1111111111111111111111111111111111111111' as const
const TOKEN = '0x2222222222222222222222222222222222222222' as const
const deployment = {
  chainId: CHAIN_ID,
  environment: { DelegationManager: DELEGATION_MANAGER },
  vitalityOracle: VITALITY_ORACLE,
  dreamOracle: DREAM_ORACLE,
  daimonOracle: DAIMON_ORACLE,
} as unknown as BardoDeployment
const profile = (golemKey: string, walletId = APP.walletId) =>
  ({ golemKey, signer: { kind: 'privy', walletId }, runway: { chain: [{ delegator: OWNER }], token: TOKEN } }) as unknown as GolemProfile

const stops: Array<() => Promise<void>> = []
afterEach(async () => {
  while (stops.length) await stops.pop()!()
})
async function standIn(options: Partial<PrivyStandInOptions> = {}) {
  const s = await startPrivyStandIn({ ...APP, ...options })
  stops.push(s.close)
  return s
}
function resolverFor(url: string, appSecret = APP.appSecret) {
  const read = privySettingsFromEnv({ BARDO_PRIVY_APP_ID: APP.appId, BARDO_PRIVY_APP_SECRET: appSecret, BARDO_PRIVY_API_URL: url })
  return new PrivySignerResolver(deployment, read.settings!)
}

describe('PrivySignerResolver (over HTTP to a local Privy stand-in)', () => {
  it("resolves a Golem whose key is a Privy wallet into a GolemSigner under the Golem's policy, reading the wallet once", async () => {
    const server = await standIn()
    const resolver = resolverFor(server.url)
    const first = await resolver.resolve(profile(server.address))
    const second = await resolver.resolve(profile(server.address))
    expect(second.signer).toBe(first.signer)
    expect(first.signer.address).toBe(server.address)
    expect(first.signer.kind).toBe('privy')
    expect(first.signer.policy).toMatchObject({ owner: OWNER, returnTokens: [TOKEN] })
    const signed = await first.signer.signRedemptionTransaction(tx())
    expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(server.address)
    expect(server.requests.filter((r) => r.method === 'GET')).toHaveLength(1)
  })

  it('builds a signer that may pay for its caller alone', async () => {
    const server = await standIn()
    const resolver = resolverFor(server.url)
    const payments: PaymentPolicy = {
      asset: TOKEN,
      assetName: 'USD Coin',
      assetVersion: '2',
      payees: [OWNER],
      maxPerPayment: 1n,
      maxPerPeriod: 2n,
      periodSeconds: 86_400n,
      maxValiditySeconds: 900n,
    }
    const plain = await resolver.resolve(profile(server.address))
    const paying = await resolver.resolve(profile(server.address), { payments: { policy: payments, ledger: new MemoryPaymentLedger() } })
    expect(paying.signer).not.toBe(plain.signer)
    expect(paying.signer.policy.payments?.payees).toEqual([OWNER])
    expect(plain.signer.policy.payments).toBeUndefined()
    expect(server.requests.filter((r) => r.method === 'GET')).toHaveLength(1)
  })

  it('a refused app secret is a PrivySignerError without the secret, and is not cached: the next tick asks again', async () => {
    const server = await standIn({ misbehave: 'echo-secret-in-error' })
    const wrong = 'wrong-secret-0123456789abcdef'
    const resolver = resolverFor(server.url, wrong)
    const error = (await resolver.resolve(profile(server.address)).catch((e: unknown) => e)) as PrivySignerError
    expect(error).toBeInstanceOf(PrivySignerError)
    expect(error.message).toMatch(/^Privy wallet id2tptkqrxd39qo9j423etij: GET .* answered 401/)
    for (const shown of [error.message, JSON.stringify(error), inspect(error)]) expect(shown).not.toContain(wrong)
    await expect(resolver.resolve(profile(server.address))).rejects.toThrow(/answered 401/)
    expect(server.requests).toHaveLength(2)
    for (const shown of [JSON.stringify(resolver), inspect(resolver), String(resolver)]) expect(shown).not.toContain(wrong)
  })

  it("refuses a wallet that is not the Golem's key, and a profile of another kind", async () => {
    const server = await standIn()
    const resolver = resolverFor(server.url)
    await expect(resolver.resolve(profile('0x3333333333333333333333333333333333333333'))).rejects.toThrow(
      `signer: Privy wallet ${APP.walletId} is ${server.address}, not the Golem's key 0x3333333333333333333333333333333333333333`,
    )
    await expect(resolver.resolve({ signer: { kind: 'kms', keyId: 'k' } } as GolemProfile)).rejects.toThrow(
      'signer: this resolver holds Privy wallets only, the profile names kms',
    )
  })

  it('drops a wallet retired at death, even one it had cached', async () => {
    const server = await standIn()
    const resolver = resolverFor(server.url)
    await resolver.resolve(profile(server.address))
    await resolver.retire(profile(server.address))
    const refused = resolver.resolve(profile(server.address))
    await expect(refused).rejects.toBeInstanceOf(SignerResolutionError)
    await expect(refused).rejects.toThrow(/retired at death/)
  })
})

describe('privySignersFromEnv', () => {
  it('adds the privy kind to a SignersByKind when configured, and names the settings when not', async () => {
    const none = privySignersFromEnv(deployment, {})
    expect(none).toEqual({ resolvers: {}, missing: { privy: PRIVY_MISSING } })
    const signers = new SignersByKind({ ...none.resolvers }, none.missing)
    await expect(signers.resolve(profile(OWNER))).rejects.toThrow(
      'signer: this heartbeat holds no privy keys (set BARDO_PRIVY_APP_ID and BARDO_PRIVY_APP_SECRET to tick Golems whose key is a Privy wallet)',
    )
    const some = privySignersFromEnv(deployment, { BARDO_PRIVY_APP_ID: APP.appId, BARDO_PRIVY_APP_SECRET: APP.appSecret })
    expect(some.resolvers.privy).toBeInstanceOf(PrivySignerResolver)
    expect(() => privySignersFromEnv(deployment, { BARDO_PRIVY_APP_ID: APP.appId })).toThrow(/^BARDO_PRIVY_APP_SECRET: must be set/)
  })
})
