import { getAddress } from 'viem'
import { describe, expect, it } from 'vitest'
import { getDefaultAsset } from '@x402/evm'
import { resolvePaymentTerms } from '../paymentTerms.ts'
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm'
import { mockClient } from 'aws-sdk-client-mock'
import { apiUrlFromEnv } from '../../functions/tick/apiUrl.ts'
import { selfExtensionConfig, selfExtensionFor } from './selfExtensionConfig.ts'

const ASSET = '0x000000000000000000000000000000000000c0de'
const PAYEE = '0x0000000000000000000000000000000000000f1a'

describe('the self-extension configuration', () => {
  const terms = async () => ({ asset: getAddress(ASSET), payTo: getAddress(PAYEE) })

  it('is absent without an API URL, and then the payment terms are never read', async () => {
    let read = false
    expect(
      await selfExtensionFor(undefined, 500_000n, async () => {
        read = true
        return terms()
      }),
    ).toBeUndefined()
    expect(read).toBe(false)
    expect(selfExtensionConfig({ apiUrl: undefined, asset: ASSET, payee: PAYEE, runtimeCostPerHour: 1n })).toBeUndefined()
  })

  it("pays a deployed tick's API in the API's own terms; bounds are a day of runtime per payment and two per day", async () => {
    const config = await selfExtensionFor('https://api.example', 500_000n, async () => ({
      ...(await terms()),
      tokenName: 'USDC',
      tokenVersion: '2',
    }))
    expect(config).toMatchObject({
      apiUrl: 'https://api.example',
      runtimeCostPerHour: 500_000n,
      payments: {
        asset: getAddress(ASSET),
        payees: [getAddress(PAYEE)],
        assetName: 'USDC',
        assetVersion: '2',
        maxPerPayment: 12_000_000n,
        maxPerPeriod: 24_000_000n,
        periodSeconds: 86_400n,
      },
    })
  })

  it('refuses an API URL that is not http(s), naming the variable', async () => {
    await expect(selfExtensionFor('ftp://api.example', 1n, terms)).rejects.toThrow('BARDO_API_URL: must be an http(s) URL')
    await expect(selfExtensionFor('not a url', 1n, terms)).rejects.toThrow('BARDO_API_URL')
  })
})

describe('the payment terms a deployment resolves', () => {
  const operator = async () => getAddress(PAYEE)

  it("default to the chain's USDC as @x402/evm knows it and the operator as payTo", async () => {
    const t = await resolvePaymentTerms({}, 84532, operator, { knownAsset: getDefaultAsset })
    expect(t.payTo).toBe(getAddress(PAYEE))
    expect(t.asset).toBe(getAddress('0x036CbD53842c5426634e7929541eC2318f3dCF7e'))
    expect(t).toMatchObject({ tokenName: 'USDC', tokenVersion: '2' })
  })

  it('take BARDO_USDC and BARDO_PAY_TO over the defaults, and the deployment asset where the chain has no known USDC', async () => {
    const t = await resolvePaymentTerms({ BARDO_USDC: ASSET, BARDO_PAY_TO: ASSET }, 84532, operator, { knownAsset: getDefaultAsset })
    expect(t).toEqual({ asset: getAddress(ASSET), payTo: getAddress(ASSET) })
    expect((await resolvePaymentTerms({}, 31337, operator, { usdcFallback: getAddress(ASSET) })).asset).toBe(getAddress(ASSET))
  })

  it('refuse a bad address or a chain with no USDC, naming the variable', async () => {
    await expect(resolvePaymentTerms({ BARDO_PAY_TO: '0x12' }, 84532, operator, { knownAsset: getDefaultAsset })).rejects.toThrow(
      'BARDO_PAY_TO: must be a 20-byte hex address',
    )
    await expect(resolvePaymentTerms({}, 31337, operator, { knownAsset: getDefaultAsset })).rejects.toThrow(
      'BARDO_USDC: must be set: chain 31337 has no known USDC',
    )
    // Without the table (the tick's bundle leaves it out), a known chain needs BARDO_USDC from the stack.
    await expect(resolvePaymentTerms({}, 84532, operator)).rejects.toThrow(
      'BARDO_USDC: must be set: this function carries no table of known assets',
    )
  })
})

describe("a deployed tick's API URL", () => {
  it('is BARDO_API_URL when given, else the SSM parameter the stack writes, else none', async () => {
    const ssm = mockClient(SSMClient)
    ssm.on(GetParameterCommand, { Name: '/bardo/prod/api-url' }).resolves({ Parameter: { Value: 'https://api.example' } })
    const client = new SSMClient({ region: 'us-east-1' })
    expect(await apiUrlFromEnv({ BARDO_API_URL: 'https://direct.example', BARDO_API_URL_PARAMETER: '/bardo/prod/api-url' }, client)).toBe(
      'https://direct.example',
    )
    expect(ssm.calls()).toHaveLength(0)
    expect(await apiUrlFromEnv({ BARDO_API_URL_PARAMETER: '/bardo/prod/api-url' }, client)).toBe('https://api.example')
    expect(await apiUrlFromEnv({}, client)).toBeUndefined()
    ssm.restore()
  })

  it('is none while the parameter is not written yet, and any other failure is thrown', async () => {
    const ssm = mockClient(SSMClient)
    const notFound = Object.assign(new Error('not found'), { name: 'ParameterNotFound' })
    ssm.on(GetParameterCommand, { Name: '/bardo/new/api-url' }).rejects(notFound)
    ssm
      .on(GetParameterCommand, { Name: '/bardo/denied/api-url' })
      .rejects(Object.assign(new Error('denied'), { name: 'AccessDeniedException' }))
    const client = new SSMClient({ region: 'us-east-1' })
    expect(await apiUrlFromEnv({ BARDO_API_URL_PARAMETER: '/bardo/new/api-url' }, client)).toBeUndefined()
    await expect(apiUrlFromEnv({ BARDO_API_URL_PARAMETER: '/bardo/denied/api-url' }, client)).rejects.toThrow('denied')
    ssm.restore()
  })
})
