// The owner's side of ERC-7715 with MetaMask's own permissions Snap: @metamask/gator-permissions-snap
// 0.7.0 from npm, unmodified, runs in the Snaps simulator and grants Bardo's runway request for an
// EIP-7702 owner on the anvil devnet. The owner lowers the runway amount in the Snap's dialog; Bardo
// reads what was granted (readGrantedRunway), re-delegates it to the Golem's key and redeems it
// through the real DelegationManager; the owner's NonceEnforcer increment then revokes it.
//
// The simulator is @metamask/snaps-simulation, which is what snaps-jest runs, driven from vitest: jest
// would need its own TypeScript and ESM transform to load the anvil harness (local/devnet.ts), and this
// way the Snap and the chain share one test process (test/support/gatorSnap.ts answers the wallet calls
// the simulator does not, and stands in for profile sync).
import { NonceEnforcer } from '@metamask/delegation-abis'
import { getAddress, type Hex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildRunwayRedelegation } from '../../core/delegations/index.ts'
import { readGrantedRunway, toErc7715Request, type GrantedRunway, type PermissionPlan } from '../../core/permissions/index.ts'
import { WALLET_PERIOD_PRESETS } from '../../core/permissions/erc7715.ts'
import { startDevnet, type Devnet, type OwnerAccount } from '../../local/devnet.ts'
import {
  USDC,
  chainNow,
  compileLocalPlan,
  keySigner,
  newGolem,
  newKey,
  newTree,
  redeem,
  redeemRefused,
  transferCall,
  usdcBalance,
  waitOk,
  walletFor,
} from '../chain/harness.ts'
import { element, startGatorWallet, type GatorWallet } from '../support/gatorSnap.ts'

const DAY = 86_400

let devnet: Devnet
let owner: OwnerAccount
let session: { privateKey: Hex; account: PrivateKeyAccount }
let golem: PrivateKeyAccount
let plan: PermissionPlan
let wallet: GatorWallet

beforeAll(async () => {
  devnet = await startDevnet()
  owner = await devnet.createWalletOwner()
  session = await newKey(devnet)
  golem = await newGolem(devnet)
  plan = compileLocalPlan(devnet, {
    text: '---\nbudget: $25/day\nrunway_days: 30\n---\nRunway only.',
    owner: owner.address,
    sessionKey: session.account.address,
    now: await chainNow(devnet),
  })
  wallet = await startGatorWallet({ publicClient: devnet.publicClient as never, chainId: devnet.chain.id, owner })
}, 120_000)

afterAll(async () => {
  await wallet?.close()
  await devnet?.stop()
})

describe("MetaMask's permissions Snap 0.7.0 grants Bardo's runway for a 7702 owner", () => {
  let granted: GrantedRunway
  let chain: Awaited<ReturnType<ReturnType<typeof buildRunwayRedelegation>['chain']>>

  it('the owner lowers the runway amount in the dialog and grants; Bardo reads the lowered amount, the daily preset and the nonce', async () => {
    // The runway's dialog: the owner types 10 (USDC a day) over the requested 25; the gas's is granted as asked.
    const result = await wallet.grant(toErc7715Request(plan), { runwayAmount: '10' })
    const [runwayDialog] = wallet.dialogs
    expect(element(runwayDialog!.shown, 'erc20-token-periodic-period-amount')?.props).toMatchObject({ value: '25' })
    expect(element(runwayDialog!.granted, 'erc20-token-periodic-period-amount')?.props).toMatchObject({ value: '10' })

    granted = readGrantedRunway({
      granted: result,
      request: toErc7715Request(plan),
      environment: devnet.deployment.environment,
      now: Number(await chainNow(devnet)),
      minimumLifeSeconds: 7 * DAY,
    })
    expect(granted.runway).toMatchObject({
      token: getAddress(devnet.deployment.assets.usdc),
      periodAmount: USDC(10),
      periodDuration: WALLET_PERIOD_PRESETS.daily,
      delegator: owner.address,
      delegate: session.account.address,
      nonce: 0n,
      // The expiry rule is not adjustable: the Snap granted the plan's.
      expiry: plan.expiry,
    })
    expect(granted.gas).toMatchObject({
      token: null,
      periodAmount: plan.dailyGasCap,
      periodDuration: WALLET_PERIOD_PRESETS.daily,
      nonce: 0n,
    })
    // The Snap stored the grant with profile sync (signed in through the message-signing Snap's key).
    expect(wallet.profileSync).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^GET authentication\.api\.cx\.metamask\.io\/api\/v2\/nonce$/),
        expect.stringMatching(/^POST authentication\.api\.cx\.metamask\.io\/api\/v2\/srp\/login$/),
        expect.stringMatching(/^POST oidc\.api\.cx\.metamask\.io\/oauth2\/token$/),
        expect.stringMatching(/^PUT user-storage\.api\.cx\.metamask\.io\/api\/v1\/userstorage\//),
      ]),
    )
  })

  it("Bardo re-delegates the granted context to the Golem's key; it moves USDC within the lowered amount, and more is refused", async () => {
    const now = await chainNow(devnet)
    const tree = newTree(devnet, now)
    const r = buildRunwayRedelegation({
      tree,
      permission: { context: granted.runway.chain },
      executionKey: golem.address,
      bardo: [
        {
          type: 'golemPhase',
          golem: golem.address,
          startTime: BigInt(plan.startTime),
          endTime: BigInt((granted.runway.expiry ?? plan.expiry) - 1),
        },
      ],
    })
    await tree.sign(r.child.hash, keySigner(devnet, session.privateKey))
    chain = r.chain()
    expect(chain).toHaveLength(2)
    const { usdc } = devnet.deployment.assets
    const before = await usdcBalance(devnet, owner.address)
    await redeem(devnet, golem, chain, [transferCall(usdc, golem.address, USDC(6))])
    expect(await usdcBalance(devnet, golem.address)).toBe(USDC(6))
    expect(await usdcBalance(devnet, owner.address)).toBe(before - USDC(6))
    // 6 + 5 is over the 10 the owner granted, though under the 25 Bardo asked for.
    const e = await redeemRefused(devnet, golem, chain, [transferCall(usdc, golem.address, USDC(5))])
    expect(e).toMatchObject({ name: 'Error', args: ['ERC20PeriodTransferEnforcer:transfer-amount-exceeded'] })
    await redeem(devnet, golem, chain, [transferCall(usdc, golem.address, USDC(4))])
    expect(await usdcBalance(devnet, golem.address)).toBe(USDC(10))
  })

  it('the owner increments its NonceEnforcer nonce from its own account; the next redemption is refused', async () => {
    const { NonceEnforcer: nonceEnforcer } = devnet.deployment.environment.caveatEnforcers
    const manager = devnet.deployment.environment.DelegationManager
    await waitOk(
      devnet,
      walletFor(devnet, owner.signer).writeContract({
        address: nonceEnforcer!,
        abi: NonceEnforcer,
        functionName: 'incrementNonce',
        args: [manager],
      }),
    )
    // A new day, so the period transfer would allow it: the nonce alone refuses.
    await devnet.increaseTime(DAY)
    const e = await redeemRefused(devnet, golem, chain, [transferCall(devnet.deployment.assets.usdc, golem.address, USDC(1))])
    expect(e).toMatchObject({ name: 'Error', args: ['NonceEnforcer:invalid-nonce'] })
  })
})
