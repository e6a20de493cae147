// One deployment file, five readers: what writeDeploymentFile writes, the local runner, the CLI, the
// functions, the indexer and the stack read back to the same addresses, and a bad deployment is refused
// by each with the field's path and the rule.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getAddress, type Address } from 'viem'
import { getSmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import type { BardoDeployment, LocalAssets } from '../core/deployment.ts'
import { BardoError } from '../core/errors.ts'
import { readCliDeployment } from '../cli/context.ts'
import { CliConfigError } from '../cli/errors.ts'
import { loadFunctionConfig, loadTickFunctionConfig } from '../functions/shared/config.ts'
import { loadIndexerSettings } from '../indexer/lib/settings.ts'
import { readDeploymentFile, writeDeploymentFile } from '../local/chain.ts'
import { loadStackConfig, StackConfigError } from '../stacks/config.ts'
import { testDeployment } from './support/deployment.ts'

const CHAIN = 84532
const addr = (n: number): Address => getAddress(`0x${n.toString(16).padStart(40, '0')}`)
const assets: LocalAssets = {
  usdc: addr(0x51),
  weth: addr(0x52),
  ethUsdFeed: addr(0x53),
  usdcUsdFeed: addr(0x54),
  vault: addr(0x55),
  router: addr(0x56),
}
/** The chain's framework with one enforcer moved, so reading the kit's instead of the file's shows. */
const kit = getSmartAccountsEnvironment(CHAIN)
const environment = { ...kit, caveatEnforcers: { ...kit.caveatEnforcers, ERC20PeriodTransferEnforcer: addr(0x77) } }
const deployment: BardoDeployment = { ...testDeployment(), chainId: CHAIN, environment, startBlock: 123n, assets }

/** The Bardo addresses a reader ended up with, lower-case, for comparing readers. */
const bardoAddresses = (d: { vitalityOracle?: string; dreamOracle?: string; daimonOracle?: string; enforcers?: object }) =>
  [d.vitalityOracle, d.dreamOracle, d.daimonOracle, ...Object.values(d.enforcers ?? {})].map((a) => String(a).toLowerCase()).sort()

let dir: string
let file: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'bardo-deployment-'))
  file = join(dir, 'deployment.json')
  writeDeploymentFile(file, deployment)
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const functionsEnv = (json: string) => ({
  BARDO_CHAIN_ID: String(CHAIN),
  BARDO_DEPLOYMENT: json,
  BARDO_TABLE_NAME: 'bardo-test',
  BARDO_SECRET_RPC_URL: 'http://127.0.0.1:1',
  BARDO_FRAMEWORK: JSON.stringify({ DelegationManager: addr(0x99), caveatEnforcers: {} }),
  AWS_REGION: 'us-east-1',
})

describe('the deployment file round trip', () => {
  it('reads back through the local runner and the CLI as written', () => {
    expect(readDeploymentFile(file, CHAIN)).toEqual(deployment)
    expect(readCliDeployment(file, CHAIN)).toEqual(deployment)
  })

  it('reads back through the functions, the indexer and the stack to the same addresses', async () => {
    const { readFileSync } = await import('node:fs')
    const json = readFileSync(file, 'utf8')
    const expected = bardoAddresses(deployment)
    const api = loadFunctionConfig(functionsEnv(json)).deployment
    expect(bardoAddresses(api)).toEqual(expected)
    expect(api.environment).toEqual(environment)
    expect(api.startBlock).toBe(123n)
    // The tick takes the file's framework over the one the stack hands it.
    expect(loadTickFunctionConfig(functionsEnv(json)).deployment.environment.caveatEnforcers.ERC20PeriodTransferEnforcer).toBe(addr(0x77))

    const indexer = loadIndexerSettings({ BARDO_CHAIN_ID: String(CHAIN), BARDO_RPC_URL: 'https://rpc.example', BARDO_DEPLOYMENT: file })
    expect(indexer.unconfigured).toEqual([])
    expect(bardoAddresses({ ...indexer.addresses, enforcers: {} })).toEqual(
      bardoAddresses({ ...deployment, enforcers: {} })
        .concat()
        .sort(),
    )
    expect(indexer.bardoEnforcers.map((a) => a.toLowerCase()).sort()).toEqual(
      Object.values(deployment.enforcers)
        .map((a) => a.toLowerCase())
        .sort(),
    )
    expect(indexer.addresses.enforcers.erc20PeriodTransfer).toBe(addr(0x77))
    expect(indexer.startBlock).toBe(123)

    const stack = loadStackConfig({ BARDO_CHAIN_ID: String(CHAIN), BARDO_DEPLOYMENT: file }, 'dev')
    expect(stack.startBlock).toBe(123)
    // What the stack hands the functions and the indexer is again read by them through the schema.
    const fromStack = loadFunctionConfig(functionsEnv(stack.deploymentJson)).deployment
    expect(bardoAddresses(fromStack)).toEqual(expected)
    expect(fromStack.environment).toEqual(environment)
    expect(fromStack.assets).toEqual(assets)
    const stackIndexer = loadIndexerSettings({
      BARDO_CHAIN_ID: String(CHAIN),
      BARDO_RPC_URL: 'https://rpc.example',
      BARDO_DEPLOYMENT: stack.indexerDeploymentJson,
    })
    expect(stackIndexer.addresses).toEqual(indexer.addresses)
    expect(stackIndexer.bardoEnforcers).toEqual(indexer.bardoEnforcers)
  })

  it('reads a file `bardo deploy` wrote on a chain the kit knows: no environment, startBlock as text', () => {
    const deployFile = join(dir, 'deployed.json')
    const { environment: _e, assets: _a, startBlock: _s, ...rest } = deployment
    writeFileSync(deployFile, JSON.stringify({ ...rest, startBlock: '77' }, null, 2))
    expect(readDeploymentFile(deployFile, CHAIN)).toEqual({ ...rest, environment: kit, startBlock: 77n })
  })
})

/** Each reader's refusal of one bad deployment, as the field it names and its message. */
const readers: Record<string, (json: string) => { field: string; message: string }> = {
  'the local runner': (json) => {
    const path = join(dir, 'bad.json')
    writeFileSync(path, json)
    const e = caught(() => readDeploymentFile(path, CHAIN))
    expect(e).toBeInstanceOf(BardoError)
    expect((e as BardoError).code).toBe('LOCAL_CONFIG')
    return { field: String((e as BardoError).details?.field), message: (e as Error).message }
  },
  'the CLI': (json) => {
    const path = join(dir, 'bad.json')
    writeFileSync(path, json)
    const e = caught(() => readCliDeployment(path, CHAIN))
    expect(e).toBeInstanceOf(CliConfigError)
    return { field: (e as CliConfigError).variable, message: (e as Error).message }
  },
  'the functions': (json) => {
    const e = caught(() => loadFunctionConfig(functionsEnv(json)))
    expect((e as BardoError).code).toBe('FUNCTION_CONFIG')
    const message = (e as Error).message.replace(/^config: /, '')
    return { field: message.split(': ')[0]!, message }
  },
  'the indexer': (json) => {
    const e = caught(() =>
      loadIndexerSettings({ BARDO_CHAIN_ID: String(CHAIN), BARDO_RPC_URL: 'https://rpc.example', BARDO_DEPLOYMENT: json }),
    )
    expect((e as BardoError).code).toBe('INDEXER_CONFIG_INVALID')
    return { field: (e as Error).message.split(': ')[0]!, message: (e as Error).message }
  },
  'the stack': (json) => {
    const e = caught(() => loadStackConfig({ BARDO_CHAIN_ID: String(CHAIN), BARDO_DEPLOYMENT: json }, 'dev'))
    expect(e).toBeInstanceOf(StackConfigError)
    return { field: (e as StackConfigError).field, message: (e as Error).message }
  },
}

function caught(f: () => unknown): unknown {
  try {
    f()
  } catch (error) {
    return error
  }
  throw new Error('expected a refusal')
}

const whole = { ...testDeployment(), chainId: CHAIN }
describe.each(Object.keys(readers))('%s refuses a bad deployment, naming the field and the rule', (reader) => {
  it.each([
    ['a non-address', { ...whole, vitalityOracle: '0x12' }, 'BARDO_DEPLOYMENT.vitalityOracle', 'must be a 0x-prefixed 20-byte address'],
    [
      'a framework address that is not one',
      { ...whole, environment: { ...environment, DelegationManager: 'nope' } },
      'BARDO_DEPLOYMENT.environment.DelegationManager',
      'must be a 0x-prefixed 20-byte address',
    ],
    ['a chain id as text', { ...whole, chainId: '84532' }, 'BARDO_DEPLOYMENT.chainId', 'must be a chain id (a whole number > 0)'],
    ['another chain', { ...whole, chainId: 8453 }, 'BARDO_DEPLOYMENT.chainId', 'the deployment is for chain 8453, the chain is 84532'],
    ['a bad start block', { ...whole, startBlock: '-1' }, 'BARDO_DEPLOYMENT.startBlock', 'must be a whole number >= 0'],
    [
      'a key no deployment has',
      { ...whole, delegationManager: addr(1) },
      'BARDO_DEPLOYMENT.delegationManager',
      'is not a deployment field',
    ],
  ])('%s', (_case, bad, field, rule) => {
    const refusal = readers[reader]!(JSON.stringify(bad))
    expect(refusal.field).toBe(field)
    expect(refusal.message).toContain(`${field}: ${rule}`)
  })

  it('a missing address (the indexer pins it to one that never emits instead)', () => {
    const { dreamOracle: _gone, ...missing } = whole
    if (reader === 'the indexer') {
      const s = loadIndexerSettings(
        { BARDO_CHAIN_ID: String(CHAIN), BARDO_RPC_URL: 'https://rpc.example', BARDO_DEPLOYMENT: JSON.stringify(missing) },
        getSmartAccountsEnvironment,
      )
      expect(s.unconfigured).toEqual(['dreamOracle'])
      return
    }
    const refusal = readers[reader]!(JSON.stringify(missing))
    expect(refusal.field).toBe('BARDO_DEPLOYMENT.dreamOracle')
    expect(refusal.message).toContain('BARDO_DEPLOYMENT.dreamOracle: is required and must be a 0x-prefixed 20-byte address')
  })
})

describe.each(Object.keys(readers))('%s refuses a BARDO_DEPLOYMENT that is no JSON', (reader) => {
  it('naming the variable', () => {
    const refusal = readers[reader]!('{"vitalityOracle":')
    expect(refusal.field).toBe('BARDO_DEPLOYMENT')
    expect(refusal.message).toMatch(/BARDO_DEPLOYMENT: must be (valid JSON|the path of a readable JSON file)/)
  })
})

it('the functions refuse a BARDO_CHAIN_ID that is no chain id', () => {
  expect(() => loadFunctionConfig({ ...functionsEnv(JSON.stringify(whole)), BARDO_CHAIN_ID: 'base' })).toThrow(
    'config: BARDO_CHAIN_ID must be a chain id (a whole number > 0)',
  )
})
