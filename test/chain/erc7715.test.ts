// The ERC-7715 path end to end on anvil: the compiled runway request -> the local owner wallet's grant
// (as MetaMask grants it) -> the Session Account re-delegates to the Golem's execution key adding the
// Bardo caveats (core/delegations buildRunwayRedelegation) -> the execution key redeems [child, parent].
import { decodeDelegations, hashDelegation } from '@metamask/smart-accounts-kit/utils'
import { readGolems } from '../../adapters/chain/readGolems.ts'
import { NonceEnforcer } from '@metamask/delegation-abis'
import { readFile } from 'node:fs/promises'
import { encodeFunctionData, hexToBigInt, parseEther, type Address, type Hex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildRunwayRedelegation } from '../../core/delegations/index.ts'
import { toErc7715Request, type PermissionPlan } from '../../core/permissions/index.ts'
import { createLocalOwnerWallet, type LocalOwnerWallet, type WalletPeriodicResponse } from '../../core/permissions/localOwnerWallet.ts'
import { startDevnet, type Devnet, type OwnerAccount } from '../../local/devnet.ts'
import { encodeCall } from '../../local/ownerActions.ts'
import {
  compileLocalPlan,
  PHASE,
  SELECTOR,
  USDC,
  chainNow,
  expectRefused,
  keySigner,
  newGolem,
  newKey,
  newTree,
  ownerCalls,
  redeem,
  redeemRefused,
  transferCall,
  updatePhase,
  usdcBalance,
} from './harness.ts'

let devnet: Devnet
let owner: OwnerAccount
let session: { privateKey: `0x${string}`; account: PrivateKeyAccount }
let golem: PrivateKeyAccount
let plan: PermissionPlan
let wallet: LocalOwnerWallet
let clock: bigint

beforeAll(async () => {
  devnet = await startDevnet()
  owner = await devnet.createOwner()
  session = await newKey(devnet)
  golem = await newGolem(devnet)
  clock = await chainNow(devnet)
  plan = compileLocalPlan(devnet, {
    text: await readFile(new URL('../../examples/STRATEGY.md', import.meta.url), 'utf8'),
    owner: owner.address,
    sessionKey: session.account.address,
    now: clock,
  })
  wallet = createLocalOwnerWallet({
    smartAccount: owner.smartAccount,
    environment: devnet.deployment.environment,
    chainId: devnet.chain.id,
    publicClient: devnet.publicClient,
    now: () => Number(clock),
  })
})
afterAll(async () => devnet?.stop())

const grant = async (): Promise<WalletPeriodicResponse[]> =>
  (await wallet.request({ method: 'wallet_requestExecutionPermissions', params: toErc7715Request(plan) })) as WalletPeriodicResponse[]

/** The Session Account re-delegates a granted permission to the Golem's execution key with the Bardo caveats. */
async function redelegate(response: { context: Hex }, executionKey: Address = golem.address, endTime = BigInt(plan.expiry - 1)) {
  clock = await chainNow(devnet)
  const tree = newTree(devnet, clock)
  const r = buildRunwayRedelegation({
    tree,
    permission: { context: decodeDelegations(response.context) },
    executionKey,
    bardo: [{ type: 'golemPhase', golem: executionKey, startTime: BigInt(plan.startTime), endTime }],
  })
  await tree.sign(r.child.hash, keySigner(devnet, session.privateKey))
  return r.chain()
}

describe('ERC-7715 runway + Bardo re-delegation on anvil', () => {
  let usdcChain: Awaited<ReturnType<typeof redelegate>>

  it('the local wallet grants the compiled request; the Session Account re-delegates; the execution key moves USDC through [child, parent]', async () => {
    const [usdcGrant] = await grant()
    expect(usdcGrant!.signerMeta.delegationManager).toBe(devnet.deployment.environment.DelegationManager)
    usdcChain = await redelegate(usdcGrant!)
    expect(usdcChain).toHaveLength(2)
    expect(usdcChain[0]!.delegate).toBe(golem.address)
    const { usdc } = devnet.deployment.assets
    const ownerBefore = await usdcBalance(devnet, owner.address)
    await redeem(devnet, golem, usdcChain, [transferCall(usdc, golem.address, USDC(10))])
    expect(await usdcBalance(devnet, golem.address)).toBe(USDC(10))
    expect(await usdcBalance(devnet, owner.address)).toBe(ownerBefore - USDC(10))
  })

  it("the permission's period binds through the child: more than 25 USDC in the day is refused by the parent", async () => {
    const e = await redeemRefused(devnet, golem, usdcChain, [transferCall(devnet.deployment.assets.usdc, golem.address, USDC(16))])
    expect(e).toMatchObject({ name: 'Error', args: ['ERC20PeriodTransferEnforcer:transfer-amount-exceeded'] })
    await redeem(devnet, golem, usdcChain, [transferCall(devnet.deployment.assets.usdc, golem.address, USDC(15))])
  })

  it('the native-token-periodic grant pays the execution key its gas through its own [child, parent]', async () => {
    const [, gasGrant] = wallet.grantedPermissions()
    const gasChain = await redelegate(gasGrant!)
    const before = await devnet.publicClient.getBalance({ address: owner.address })
    await redeem(devnet, golem, gasChain, [{ target: golem.address, value: parseEther('0.01'), callData: '0x' }])
    expect(await devnet.publicClient.getBalance({ address: owner.address })).toBe(before - parseEther('0.01'))
  })

  it('a re-delegation that outlives the permission is refused off-chain (the golemPhase window end must be before the exclusive expiry)', async () => {
    const [usdcGrant] = wallet.grantedPermissions()
    await expect(redelegate(usdcGrant!, golem.address, BigInt(plan.expiry))).rejects.toThrow(
      /golemPhase end .* is after parent timestamp end/,
    )
  })

  it('the owner revokes every grant at once (NonceEnforcer.incrementNonce, as MetaMask does); a new grant works again', async () => {
    const { NonceEnforcer: nonceEnforcer, ERC20PeriodTransferEnforcer: period } = devnet.deployment.environment.caveatEnforcers
    const dm = devnet.deployment.environment.DelegationManager
    // What the heartbeat reads for a Golem granted this way: the grant's nonce against the owner's current one.
    const root = usdcChain.at(-1)!
    const nonceCaveat = root.caveats.find((c) => c.enforcer.toLowerCase() === nonceEnforcer!.toLowerCase())!
    const request = {
      golemId: 'g',
      golemKey: golem.address,
      chainHashes: usdcChain.map((d) => hashDelegation(d)),
      periodDelegationHash: hashDelegation(root),
      periodTerms: root.caveats.find((c) => c.enforcer.toLowerCase() === period!.toLowerCase())!.terms,
      nonce: { enforcer: nonceEnforcer!, delegator: owner.address, value: hexToBigInt(nonceCaveat.terms) },
    }
    const read = async () => (await readGolems(devnet.publicClient as never, devnet.deployment, [request])).golems[0]!
    expect((await read()).disabled).toBe(false)
    await ownerCalls(devnet, owner, [
      encodeCall(nonceEnforcer!, encodeFunctionData({ abi: NonceEnforcer, functionName: 'incrementNonce', args: [dm] })),
    ])
    // 0 USDC: the day's runway is spent, and the period caveat runs before the nonce caveat.
    const e = await redeemRefused(devnet, golem, usdcChain, [transferCall(devnet.deployment.assets.usdc, golem.address, 0n)])
    expect(e).toMatchObject({ name: 'Error', args: ['NonceEnforcer:invalid-nonce'] })
    // The next heartbeat's read sees the owner's revocation, though no delegation was disabled.
    expect((await read()).disabled).toBe(true)
    const [fresh] = await grant()
    usdcChain = await redelegate(fresh!)
    await redeem(devnet, golem, usdcChain, [transferCall(devnet.deployment.assets.usdc, golem.address, 1n)])
  })

  it('the Bardo caveat on the child binds: a Terminal Golem is refused (GolemPhase), though the permission allows the transfer', async () => {
    await updatePhase(devnet, golem, PHASE.Terminal, 0)
    await expectRefused(
      devnet,
      golem,
      usdcChain,
      [transferCall(devnet.deployment.assets.usdc, golem.address, 1n)],
      'ActionNotAllowedInPhase',
      [golem.address, PHASE.Terminal, SELECTOR.transfer, 0x04],
    )
  })
})
