// Delegation chains on-chain: owner -> Golem -> Replicant. A child cannot widen its parent (the parent's
// caveats run on every redemption through the child), core/delegations refuses to build the looser
// child at all, and the owner's one-transaction revocation kills the whole subtree.
import { createDelegation, type Delegation } from '@metamask/smart-accounts-kit'
import { generateSalt, hashDelegation } from '@metamask/smart-accounts-kit/utils'
import { DelegationManager } from '@metamask/delegation-abis'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AttenuationError, toCaveat, type TokenFeed } from '../../core/caveats/index.ts'
import { buildGolemDelegation, smartAccountSigner, type DelegationTree } from '../../core/delegations/index.ts'
import { startDevnet, type Devnet, type OwnerAccount } from '../../local/devnet.ts'
import {
  USD,
  USDC,
  chainNow,
  expectRefused,
  keySigner,
  newKey,
  newTree,
  redeem,
  refreshFeeds,
  registerGolem,
  revoke,
  transferCall,
  usdcBalance,
  waitOk,
  walletFor,
} from './harness.ts'

let devnet: Devnet
let owner: OwnerAccount
let golemKey: { privateKey: `0x${string}`; account: PrivateKeyAccount }
let replicant: PrivateKeyAccount
let tree: DelegationTree
let parent: Delegation
let child: Delegation
let feeds: TokenFeed[]
const payee = privateKeyToAccount(generatePrivateKey()).address

beforeAll(async () => {
  devnet = await startDevnet()
  owner = await devnet.createOwner()
  // Noon UTC chain time: every DailySpendLimit redemption of this file falls on one day.
  const now = await chainNow(devnet)
  await devnet.increaseTime((now / 86_400n + 1n) * 86_400n + 43_200n - now)
  await refreshFeeds(devnet)
  golemKey = await newKey(devnet)
  await registerGolem(devnet, golemKey.account.address)
  replicant = await devnet.fundedAccount()
  feeds = [{ token: devnet.deployment.assets.usdc, decimals: 6, feed: devnet.deployment.assets.usdcUsdFeed }]
})
afterAll(async () => devnet?.stop())

const pay = (amount: bigint) => [transferCall(devnet.deployment.assets.usdc, payee, amount)]

describe('depth-2 chain owner -> Golem -> Replicant', () => {
  it('builds the parent through core/delegations: $100/day DailySpendLimit on USDC transfers', async () => {
    const now = await chainNow(devnet)
    tree = newTree(devnet, now)
    const golem = golemKey.account.address
    const { runway } = buildGolemDelegation({
      tree,
      owner: owner.address,
      golem,
      bardo: [{ type: 'golemPhase', golem, startTime: now, endTime: now + 30n * 86_400n }],
      // USDC leaves the owner's account only through the runway (a transfer in actions is refused);
      // its period is loose here so that the DailySpendLimit is what binds.
      runway: {
        token: devnet.deployment.assets.usdc,
        periodAmount: USDC(1_000),
        periodDuration: 86_400,
        startDate: Number(now),
        bardo: [{ type: 'dailySpendLimit', dailyLimitUsd: USD(100), maxPriceAge: 86_400, feeds }],
      },
    })
    parent = await tree.sign(runway!.hash, smartAccountSigner(owner.smartAccount))
  })

  it("core/delegations refuses a child whose cap is looser than the parent's (off-chain)", () => {
    const looser = childDelegation(USD(1_000))
    expect(() => tree.add(looser)).toThrow(AttenuationError)
    expect(() => tree.add(looser)).toThrow('Child dailySpendLimit $1,000.00/day exceeds parent dailySpendLimit $100.00/day.')
  })

  it("the looser child, built and signed with the raw kit, does not help: above the parent's cap reverts with the PARENT's limit", async () => {
    const draft = childDelegation(USD(1_000))
    child = { ...draft, signature: await keySigner(devnet, golemKey.privateKey)(draft) }
    const day = (await chainNow(devnet)) / 86_400n
    // The child alone would allow $1,000 today; the parent's $100/day binds.
    await expectRefused(devnet, replicant, [child, parent], pay(USDC(150)), 'DailySpendLimitExceeded', [day, 0n, USD(150), USD(100)])
  })

  it('within both caps the Replicant redeems through [child, parent], and the spend counts against the parent', async () => {
    await redeem(devnet, replicant, [child, parent], pay(USDC(60)))
    expect(await usdcBalance(devnet, payee)).toBe(USDC(60))
    // The Golem's own redemption shares the parent's daily budget with its Replicant.
    const day = (await chainNow(devnet)) / 86_400n
    await expectRefused(devnet, golemKey.account, [parent], pay(USDC(50)), 'DailySpendLimitExceeded', [day, USD(60), USD(50), USD(100)])
    await redeem(devnet, golemKey.account, [parent], pay(USDC(40)))
  })
})

describe('revocation', () => {
  it('the Golem disables its own sub-delegation: the Replicant is refused, the Golem is not', async () => {
    const draft = childDelegation(USD(10))
    const own = { ...draft, signature: await keySigner(devnet, golemKey.privateKey)(draft) }
    const receipt = await waitOk(
      devnet,
      walletFor(devnet, golemKey.account).writeContract({
        address: devnet.deployment.environment.DelegationManager,
        abi: DelegationManager,
        functionName: 'disableDelegation',
        args: [{ ...own, salt: BigInt(own.salt) }],
      }),
    )
    expect(receipt.status).toBe('success')
    await expectRefused(devnet, replicant, [own, parent], pay(1n), 'CannotUseADisabledDelegation', [])
  })

  it('the owner revokes the root through handleOps: the Golem and the Replicant through the child are both refused', async () => {
    await revoke(devnet, owner, parent)
    const dm = devnet.deployment.environment.DelegationManager
    expect(
      await devnet.publicClient.readContract({
        address: dm,
        abi: DelegationManager,
        functionName: 'disabledDelegations',
        args: [hashDelegation(parent)],
      }),
    ).toBe(true)
    await expectRefused(devnet, golemKey.account, [parent], pay(1n), 'CannotUseADisabledDelegation', [])
    await expectRefused(devnet, replicant, [child, parent], pay(1n), 'CannotUseADisabledDelegation', [])
  })
})

/** Golem -> Replicant with its own DailySpendLimit (raw kit: no attenuation check). */
function childDelegation(dailyLimitUsd: bigint): Delegation {
  return createDelegation({
    environment: devnet.deployment.environment,
    from: golemKey.account.address,
    to: replicant.address,
    parentDelegation: parent,
    caveats: [toCaveat({ type: 'dailySpendLimit', dailyLimitUsd, maxPriceAge: 86_400, feeds }, devnet.deployment)],
    salt: generateSalt(),
  })
}
