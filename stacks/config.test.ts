import { describe, expect, it } from 'vitest'
import { getSmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import { loadIndexerSettings } from '../indexer/lib/settings.ts'
import { testDeployment } from '../test/support/deployment.ts'
import { loadStackConfig, StackConfigError } from './config.ts'

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`
const DEPLOYMENT = JSON.stringify({ ...testDeployment(0), startBlock: 99 })
const env = (extra: Record<string, string> = {}) => ({ BARDO_DEPLOYMENT: DEPLOYMENT, ...extra })

const refusal = (e: Record<string, string | undefined>, stage = 'production') => {
  try {
    loadStackConfig(e, stage)
  } catch (error) {
    expect(error).toBeInstanceOf(StackConfigError)
    return { field: (error as StackConfigError).field, message: (error as Error).message }
  }
  throw new Error('expected a refusal')
}

describe('loadStackConfig', () => {
  it('defaults to Base Sepolia and a schema per stage', () => {
    const config = loadStackConfig(env(), 'production')
    expect(config).toMatchObject({
      production: true,
      chainId: 84532,
      startBlock: 99,
      indexerSchema: 'bardo_production',
      allowedOrigins: '',
    })
    expect(JSON.parse(config.deploymentJson).vitalityOracle.toLowerCase()).toBe(addr(1))
    expect(loadStackConfig(env(), 'pr-42').indexerSchema).toBe('bardo_pr_42')
  })

  it('takes Base, the schema and the origins from the environment', () => {
    const config = loadStackConfig(
      env({
        BARDO_CHAIN_ID: '8453',
        BARDO_INDEXER_SCHEMA: 'bardo_v2',
        BARDO_ALLOWED_ORIGINS: 'https://a.example, https://b.example',
        BARDO_START_BLOCK: '5',
      }),
      'dev',
    )
    expect(config).toMatchObject({
      production: false,
      chainId: 8453,
      indexerSchema: 'bardo_v2',
      allowedOrigins: 'https://a.example,https://b.example',
      startBlock: 5,
    })
  })

  it("pays in the chain's USDC as x402 knows it, or in BARDO_USDC with its EIP-712 domain, named in full", () => {
    expect(loadStackConfig(env(), 'dev').paymentAsset).toEqual({
      asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      name: 'USDC',
      version: '2',
    })
    expect(loadStackConfig(env({ BARDO_CHAIN_ID: '8453' }), 'dev').paymentAsset.asset).toBe('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913')
    const own = { BARDO_USDC: addr(9), BARDO_USDC_NAME: 'Test USD', BARDO_USDC_VERSION: '1' }
    expect(loadStackConfig(env(own), 'dev').paymentAsset).toEqual({ asset: addr(9), name: 'Test USD', version: '1' })
    expect(refusal(env({ BARDO_USDC: '0x12' }))).toEqual({ field: 'BARDO_USDC', message: 'BARDO_USDC: must be a 20-byte hex address' })
    expect(refusal(env({ BARDO_USDC: addr(9), BARDO_USDC_NAME: 'Test USD' })).field).toBe('BARDO_USDC_VERSION')
    expect(refusal(env({ BARDO_USDC: addr(9) })).field).toBe('BARDO_USDC_NAME')
    expect(refusal(env({ BARDO_USDC_NAME: 'Test USD' })).field).toBe('BARDO_USDC')
  })

  it('gives the indexer the configuration toIndexerDeployment builds: the framework period enforcers and USDC at par', () => {
    const kit = getSmartAccountsEnvironment(84532)
    const config = loadStackConfig(env(), 'production')
    const settings = loadIndexerSettings({
      BARDO_CHAIN_ID: '84532',
      BARDO_RPC_URL: 'https://rpc.example',
      BARDO_DEPLOYMENT: config.indexerDeploymentJson,
    })
    expect(settings.unconfigured.filter((n) => n.includes('PeriodTransfer') || n === 'delegationManager')).toEqual([])
    expect(settings.addresses.delegationManager).toBe(kit.DelegationManager)
    expect(settings.addresses.enforcers.erc20PeriodTransfer).toBe(kit.caveatEnforcers.ERC20PeriodTransferEnforcer)
    expect(settings.addresses.enforcers.nativeTokenPeriodTransfer).toBe(kit.caveatEnforcers.NativeTokenPeriodTransferEnforcer)
    expect(settings.prices).toEqual({ '0x036cbd53842c5426634e7929541ec2318f3dcf7e': { decimals: 6 } })
    // A feed named in BARDO_DEPLOYMENT is added; a framework given there wins over the kit's.
    const withFeed = loadStackConfig(
      env({
        BARDO_DEPLOYMENT: JSON.stringify({
          ...JSON.parse(DEPLOYMENT),
          prices: { [addr(0)]: { decimals: 18, feed: addr(9) } },
          environment: { ...kit, caveatEnforcers: { ...kit.caveatEnforcers, ERC20PeriodTransferEnforcer: addr(8) } },
        }),
      }),
      'dev',
    )
    const parsed = JSON.parse(withFeed.indexerDeploymentJson)
    expect(parsed.prices[addr(0)]).toEqual({ decimals: 18, feed: addr(9) })
    expect(parsed.environment.caveatEnforcers.ERC20PeriodTransferEnforcer.toLowerCase()).toBe(addr(8))
    expect(
      loadIndexerSettings({
        BARDO_CHAIN_ID: '84532',
        BARDO_RPC_URL: 'https://rpc.example',
        BARDO_DEPLOYMENT: withFeed.indexerDeploymentJson,
      }).addresses.enforcers.erc20PeriodTransfer.toLowerCase(),
    ).toBe(addr(8))
  })

  it('takes the limit of failed ticks in a row for the tick, none by default; a bad one is refused by name', () => {
    expect(loadStackConfig(env(), 'dev').maxFailedTicks).toBeUndefined()
    expect(loadStackConfig(env({ BARDO_MAX_FAILED_TICKS: '8' }), 'dev').maxFailedTicks).toBe(8)
    expect(refusal(env({ BARDO_MAX_FAILED_TICKS: '0' }))).toEqual({
      field: 'BARDO_MAX_FAILED_TICKS',
      message: 'BARDO_MAX_FAILED_TICKS: must be a whole number from 1 to 1000',
    })
  })

  it("takes the Privy app's id and API URL for the tick (its secret is an SST secret), none by default", () => {
    expect(loadStackConfig(env(), 'dev').privy).toEqual({})
    expect(loadStackConfig(env({ BARDO_PRIVY_APP_ID: 'clbh2t7ou0000l508xyzl6n5k' }), 'dev').privy).toEqual({
      appId: 'clbh2t7ou0000l508xyzl6n5k',
    })
    expect(loadStackConfig(env({ BARDO_PRIVY_APP_ID: 'app-1', BARDO_PRIVY_API_URL: 'https://privy.example.com/' }), 'dev').privy).toEqual({
      appId: 'app-1',
      apiUrl: 'https://privy.example.com',
    })
    expect(refusal(env({ BARDO_PRIVY_APP_ID: 'no spaces please' }))).toEqual({
      field: 'BARDO_PRIVY_APP_ID',
      message: 'BARDO_PRIVY_APP_ID: must be a Privy app id: 1-128 letters, digits, - or _',
    })
    expect(refusal(env({ BARDO_PRIVY_APP_ID: 'app-1', BARDO_PRIVY_API_URL: 'http://privy.example.com' }))).toMatchObject({
      field: 'BARDO_PRIVY_API_URL',
      message: expect.stringMatching(/^BARDO_PRIVY_API_URL: must be an https URL/),
    })
    expect(refusal(env({ BARDO_PRIVY_API_URL: 'https://privy.example.com' }))).toEqual({
      field: 'BARDO_PRIVY_API_URL',
      message: 'BARDO_PRIVY_API_URL: is set, so BARDO_PRIVY_APP_ID must be set too',
    })
  })

  it('takes the Snap the dashboard pairs, the published one by default, and refuses one MetaMask would not install', () => {
    expect(loadStackConfig(env(), 'dev').snapId).toBe('npm:@bardo/snap')
    expect(loadStackConfig(env({ BARDO_SNAP_ID: 'npm:@acme/golem-snap' }), 'dev').snapId).toBe('npm:@acme/golem-snap')
    expect(refusal(env({ BARDO_SNAP_ID: 'https://evil.example/snap' }))).toEqual({
      field: 'BARDO_SNAP_ID',
      message: 'BARDO_SNAP_ID: must be a Snap id: npm:<package> or local:<http(s) URL>',
    })
  })

  it('refuses a deploy without the Bardo contracts, naming the variable', () => {
    expect(refusal({})).toMatchObject({ field: 'BARDO_DEPLOYMENT', message: expect.stringContaining('is required') })
    expect(refusal({ BARDO_DEPLOYMENT: JSON.stringify({ vitalityOracle: addr(1) }) })).toMatchObject({
      field: 'BARDO_DEPLOYMENT.dreamOracle',
    })
    // The refusal names the field's path and the rule (it named only the variable before the schema).
    expect(refusal({ BARDO_DEPLOYMENT: '{"vitalityOracle":"0x12"}' })).toEqual({
      field: 'BARDO_DEPLOYMENT.vitalityOracle',
      message: 'BARDO_DEPLOYMENT.vitalityOracle: must be a 0x-prefixed 20-byte address',
    })
  })

  it('refuses values outside the rules, naming the variable and the rule', () => {
    expect(refusal(env({ BARDO_CHAIN_ID: '1' }))).toMatchObject({ field: 'BARDO_CHAIN_ID', message: expect.stringContaining('84532') })
    expect(refusal(env({ BARDO_KEY_POOL_SIZE: '3' }))).toMatchObject({
      field: 'BARDO_KEY_POOL_SIZE',
      message: expect.stringContaining('Migrating from the key pool'),
    })
    expect(refusal(env({ BARDO_INDEXER_SCHEMA: 'Bardo-1' }))).toMatchObject({ field: 'BARDO_INDEXER_SCHEMA' })
    expect(refusal(env({ BARDO_ALLOWED_ORIGINS: 'example.com' }))).toMatchObject({ field: 'BARDO_ALLOWED_ORIGINS' })
    expect(refusal(env({ BARDO_ALARM_EMAIL: 'ops' }))).toMatchObject({ field: 'BARDO_ALARM_EMAIL' })
  })
})
