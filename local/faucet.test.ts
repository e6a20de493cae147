import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { erc20Abi, parseUnits, type Address } from 'viem'
import { FAUCET_ACCOUNT_INDEX, FAUCET_RESERVE_USDC, devnetAccount, startDevnet, type Devnet } from './devnet.ts'
import { FaucetUsageError, fund, parseFaucetArgs } from './faucet.ts'
describe('npm run faucet arguments', () => {
  it('takes an address and optional USDC and ETH amounts in token units', () => {
    expect(parseFaucetArgs(['0x000000000000000000000000000000000000dead'])).toEqual({
      to: '0x000000000000000000000000000000000000dEaD',
      usdc: 100_000_000n,
      eth: 10n ** 18n,
    })
    expect(parseFaucetArgs(['0x000000000000000000000000000000000000dead', '2.5', '0'])).toMatchObject({ usdc: 2_500_000n, eth: 0n })
  })

  it('refuses a bad address or amount with the field and the rule', () => {
    expect(() => parseFaucetArgs([])).toThrow(new FaucetUsageError('address: must be a 20-byte hex address, got (nothing)'))
    expect(() => parseFaucetArgs(['0x1234'])).toThrow(/^address: must be a 20-byte hex address/)
    expect(() => parseFaucetArgs(['0x000000000000000000000000000000000000dead', '-1'])).toThrow('usdc: must be a decimal amount, got -1')
    expect(() => parseFaucetArgs(['0x000000000000000000000000000000000000dead', '2000000'])).toThrow(
      'usdc: must be at most 1000000, got 2000000',
    )
    expect(() => parseFaucetArgs(['0x000000000000000000000000000000000000dead', '1', '1e3'])).toThrow(
      'eth: must be a decimal amount, got 1e3',
    )
  })
})

describe('npm run faucet on a running stack', () => {
  let devnet: Devnet
  beforeAll(async () => {
    devnet = await startDevnet()
  }, 120_000)
  afterAll(async () => {
    await devnet?.stop()
  })

  it('funds from its own reserve while the stack sends from its deployer at the same moment, and neither is refused', async () => {
    const stack = {
      rpcUrl: devnet.rpcUrl,
      chainId: devnet.deployment.chainId,
      usdc: devnet.deployment.assets.usdc,
      apiUrl: 'http://127.0.0.1:0',
      network: `eip155:${devnet.deployment.chainId}`,
    }
    const to = '0x000000000000000000000000000000000000bEEF' as Address
    // The stack posts its feeds each beat from the deployer; the faucet is another process on another account.
    const [funded] = await Promise.all([fund(stack, { to, usdc: parseUnits('30', 6), eth: 10n ** 15n }), devnet.refreshFeeds()])
    expect(funded).toEqual({ usdcBalance: parseUnits('30', 6), ethBalance: 10n ** 15n })
    const reserve = await devnet.publicClient.readContract({
      address: stack.usdc,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [devnetAccount(FAUCET_ACCOUNT_INDEX).address],
    })
    expect(reserve).toBe(FAUCET_RESERVE_USDC - parseUnits('30', 6))
  }, 60_000)
})
