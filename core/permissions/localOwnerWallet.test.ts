// The local owner wallet grants ERC-7715 periodic permissions as MetaMask does. The proof of "as
// MetaMask does" is MetaMask's own decoder: @metamask/7715-permission-types' decoder configs (what the
// wallet uses to read granted permissions back) must recognise each grant as exactly the requested
// type, with the requested data and rules. The on-chain redemption is test/chain/erc7715.test.ts.
import { makePermissionDecoderConfigs, type PermissionDecoderConfig } from '@metamask/7715-permission-types'
import { ROOT_AUTHORITY, signDelegation, type Delegation } from '@metamask/smart-accounts-kit'
import { erc7715ProviderActions } from '@metamask/smart-accounts-kit/actions'
import { decodeDelegations, SIGNABLE_DELEGATION_TYPED_DATA, toDelegationStruct } from '@metamask/smart-accounts-kit/utils'
import { createClient, custom, getAddress, recoverTypedDataAddress, toHex, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it, vi } from 'vitest'
import { ENV } from '../../test/support/caveats/fixtures.ts'
import { compileStrategy } from './compileStrategy.ts'
import { toErc7715Request, toKitPermissionRequests } from './erc7715.ts'
import {
  createLocalOwnerWallet,
  LocalOwnerWalletError,
  type OwnerSmartAccount,
  type PeriodicPermissionRequest,
  type WalletPeriodicRequest,
} from './localOwnerWallet.ts'
import { localRegistry } from './protocolRegistry.ts'

const CHAIN_ID = 31337
const NOW = 1_790_000_000
const ownerKey = generatePrivateKey()
const OWNER = privateKeyToAccount(ownerKey).address // stands in for the smart account's address
const SESSION = privateKeyToAccount(generatePrivateKey()).address
const asset = (n: number) => getAddress(`0x${n.toString(16).padStart(40, '0')}`)
const REGISTRY = localRegistry({ usdc: asset(0xa1), weth: asset(0xa2), router: asset(0xa3), vault: asset(0xa4) })

function ownerAccount(deployed = true) {
  const signDelegationSpy = vi.fn((p: { delegation: Omit<Delegation, 'signature'> }) =>
    signDelegation({ privateKey: ownerKey, delegation: p.delegation, delegationManager: ENV.DelegationManager, chainId: CHAIN_ID }),
  )
  const account: OwnerSmartAccount = {
    address: OWNER,
    signDelegation: signDelegationSpy,
    isDeployed: async () => deployed,
    getFactoryArgs: async () => ({ factory: asset(0xfac), factoryData: '0x1234' as Hex }),
  }
  return { account, signDelegationSpy }
}

function wallet(opts: { deployed?: boolean; nonce?: bigint } = {}) {
  const { account, signDelegationSpy } = ownerAccount(opts.deployed)
  const readContract = vi.fn(async () => opts.nonce ?? 0n)
  const w = createLocalOwnerWallet({
    smartAccount: account,
    environment: ENV,
    chainId: CHAIN_ID,
    publicClient: { readContract } as never,
    now: () => NOW,
  })
  return { w, signDelegationSpy, readContract }
}

const plan = () =>
  compileStrategy({
    text: '---\ncapabilities: [swap]\nbudget: $25/day\nrunway_days: 30\n---\n',
    chainId: CHAIN_ID,
    owner: OWNER,
    sessionKey: SESSION,
    now: NOW,
    registry: REGISTRY,
  })

const enforcersByName = () => {
  const e = ENV.caveatEnforcers as Record<string, Address>
  return {
    erc20StreamingEnforcer: e.ERC20StreamingEnforcer!,
    erc20PeriodTransferEnforcer: e.ERC20PeriodTransferEnforcer!,
    nativeTokenStreamingEnforcer: e.NativeTokenStreamingEnforcer!,
    nativeTokenPeriodTransferEnforcer: e.NativeTokenPeriodTransferEnforcer!,
    approvalRevocationEnforcer: e.ApprovalRevocationEnforcer!,
    exactCalldataEnforcer: e.ExactCalldataEnforcer!,
    valueLteEnforcer: e.ValueLteEnforcer!,
    timestampEnforcer: e.TimestampEnforcer!,
    nonceEnforcer: e.NonceEnforcer!,
    allowedCalldataEnforcer: e.AllowedCalldataEnforcer!,
    allowedTargetsEnforcer: e.AllowedTargetsEnforcer!,
    redeemerEnforcer: e.RedeemerEnforcer!,
  }
}

/** How MetaMask reads a granted delegation back: the one decoder config whose required/optional enforcers fit. */
function decodeAsMetaMask(delegation: Delegation) {
  const contracts = enforcersByName()
  const caveats = delegation.caveats.map((c) => ({ ...c, enforcer: getAddress(c.enforcer) }))
  const counts = new Map<string, number>()
  for (const c of caveats) counts.set(c.enforcer, (counts.get(c.enforcer) ?? 0) + 1)
  const fits = (cfg: PermissionDecoderConfig) =>
    Object.entries(cfg.requiredEnforcers).every(([e, n]) => counts.get(getAddress(e)) === n) &&
    [...counts.keys()].every(
      (e) =>
        getAddress(e) in Object.fromEntries(Object.keys(cfg.requiredEnforcers).map((k) => [getAddress(k), 1])) ||
        cfg.optionalEnforcers.map((o) => getAddress(o)).includes(e as Address),
    )
  // Several types share enforcers (erc20-token-periodic and -allowance); the data decoder tells them apart.
  const decodes = (cfg: PermissionDecoderConfig) => {
    try {
      cfg.validateAndDecodeData(caveats, cfg.contractAddresses)
      return true
    } catch {
      return false
    }
  }
  const matches = makePermissionDecoderConfigs(contracts).filter((cfg) => fits(cfg) && decodes(cfg))
  expect(matches.map((m) => m.permissionType)).toHaveLength(1)
  const cfg = matches[0]!
  const rules = cfg.rules
    .map((r) => r({ contractAddresses: cfg.contractAddresses, caveats, requiredEnforcers: new Map() }))
    .filter((r) => r !== null)
  return { type: cfg.permissionType, data: cfg.validateAndDecodeData(caveats, cfg.contractAddresses), rules }
}

describe('createLocalOwnerWallet', () => {
  it('grants the runway pair from toErc7715Request as MetaMask would: one signed root delegation each, read back as the requested permission', async () => {
    const requests = toErc7715Request(plan())
    const { w, readContract } = wallet({ nonce: 7n })
    const responses = await w.requestExecutionPermissions(requests)
    expect(responses).toHaveLength(2)
    expect(readContract).toHaveBeenCalledTimes(1)
    for (const [i, response] of responses.entries()) {
      const request = requests[i]!
      // Answered in the Snap's response shape, as the request was in its request shape.
      expect(response).toMatchObject({
        chainId: request.chainId,
        address: OWNER,
        signer: request.signer,
        rules: request.rules,
        signerMeta: { delegationManager: ENV.DelegationManager },
        dependencyInfo: [],
      })
      const chain = decodeDelegations(response.context)
      expect(chain).toHaveLength(1)
      const [delegation] = chain as [Delegation]
      expect({ ...delegation, delegator: getAddress(delegation.delegator), delegate: getAddress(delegation.delegate) }).toMatchObject({
        delegator: OWNER,
        delegate: SESSION,
        authority: ROOT_AUTHORITY,
      })
      const decoded = decodeAsMetaMask(delegation)
      expect(decoded.type).toBe(request.permission.type)
      const { justification: _j, ...data } = request.permission.data
      const tokenAddress = (decoded.data as { tokenAddress?: Address }).tokenAddress
      expect({ ...decoded.data, ...(tokenAddress ? { tokenAddress: getAddress(tokenAddress) } : {}) }).toEqual(data)
      expect(decoded.rules).toEqual(request.rules.map(({ isAdjustmentAllowed: _a, ...rule }) => rule))
      // The nonce caveat carries the owner's current NonceEnforcer nonce.
      const nonce = delegation.caveats.find((c) => c.enforcer.toLowerCase() === ENV.caveatEnforcers.NonceEnforcer!.toLowerCase())!
      expect(BigInt(nonce.terms)).toBe(7n)
      const { signature, ...message } = toDelegationStruct(delegation)
      const signer = await recoverTypedDataAddress({
        domain: { name: 'DelegationManager', version: '1', chainId: CHAIN_ID, verifyingContract: ENV.DelegationManager },
        types: SIGNABLE_DELEGATION_TYPED_DATA,
        primaryType: 'Delegation',
        message,
        signature,
      })
      expect(signer).toBe(OWNER)
    }
    expect(w.grantedPermissions()).toEqual(responses)
  })

  it('serves the kit: erc7715ProviderActions().requestExecutionPermissions over a custom transport gets the grant', async () => {
    const { w } = wallet()
    const client = createClient({ transport: custom(w) }).extend(erc7715ProviderActions())
    const [usdc] = await client.requestExecutionPermissions(toKitPermissionRequests(plan()))
    expect(usdc).toMatchObject({ chainId: CHAIN_ID, from: OWNER, to: SESSION, delegationManager: ENV.DelegationManager })
    expect(usdc!.permission.type).toBe('erc20-token-periodic')
    expect(getAddress(decodeDelegations(usdc!.context)[0]!.delegate)).toBe(SESSION)
    expect(await w.request({ method: 'wallet_getSupportedExecutionPermissions' })).toEqual({
      'erc20-token-periodic': { chainIds: [toHex(CHAIN_ID)], ruleTypes: ['expiry', 'redeemer'] },
      'native-token-periodic': { chainIds: [toHex(CHAIN_ID)], ruleTypes: ['expiry', 'redeemer'] },
    })
  })

  it('lists the factory as a dependency when the owner account is not deployed yet; defaults startTime to now; maps a redeemer rule', async () => {
    const { w } = wallet({ deployed: false })
    const [usdc] = toErc7715Request(plan())
    const { isAdjustmentAllowed: _a, ...expiry } = usdc.rules[0]!
    const request = {
      chainId: usdc.chainId,
      from: usdc.address,
      to: usdc.signer.data.address,
      permission: { ...usdc.permission, data: { ...usdc.permission.data, startTime: undefined } },
      rules: [expiry, { type: 'redeemer', data: { addresses: [SESSION] } }],
    } as unknown as PeriodicPermissionRequest
    const [response] = await w.requestExecutionPermissions([request])
    expect(response!.dependencies).toEqual([{ factory: asset(0xfac), factoryData: '0x1234' }])
    expect(response!.permission.data.startTime).toBe(NOW)
    const decoded = decodeAsMetaMask(decodeDelegations(response!.context)[0]!)
    expect(decoded.rules).toEqual([expiry, { type: 'redeemer', data: { addresses: [SESSION] } }])
  })

  const bad: [string, (r: WalletPeriodicRequest) => unknown, string][] = [
    ['another chain', (r) => ({ ...r, chainId: '0x2105' }), 'requests[1].chainId'],
    ['from another account', (r) => ({ ...r, address: SESSION }), 'requests[1].address'],
    ['to the owner itself', (r) => ({ ...r, signer: { type: 'account', data: { address: OWNER } } }), 'requests[1].signer.data.address'],
    ['to a key signer', (r) => ({ ...r, signer: { type: 'key', data: { id: SESSION } } }), 'requests[1].signer.type'],
    [
      'in the later shape from another account',
      ({ address: _a, signer, ...r }) => ({ ...r, from: SESSION, to: signer.data.address }),
      'requests[1].from',
    ],
    ['in the later shape to the owner itself', ({ address, signer: _s, ...r }) => ({ ...r, from: address, to: OWNER }), 'requests[1].to'],
    ['a stream permission', (r) => ({ ...r, permission: { ...r.permission, type: 'erc20-token-stream' } }), 'requests[1].permission.type'],
    [
      'a zero period amount',
      (r) => ({ ...r, permission: { ...r.permission, data: { ...r.permission.data, periodAmount: '0x0' } } }),
      'requests[1].permission.data',
    ],
    [
      'an expiry in the past',
      (r) => ({ ...r, rules: [{ type: 'expiry', isAdjustmentAllowed: false, data: { timestamp: NOW - 1 } }] }),
      'requests[1].rules[0].data.timestamp',
    ],
    [
      'a payee rule',
      (r) => ({ ...r, rules: [{ type: 'payee', isAdjustmentAllowed: false, data: { addresses: [SESSION] } }] }),
      'requests[1].rules[0].type',
    ],
  ]
  it.each(bad)('refuses %s, naming the field, and signs nothing (all or nothing)', async (_what, mutate, field) => {
    const { w, signDelegationSpy } = wallet()
    const [usdc, gas] = toErc7715Request(plan())
    const error = await w.requestExecutionPermissions([usdc, mutate(gas) as WalletPeriodicRequest]).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(LocalOwnerWalletError)
    expect((error as LocalOwnerWalletError).field).toBe(field)
    expect((error as LocalOwnerWalletError).message.startsWith(`${field}: `)).toBe(true)
    expect(signDelegationSpy).not.toHaveBeenCalled()
    expect(w.grantedPermissions()).toEqual([])
  })

  it('refuses unknown RPC methods and an empty request list', async () => {
    const { w } = wallet()
    await expect(w.request({ method: 'eth_sign' })).rejects.toThrow('method: eth_sign is not supported by the local owner wallet')
    await expect(w.requestExecutionPermissions([])).rejects.toThrow(LocalOwnerWalletError)
  })
})
