import { encodeFunctionData, getAddress, pad, parseAbiItem, slice, toFunctionSelector, zeroAddress } from 'viem'
import { describe, expect, it } from 'vitest'
import { bridgeLayout, CALL_LAYOUTS, layoutOfSelector } from './callLayouts.ts'
import { StrategyCompileError } from './errors.ts'
import { localRegistry, publicRegistry, PUBLIC_ADDRESSES } from './protocolRegistry.ts'
import { SELECTOR_SIGNATURES, SELECTORS } from './selectors.ts'

describe('selectors', () => {
  it.each(Object.entries(SELECTOR_SIGNATURES))('%s is toFunctionSelector(%s)', (key, signature) => {
    expect(SELECTORS[key as keyof typeof SELECTORS]).toBe(toFunctionSelector(signature))
  })

  it('match the constants named in the issue', () => {
    expect(SELECTORS).toMatchObject({
      erc20Transfer: '0xa9059cbb',
      erc20Approve: '0x095ea7b3',
      erc20IncreaseAllowance: '0x39509351',
      exactInputSingle: '0x04e45aaf',
      exactInput: '0xb858183f',
      vaultDeposit: '0x6e553f65',
      vaultWithdraw: '0xb460af94',
      vaultRedeem: '0xba087652',
      vaultMint: '0x94bf804d',
      positionMint: '0x88316456',
      increaseLiquidity: '0x219f5d17',
      decreaseLiquidity: '0x0c49ccbe',
      collect: '0xfc6f7865',
      cctpDepositForBurn: '0x8e0250ee',
    })
  })
})

describe('public registry addresses', () => {
  it('are the published deployments, checksummed', () => {
    expect(PUBLIC_ADDRESSES).toEqual({
      8453: {
        name: 'Base',
        usdc: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
        weth: '0x4200000000000000000000000000000000000006',
        swapRouter02: '0x2626664c2603336E57B271c5C0b26F421741e481',
        positionManager: '0x03a520b32C04BF3bEEf7BEb72E919cf822Ed34f1',
        cctpTokenMessengerV2: '0x28b5a0e9C621a5BadaA536219b3a228C8168cf5d',
      },
      84532: {
        name: 'Base Sepolia',
        usdc: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
        weth: '0x4200000000000000000000000000000000000006',
        swapRouter02: '0x94cC0AaC535CCDB3C01d6787D6413C739ae12bc4',
        positionManager: '0x27F971cb582BF9E50F397e4d29a5C7A34f11faA2',
        cctpTokenMessengerV2: '0x8FE6B999Dc680CcFDD5Bf7EB0974218be2542DAA',
      },
    })
    for (const chain of Object.values(PUBLIC_ADDRESSES)) {
      for (const [key, value] of Object.entries(chain)) if (key !== 'name') expect(getAddress(value)).toBe(value)
    }
  })

  it('serve swap, LP and replicants; vaults and the bridge only when the owner names them; never limit orders', () => {
    for (const chainId of [8453, 84532]) {
      const r = publicRegistry(chainId)
      expect(Object.keys(r.capabilities).sort()).toEqual(['ProvideLiquidity', 'SpawnReplicants', 'Swap'])
      expect(r.unserved?.Bridge).toMatch(/^the owner must name the bridge destination/)
      const bridging = publicRegistry(chainId, { bridge: { destinationDomain: 3 } })
      expect(Object.keys(bridging.capabilities).sort()).toEqual(['Bridge', 'ProvideLiquidity', 'SpawnReplicants', 'Swap'])
      expect(bridging.unserved).toBeUndefined()
      // The runway is the registry's usdc, moved by its own capped delegation: no registry call holds a transfer.
      expect('runway' in r).toBe(false)
      const withVault = publicRegistry(chainId, { vaults: ['0x6000000000000000000000000000000000000006'] })
      expect(withVault.capabilities.VaultManagement?.calls.map((c) => c.target)).toEqual(['0x6000000000000000000000000000000000000006'])
      expect(withVault.capabilities.VaultManagement?.approvals).toEqual([
        { token: r.usdc, spender: '0x6000000000000000000000000000000000000006' },
      ])
    }
  })

  it('lists approvals only for the spenders a capability needs, and never approve as a call', () => {
    const destination = { destinationDomain: 3 }
    const r = publicRegistry(8453, { bridge: destination })
    const a = PUBLIC_ADDRESSES[8453]
    expect(r.capabilities.Swap?.approvals).toEqual([
      { token: a.usdc, spender: a.swapRouter02 },
      { token: a.weth, spender: a.swapRouter02 },
    ])
    expect(r.capabilities.Bridge?.approvals).toEqual([{ token: a.usdc, spender: a.cctpTokenMessengerV2 }])
    const pinned = bridgeLayout({ usdc: a.usdc, destinationDomain: 3, destinationCaller: zeroAddress, maxFee: 0n })
    expect(r.capabilities.Bridge?.calls).toEqual([
      {
        name: 'Circle CCTP V2 TokenMessengerV2',
        target: a.cctpTokenMessengerV2,
        functions: [{ name: 'depositForBurn', selector: SELECTORS.cctpDepositForBurn, layout: pinned }],
      },
    ])
    for (const registry of [
      r,
      publicRegistry(84532, { vaults: ['0x6000000000000000000000000000000000000006'] }),
      localRegistry(
        {
          usdc: a.usdc,
          weth: a.weth,
          router: a.swapRouter02,
          vault: '0x6000000000000000000000000000000000000006',
          positionManager: a.positionManager,
          bridge: a.cctpTokenMessengerV2,
        },
        { bridge: destination },
      ),
    ]) {
      const functions = Object.values(registry.capabilities)
        .flatMap((c) => c.calls)
        .flatMap((c) => c.functions)
      for (const s of [SELECTORS.erc20Approve, SELECTORS.erc20IncreaseAllowance, SELECTORS.erc20Transfer, SELECTORS.erc20TransferFrom]) {
        expect(functions.map((f) => f.selector)).not.toContain(s)
      }
      // Every function states its receiver layout, the one CALL_LAYOUTS verifies against the ABI encoding.
      // The bridge's adds the configured destination pins to it.
      for (const f of functions) {
        if (f.selector === SELECTORS.cctpDepositForBurn)
          expect(f.layout).toEqual({ ...CALL_LAYOUTS.cctpDepositForBurn, fixed: (f.layout as { fixed: unknown }).fixed })
        else expect(f.layout).toBe(layoutOfSelector(f.selector)?.layout)
      }
    }
  })

  it('pins the words depositForBurn really holds: domain, token, caller and fee where viem encodes them', () => {
    const a = PUBLIC_ADDRESSES[8453]
    const caller = '0x9000000000000000000000000000000000000009'
    const layout = bridgeLayout({ usdc: a.usdc, destinationDomain: 3, destinationCaller: caller, maxFee: 1_234n })
    const data = encodeFunctionData({
      abi: [
        parseAbiItem(
          'function depositForBurn(uint256 amount, uint32 destinationDomain, bytes32 mintRecipient, address burnToken, bytes32 destinationCaller, uint256 maxFee, uint32 minFinalityThreshold)',
        ),
      ],
      args: [5n, 3, pad(a.usdc), a.usdc, pad(caller), 1_234n, 2_000],
    })
    expect(
      layout.kind === 'receivers' && layout.fixed!.map((w) => [w.argument, slice(data, w.startIndex, w.startIndex + 32) === w.value]),
    ).toEqual([
      ['destinationDomain', true],
      ['burnToken', true],
      ['destinationCaller', true],
      ['maxFee', true],
    ])
  })

  it.each([
    ['a domain that is not a uint32', { destinationDomain: -1 }, 'bridge.destinationDomain: must be a uint32 CCTP domain, got -1'],
    [
      'Solana',
      { destinationDomain: 5 },
      "bridge.destinationDomain: 5 is Solana, not an EVM chain: the mint recipient is pinned to the owner's EVM account, which is not theirs there",
    ],
    ['Noble', { destinationDomain: 4 }, 'bridge.destinationDomain: 4 is Noble, not an EVM chain'],
    ['Base itself', { destinationDomain: 6 }, "bridge.destinationDomain: 6 is this chain's own CCTP domain; a bridge must go elsewhere"],
    [
      'a bad caller',
      { destinationDomain: 3, destinationCaller: '0xnope' as `0x${string}` },
      'bridge.destinationCaller: must be a 20-byte hex address',
    ],
    ['a negative fee', { destinationDomain: 3, maxFee: -1n }, 'bridge.maxFee: must be a non-negative bigint'],
  ])('refuses a bridge destination with %s, naming the field and the rule', (_name, bridge, message) => {
    expect(() => publicRegistry(8453, { bridge })).toThrowError(StrategyCompileError)
    expect(() => publicRegistry(8453, { bridge })).toThrowError(message)
  })

  it('refuses unknown chains and bad vault addresses', () => {
    expect(() => publicRegistry(1)).toThrowError(StrategyCompileError)
    expect(() => publicRegistry(31337)).toThrowError(/no public registry/)
    expect(() => publicRegistry(8453, { vaults: ['0xnope' as `0x${string}`] })).toThrowError(/vaults\[0\]/)
  })
})

describe('localRegistry', () => {
  const addresses = {
    usdc: '0x1000000000000000000000000000000000000001',
    weth: '0x2000000000000000000000000000000000000002',
    router: '0x3000000000000000000000000000000000000003',
    vault: '0x4000000000000000000000000000000000000004',
    priceFeed: '0x5000000000000000000000000000000000000005',
  } as const

  it('builds swap and vault from the devnet addresses; LP and bridge only when deployed', () => {
    const r = localRegistry(addresses)
    expect(r.chainId).toBe(31337)
    expect(Object.keys(r.capabilities).sort()).toEqual(['SpawnReplicants', 'Swap', 'VaultManagement'])
    expect(r.capabilities.Swap?.calls.at(-1)).toEqual({
      name: 'Uniswap SwapRouter02',
      target: addresses.router,
      functions: (['exactInputSingle', 'exactInput'] as const).map((key) => ({
        name: key,
        selector: SELECTORS[key],
        layout: CALL_LAYOUTS[key],
      })),
    })
    const deployed = {
      ...addresses,
      positionManager: '0x7000000000000000000000000000000000000007',
      bridge: '0x8000000000000000000000000000000000000008',
    } as const
    expect(Object.keys(localRegistry(deployed).capabilities).sort()).toEqual([
      'ProvideLiquidity',
      'SpawnReplicants',
      'Swap',
      'VaultManagement',
    ])
    expect(localRegistry(deployed).unserved?.Bridge).toMatch(/destination/)
    const full = localRegistry(deployed, { bridge: { destinationDomain: 0 } })
    expect(Object.keys(full.capabilities).sort()).toEqual(['Bridge', 'ProvideLiquidity', 'SpawnReplicants', 'Swap', 'VaultManagement'])
  })

  it('accepts the devnet shape (extra fields, no single priceFeed) and checksums lower-case input', () => {
    const devnet = {
      ...addresses,
      priceFeed: undefined,
      ethUsdFeed: '0x9000000000000000000000000000000000000009',
      usdc: '0xa0ee7a142d267c1f36714e4a8f75612f20a79720' as const,
    }
    const r = localRegistry(devnet)
    expect(r.usdc).toBe('0xa0Ee7A142d267C1f36714E4a8F75612F20a79720')
    expect(r.priceFeed).toBeUndefined()
  })

  it.each(['usdc', 'weth', 'router', 'vault', 'priceFeed'] as const)('refuses a bad %s address, naming it', (key) => {
    expect(() => localRegistry({ ...addresses, [key]: '0x0000000000000000000000000000000000000000' })).toThrowError(`addresses.${key}:`)
    expect(() => localRegistry({ ...addresses, [key]: 'vault' as `0x${string}` })).toThrowError(`addresses.${key}:`)
  })
})
