// The MetaMask Delegation Framework on a local chain at the addresses it has on Base and every public
// chain (v1.3.0): MetaMask's own wallet code (its permissions Snap, the EIP-7702 account it upgrades an
// owner to) names those addresses and nothing else, so a local owner's grant must land where it would
// on Base. The kit deploys the framework wherever the deployer's nonces put it; its code is then placed
// at the canonical addresses. A contract whose code holds the address of another (an account
// implementation's DelegationManager and EntryPoint) is deployed a second time with the canonical
// addresses as its constructor arguments, so the copy placed there points where the canonical one does,
// and its own address (an upgradeable implementation's guard) is rewritten to where it now runs.
import { getAddress, type Address, type Chain, type Hex, type PublicClient, type Transport, type WalletClient, type Account } from 'viem'
import { getSmartAccountsEnvironment, type SmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import { deploySmartAccountsEnvironment } from '@metamask/smart-accounts-kit/utils'
import { BardoError } from '../core/errors.ts'

/** The framework version MetaMask's wallet code expects, and the public chain whose addresses it has (Base). */
export const CANONICAL_FRAMEWORK = { version: '1.3.0', chainId: 8453 } as const

/** The framework's addresses on every public chain with v1.3.0. */
export function canonicalEnvironment(): SmartAccountsEnvironment {
  return getSmartAccountsEnvironment(CANONICAL_FRAMEWORK.chainId, CANONICAL_FRAMEWORK.version)
}

/** Pairs of the same contract in two environments: where the code is, and where it goes. */
function pairs(from: SmartAccountsEnvironment, to: SmartAccountsEnvironment): { name: string; from: Address; to: Address }[] {
  const out: { name: string; from: Address; to: Address }[] = [
    { name: 'EntryPoint', from: from.EntryPoint, to: to.EntryPoint },
    { name: 'DelegationManager', from: from.DelegationManager, to: to.DelegationManager },
    { name: 'SimpleFactory', from: from.SimpleFactory, to: to.SimpleFactory },
  ]
  for (const group of ['implementations', 'caveatEnforcers'] as const) {
    const source = from[group] as Record<string, Address | undefined>
    const target = to[group] as Record<string, Address | undefined>
    for (const [name, at] of Object.entries(target)) {
      const code = source[name]
      if (code && at) out.push({ name, from: code, to: at })
    }
  }
  return out
}

/**
 * Places the code at `from` at `to`. `ownAddress`: the code's own address, held as an immutable (an
 * upgradeable account implementation refuses calls through a proxy unless it is where it was built),
 * is rewritten to `to`. Left alone elsewhere: the DelegationManager recomputes its EIP-712 domain once it
 * runs at another address than the one it was built at, which only the original address makes it do.
 */
async function place(
  client: PublicClient<Transport, Chain>,
  p: { name: string; from: Address; to: Address },
  ownAddress: boolean,
): Promise<void> {
  const code = await client.getCode({ address: p.from })
  if (!code || code === '0x')
    throw new BardoError('FRAMEWORK_DEPLOY_FAILED', `framework.${p.name}: no code at ${p.from} to place at ${p.to}`)
  const placed = ownAddress ? (code.toLowerCase().replaceAll(p.from.slice(2).toLowerCase(), p.to.slice(2).toLowerCase()) as Hex) : code
  await client.request({ method: 'anvil_setCode' as never, params: [getAddress(p.to), placed] as never })
}

/**
 * Deploys the framework with the kit and places it at its canonical v1.3.0 addresses on a local anvil:
 * the EntryPoint and the DelegationManager first, then everything whose constructor names them, deployed
 * against the canonical two. Returns the canonical environment.
 */
export async function deployCanonicalFramework(
  deployer: WalletClient<Transport, Chain, Account>,
  client: PublicClient<Transport, Chain>,
): Promise<SmartAccountsEnvironment> {
  const canonical = canonicalEnvironment()
  const first = await deploySmartAccountsEnvironment(deployer as never, client as never, client.chain)
  for (const p of pairs(first, canonical).filter((q) => q.name === 'EntryPoint' || q.name === 'DelegationManager'))
    await place(client, p, false)
  const second = await deploySmartAccountsEnvironment(deployer as never, client as never, client.chain, {
    EntryPoint: canonical.EntryPoint as Hex,
    DelegationManager: canonical.DelegationManager as Hex,
  })
  for (const p of pairs(second, canonical).filter((q) => q.name !== 'EntryPoint' && q.name !== 'DelegationManager'))
    await place(client, p, true)
  return canonical
}
