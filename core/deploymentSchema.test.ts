import { describe, expect, it } from 'vitest'
import { DeploymentError, deploymentJson, parseDeployment, parseDeploymentFile, parsePartialDeployment } from './deploymentSchema.ts'
import { bardoEnforcerNames } from './deployment.ts'

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as const
const enforcers = Object.fromEntries(bardoEnforcerNames.map((name, i) => [name, addr(0x100 + i)]))
const whole = { chainId: 31337, startBlock: '5', vitalityOracle: addr(1), dreamOracle: addr(2), daimonOracle: addr(3), enforcers }
const environment = { DelegationManager: addr(4), EntryPoint: addr(5), SimpleFactory: addr(6), implementations: {}, caveatEnforcers: {} }
const assets = { usdc: addr(7), weth: addr(8), ethUsdFeed: addr(9), usdcUsdFeed: addr(10), vault: addr(11), router: addr(12) }
const o = { root: 'BARDO_DEPLOYMENT', chainId: 31337 }

const refusal = (f: () => unknown) => {
  try {
    f()
  } catch (error) {
    expect(error).toBeInstanceOf(DeploymentError)
    return (error as DeploymentError).message
  }
  throw new Error('expected a refusal')
}

describe('the deployment schema', () => {
  it('reads back what deploymentJson writes, startBlock as decimal text', () => {
    const file = { ...whole, environment, assets, routerReady: true, prices: { [addr(7)]: { decimals: 6 } }, councils: [addr(13)] }
    const parsed = parseDeploymentFile(file, o)
    expect(parsed.startBlock).toBe(5n)
    expect(deploymentJson(parsed)).toEqual(file)
    expect(parseDeploymentFile(JSON.parse(JSON.stringify(deploymentJson(parsed))), o)).toEqual(parsed)
  })

  it('leaves the framework to the reader when the file has none, and refuses a chain the reader cannot supply', () => {
    expect(parseDeployment(whole, { ...o, framework: () => environment }).environment).toEqual(environment)
    expect(
      refusal(() =>
        parseDeployment(whole, {
          ...o,
          framework: () => {
            throw new Error('unknown chain')
          },
        }),
      ),
    ).toBe('BARDO_DEPLOYMENT.environment: is required: chain 31337 is not one the MetaMask kit knows')
  })

  it('refuses a whole deployment with part of the assets or the framework, which a partial one may have', () => {
    expect(refusal(() => parseDeploymentFile({ ...whole, assets: { usdc: addr(7) } }, o))).toBe(
      'BARDO_DEPLOYMENT.assets.weth: is required and must be a 0x-prefixed 20-byte address',
    )
    expect(refusal(() => parseDeploymentFile({ ...whole, environment: { DelegationManager: addr(4) } }, o))).toBe(
      'BARDO_DEPLOYMENT.environment.EntryPoint: is required and must be a 0x-prefixed 20-byte address',
    )
    expect(parsePartialDeployment({ assets: { usdc: addr(7) }, environment: { DelegationManager: addr(4) } }, 'BARDO_DEPLOYMENT')).toEqual({
      assets: { usdc: addr(7) },
      environment: { DelegationManager: addr(4) },
    })
  })

  it.each([
    [{ ...whole, enforcers: undefined }, 'BARDO_DEPLOYMENT.enforcers: is required and must be an object of the nine Bardo enforcers'],
    [{ ...whole, assets: { ...assets, pool: addr(1) } }, 'BARDO_DEPLOYMENT.assets.pool: is not a local test asset'],
    [{ ...whole, environment: { ...environment, Extra: addr(1) } }, 'BARDO_DEPLOYMENT.environment.Extra: is not a framework contract'],
    [{ ...whole, routerReady: 'yes' }, 'BARDO_DEPLOYMENT.routerReady: must be true or false'],
    [{ ...whole, councils: 'x' }, 'BARDO_DEPLOYMENT.councils: must be a list of council addresses'],
    [{ ...whole, prices: { '0x12': { decimals: 6 } } }, 'BARDO_DEPLOYMENT.prices.0x12: must be a 0x-prefixed 20-byte address'],
    [{ ...whole, startBlock: 1.5 }, 'BARDO_DEPLOYMENT.startBlock: must be a whole number >= 0 (a number or decimal text)'],
    [{ ...whole, chainId: 0 }, 'BARDO_DEPLOYMENT.chainId: must be a chain id (a whole number > 0)'],
    [[], 'BARDO_DEPLOYMENT: must be a JSON object'],
  ])('refuses %j naming the field and the rule', (json, message) => {
    expect(refusal(() => parseDeploymentFile(json, o))).toBe(message)
  })
})
