import { recoverTransactionAddress, recoverTypedDataAddress } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterEach, describe, expect, it } from 'vitest'
import { createGolemSigner } from './createGolemSigner.ts'
import { PrivySignerError } from '../../core/custody/errors.ts'
import { GolemSigner } from '../../core/custody/golemSigner.ts'
import { createPrivySigner, toPrivyTransaction } from './privySigner.ts'
import { policy, subDelegation, tx, typed } from '../../test/support/custody/fixtures.ts'
import { startPrivyStandIn, type PrivyStandInOptions } from '../../test/support/custody/privyStandIn.ts'

const APP = { appId: 'clbh2t7ou0000l508xyzl6n5k', appSecret: 'privy-app-secret-4f9c2d7e1a3b', walletId: 'id2tptkqrxd39qo9j423etij' }
const stops: Array<() => Promise<void>> = []
afterEach(async () => {
  while (stops.length) await stops.pop()!()
})
async function standIn(options: Partial<PrivyStandInOptions> = {}) {
  const s = await startPrivyStandIn({ ...APP, ...options })
  stops.push(s.close)
  return s
}

describe('Privy server-wallet adapter (over real HTTP to a local stand-in)', () => {
  it('reads the wallet address and signs a redemption and a sub-delegation that verify', async () => {
    const privateKey = generatePrivateKey()
    const server = await standIn({ privateKey })
    const raw = await createPrivySigner({ ...APP, baseUrl: server.url })
    expect(raw.address).toBe(privateKeyToAccount(privateKey).address)
    const golem = new GolemSigner({ signer: raw, policy: policy() })

    const signed = await golem.signRedemptionTransaction(tx())
    expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(server.address)

    const d = await golem.signDelegation(subDelegation(server.address))
    const td = golem.delegationTypedData(subDelegation(server.address))
    expect(await recoverTypedDataAddress({ ...typed(td), signature: d.signature })).toBe(server.address)

    // The protocol on the wire: basic auth + privy-app-id on every call, the documented RPC bodies.
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /v1/wallets/${APP.walletId}`,
      `POST /v1/wallets/${APP.walletId}/rpc`,
      `POST /v1/wallets/${APP.walletId}/rpc`,
    ])
    expect(server.requests.every((r) => r.authOk && r.appIdHeader === APP.appId)).toBe(true)
    expect(server.requests[1]!.body).toMatchObject({
      method: 'eth_signTransaction',
      params: { transaction: { type: 2, chain_id: 31337, nonce: 7, gas_limit: '0x493e0', to: tx().to } },
    })
    expect(server.requests[2]!.body).toMatchObject({
      method: 'eth_signTypedData_v4',
      params: { typed_data: { primary_type: 'Delegation' } },
    })
  })

  it('signs a legacy transaction too', async () => {
    const server = await standIn()
    const golem = new GolemSigner({ signer: await createPrivySigner({ ...APP, baseUrl: server.url }), policy: policy() })
    const legacy = tx({ type: 'legacy', gasPrice: 1_000_000_000n, maxFeePerGas: undefined, maxPriorityFeePerGas: undefined } as never)
    const signed = await golem.signRedemptionTransaction(legacy)
    expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(server.address)
  })

  it('a wrong app secret is a PrivySignerError that never contains the secret', async () => {
    const server = await standIn({ misbehave: 'echo-secret-in-error' })
    const wrongSecret = 'wrong-secret-0123456789'
    const err = await createPrivySigner({ ...APP, appSecret: wrongSecret, baseUrl: server.url }).catch((e) => e)
    expect(err).toBeInstanceOf(PrivySignerError)
    expect(err.message).toMatch(/answered 401/)
    expect(err).toMatchObject({ status: 401, walletId: APP.walletId, code: 'PRIVY_SIGNER' })
    // The stand-in echoes the secret it was sent and its real one; neither may surface.
    expect(err.message).not.toContain(wrongSecret)
    expect(JSON.stringify(err)).not.toContain(wrongSecret)
    expect(err.message).not.toContain(Buffer.from(`${APP.appId}:${wrongSecret}`).toString('base64'))
  })

  it('an unknown wallet is a 404 PrivySignerError', async () => {
    const server = await standIn()
    await expect(createPrivySigner({ ...APP, walletId: 'nope', baseUrl: server.url })).rejects.toThrow(/answered 404: Wallet not found/)
  })

  it('refuses a signed transaction that differs from the request', async () => {
    const server = await standIn({ misbehave: 'alter-transaction' })
    const raw = await createPrivySigner({ ...APP, baseUrl: server.url })
    await expect(raw.signTransaction(tx())).rejects.toThrow(/differs from the request in to/)
  })

  it('refuses signatures by a key other than the wallet', async () => {
    const server = await standIn({ misbehave: 'wrong-key' })
    const raw = await createPrivySigner({ ...APP, baseUrl: server.url })
    await expect(raw.signTransaction(tx())).rejects.toThrow(/recovers to .* not the wallet/)
    const server2 = await standIn({ misbehave: 'wrong-typed-data-key' })
    const golem = new GolemSigner({ signer: await createPrivySigner({ ...APP, baseUrl: server2.url }), policy: policy() })
    await expect(golem.signDelegation(subDelegation(server2.address))).rejects.toThrow(PrivySignerError)
  })

  it('a network failure is a PrivySignerError', async () => {
    const server = await standIn()
    const url = server.url
    await server.close()
    stops.pop()
    await expect(createPrivySigner({ ...APP, baseUrl: url })).rejects.toThrow(PrivySignerError)
  })

  it('maps viem transactions to Privy fields', () => {
    expect(toPrivyTransaction('w', tx({ value: 0n }))).toEqual({
      type: 2,
      to: tx().to,
      data: tx().data,
      value: '0x0',
      chain_id: 31337,
      nonce: 7,
      gas_limit: '0x493e0',
      max_fee_per_gas: '0x77359400',
      max_priority_fee_per_gas: '0xf4240',
    })
    expect(() => toPrivyTransaction('w', tx({ accessList: [{ address: tx().to!, storageKeys: [] }] } as never))).toThrow(/access lists/)
  })

  it('Embedded custody mode builds a GolemSigner on the Privy adapter', async () => {
    const server = await standIn()
    const { signer } = await createGolemSigner(
      { mode: 'Embedded', privyAppId: APP.appId, serverWalletId: APP.walletId },
      { policy: policy(), privy: { appSecret: APP.appSecret, baseUrl: server.url } },
    )
    expect(signer.kind).toBe('privy')
    expect(signer.address).toBe(server.address)
    await expect(signer.account.signMessage({ message: 'hi' })).rejects.toThrow(/no-arbitrary-signing/)
    expect(JSON.stringify(signer)).not.toContain(APP.appSecret)
  })
})
