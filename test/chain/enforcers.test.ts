// Each of the nine Bardo enforcers through the real DelegationManager: one redemption that passes and
// one that reverts with the enforcer's custom error, decoded by name with its numbers checked.
import { encodeFunctionData, erc20Abi, parseEther, parseEventLogs, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { contracts } from '@metamask/smart-accounts-kit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as artifacts from '../../contracts/artifacts/index.ts'
import type { TokenFeed } from '../../core/caveats/index.ts'
import { startDevnet, type Devnet, type OwnerAccount } from '../../local/devnet.ts'
import { encodeCall } from '../../local/ownerActions.ts'
import {
  PHASE,
  SELECTOR,
  USD,
  USDC,
  approveCall,
  chainNow,
  depositCall,
  expectRefused,
  newGolem,
  ownerCalls,
  ownerDelegation,
  redeem,
  redeemAll,
  redeemRefused,
  refreshFeeds,
  refusal,
  revoke,
  seedVault,
  swapCall,
  transferCall,
  updatePhase,
  usdcBalance,
  waitOk,
  walletFor,
} from './harness.ts'

let devnet: Devnet
let owner: OwnerAccount
let usdc: Address
let usdcFeed: TokenFeed
const payee = privateKeyToAccount(generatePrivateKey()).address

beforeAll(async () => {
  devnet = await startDevnet()
  owner = await devnet.createOwner({ usdc: USDC(1_000_000) })
  usdc = devnet.deployment.assets.usdc
  usdcFeed = { token: usdc, decimals: 6, feed: devnet.deployment.assets.usdcUsdFeed }
})
afterAll(async () => devnet?.stop())

const transferTo = (amount: bigint) => [transferCall(usdc, payee, amount)]
const swap = (tokenIn: Address, tokenOut: Address, amountIn: bigint, amountOutMinimum: bigint) =>
  swapCall(devnet, { tokenIn, tokenOut, amountIn, amountOutMinimum, recipient: owner.address })
const usdcTransfers = (): { targets: Address[]; selectors: Hex[] } => ({ targets: [usdc], selectors: [SELECTOR.transfer] })

describe('GolemPhaseEnforcer', () => {
  it('lets a Thriving Golem transfer; refuses a swap once Conservation (no new positions) but still lets it transfer', async () => {
    const golem = await newGolem(devnet)
    const { router } = devnet.deployment.assets
    const d = await ownerDelegation(devnet, owner, golem.address, {
      targets: [usdc, router],
      selectors: [SELECTOR.transfer, SELECTOR.exactInputSingle],
      bardo: [{ type: 'golemPhase', golem: golem.address }],
    })
    await redeem(devnet, golem, [d], transferTo(USDC(1)))
    await updatePhase(devnet, golem, PHASE.Conservation)
    const tenUsdcSwap = swap(usdc, devnet.deployment.assets.weth, USDC(10), 0n)
    await expectRefused(devnet, golem, [d], [tenUsdcSwap], 'ActionNotAllowedInPhase', [
      golem.address,
      PHASE.Conservation,
      SELECTOR.exactInputSingle,
      0x01,
    ])
    await redeem(devnet, golem, [d], transferTo(USDC(1)))
  })

  it("with its life window (36-byte terms): refuses before the window opens and after it closes, with MortalityTimeWindow's errors", async () => {
    const early = await newGolem(devnet)
    const startTime = (await chainNow(devnet)) + 3_600n
    const notYet = await ownerDelegation(devnet, owner, early.address, {
      ...usdcTransfers(),
      bardo: [{ type: 'golemPhase', golem: early.address, startTime, endTime: startTime + 3_600n }],
    })
    const e = await expectRefused(devnet, early, [notYet], transferTo(USDC(1)), 'DelegationNotYetActive')
    expect(e.args[1]).toBe(startTime)
    expect(e.args[0] as bigint).toBeLessThan(startTime)

    const golem = await newGolem(devnet)
    const now = await chainNow(devnet)
    const endTime = now + 120n
    const d = await ownerDelegation(devnet, owner, golem.address, {
      ...usdcTransfers(),
      bardo: [{ type: 'golemPhase', golem: golem.address, startTime: now, endTime }],
    })
    await redeem(devnet, golem, [d], transferTo(USDC(1)))
    await devnet.increaseTime(300)
    const late = await expectRefused(devnet, golem, [d], transferTo(USDC(1)), 'DelegationExpired')
    expect(late.args[1]).toBe(endTime)
    expect(late.args[0] as bigint).toBeGreaterThan(endTime)
  })
})

describe('GolemPhaseEnforcer protected targets', () => {
  it("refuses a call that would re-enable the owner's revoked delegation, through the manager or the owner's own account", async () => {
    const golem = await newGolem(devnet)
    const dm = devnet.deployment.environment.DelegationManager
    const revoked = await ownerDelegation(devnet, owner, golem.address, usdcTransfers())
    await revoke(devnet, owner, revoked)
    // Thriving allows SUBDELEGATION, so the selector table alone admits enableDelegation (0x3ed01015).
    const gated = await ownerDelegation(devnet, owner, golem.address, { bardo: [{ type: 'golemPhase', golem: golem.address }] })
    const enable = contracts.DelegationManager.encode.enableDelegation({ delegation: revoked })
    await expectRefused(devnet, golem, [gated], [{ target: dm, value: 0n, callData: enable }], 'ProtectedTarget', [
      dm,
      '0x3ed01015',
      owner.address,
      dm,
    ])
    await expectRefused(devnet, golem, [gated], [{ target: owner.address, value: 0n, callData: enable }], 'ProtectedTarget', [
      owner.address,
      '0x3ed01015',
      owner.address,
      dm,
    ])
    expect((await refusal(redeem(devnet, golem, [revoked], transferTo(1n)))).name).toBe('CannotUseADisabledDelegation')
  })
})

describe('MortalityTimeWindowEnforcer', () => {
  it('refuses before the window opens', async () => {
    const golem = await newGolem(devnet)
    const startTime = (await chainNow(devnet)) + 3_600n
    const d = await ownerDelegation(devnet, owner, golem.address, {
      ...usdcTransfers(),
      bardo: [{ type: 'mortalityTimeWindow', startTime, endTime: startTime + 3_600n }],
    })
    const e = await expectRefused(devnet, golem, [d], transferTo(USDC(1)), 'DelegationNotYetActive')
    expect(e.args[1]).toBe(startTime)
    expect(e.args[0] as bigint).toBeLessThan(startTime)
  })

  it('passes inside the window and refuses after it (increaseTime past endTime)', async () => {
    const golem = await newGolem(devnet)
    const now = await chainNow(devnet)
    const endTime = now + 120n
    const d = await ownerDelegation(devnet, owner, golem.address, {
      ...usdcTransfers(),
      bardo: [{ type: 'mortalityTimeWindow', startTime: now, endTime }],
    })
    await redeem(devnet, golem, [d], transferTo(USDC(1)))
    await devnet.increaseTime(300)
    const e = await expectRefused(devnet, golem, [d], transferTo(USDC(1)), 'DelegationExpired')
    expect(e.args[1]).toBe(endTime)
    expect(e.args[0] as bigint).toBeGreaterThan(endTime)
  })
})

describe('DreamModeEnforcer', () => {
  it('passes while awake; refuses once the Golem starts dreaming from its own key', async () => {
    const golem = await newGolem(devnet)
    const d = await ownerDelegation(devnet, owner, golem.address, {
      ...usdcTransfers(),
      bardo: [{ type: 'dreamMode', golem: golem.address }],
    })
    await redeem(devnet, golem, [d], transferTo(USDC(1)))
    const { dreamOracle } = devnet.deployment
    await waitOk(
      devnet,
      walletFor(devnet, golem).writeContract({ address: dreamOracle, abi: artifacts.DreamOracleAbi, functionName: 'startDream' }),
    )
    const since = await devnet.publicClient.readContract({
      address: dreamOracle,
      abi: artifacts.DreamOracleAbi,
      functionName: 'dreamingSince',
      args: [golem.address],
    })
    expect(since).toBeGreaterThan(0n)
    await expectRefused(devnet, golem, [d], transferTo(USDC(1)), 'GolemDreaming', [golem.address, since])
  })
})

describe('VaultNAVEnforcer', () => {
  it('passes a deposit within 10% of the vault and refuses one over it', async () => {
    const { vault } = devnet.deployment.assets
    await seedVault(devnet, owner, USDC(100_000))
    const golem = await newGolem(devnet)
    const d = await ownerDelegation(devnet, owner, golem.address, {
      targets: [vault],
      selectors: [SELECTOR.deposit],
      bardo: [{ type: 'vaultNav', vault, maxNavBps: 1_000 }],
    })
    const deposit = (amount: bigint) => [depositCall(devnet, amount, owner.address)]
    await redeem(devnet, golem, [d], deposit(USDC(5_000)))
    // 105,000 in the vault now: 10% is 10,500.
    await expectRefused(devnet, golem, [d], deposit(USDC(20_000)), 'ExceedsVaultNAV', [vault, USDC(20_000), USDC(10_500), USDC(105_000)])
  })

  it('holds the cap across one redeemDelegations call: forty 10% withdrawals are refused, nothing moves; forty 0.25% ones pass', async () => {
    // A vault the owner alone holds, so the withdrawals could really take 98.5% of it.
    const deployed = await waitOk(
      devnet,
      devnet.deployer.deployContract({ abi: artifacts.TestVaultAbi, bytecode: artifacts.TestVaultBytecode, args: [usdc] }),
    )
    const vault = deployed.contractAddress!
    const call = (functionName: 'approve' | 'deposit', args: readonly [Address, bigint] | readonly [bigint, Address]) =>
      encodeCall(
        functionName === 'approve' ? usdc : vault,
        encodeFunctionData({ abi: artifacts.TestVaultAbi, functionName, args } as never),
      )
    await ownerCalls(devnet, owner, [call('approve', [vault, USDC(100_000)]), call('deposit', [USDC(100_000), owner.address])])
    const golem = await newGolem(devnet)
    const d = await ownerDelegation(devnet, owner, golem.address, {
      targets: [vault],
      selectors: ['0xb460af94'],
      bardo: [{ type: 'vaultNav', vault, maxNavBps: 1_000 }],
    })
    const withdraw = (assets: bigint) => ({
      chain: [d],
      executions: [
        {
          target: vault,
          value: 0n,
          callData: encodeFunctionData({
            abi: artifacts.TestVaultAbi,
            functionName: 'withdraw',
            args: [assets, owner.address, owner.address],
          }),
        },
      ],
    })
    const shares = () =>
      devnet.publicClient.readContract({ address: vault, abi: erc20Abi, functionName: 'balanceOf', args: [owner.address] })
    // Each withdrawal is 10% of what the previous left: alone, each is within the cap.
    const tenPercents: bigint[] = []
    for (let left = USDC(100_000), i = 0; i < 40; i++, left -= left / 10n) tenPercents.push(left / 10n)
    const before = await shares()
    const refused = await refusal(redeemAll(devnet, golem, tenPercents.map(withdraw)))
    expect(refused.name).toBe('ExceedsVaultNAV')
    expect(refused.args.slice(1)).toEqual([USDC(10_000) + USDC(9_000), USDC(10_000), USDC(100_000)])
    expect(await shares()).toBe(before)
    await redeemAll(
      devnet,
      golem,
      Array.from({ length: 40 }, () => withdraw(USDC(250))),
    )
    expect(await shares()).toBe(before - USDC(10_000))
  })
})

describe('ReplicantBudgetEnforcer', () => {
  it('passes within the lifetime budget and refuses what would exceed it', async () => {
    await refreshFeeds(devnet)
    const golem = await newGolem(devnet)
    const d = await ownerDelegation(devnet, owner, golem.address, {
      ...usdcTransfers(),
      bardo: [{ type: 'replicantBudget', maxBudgetUsd: USD(50), maxLifespanSeconds: 86_400n, maxPriceAge: 3_600, feeds: [usdcFeed] }],
    })
    await redeem(devnet, golem, [d], transferTo(USDC(30)))
    await expectRefused(devnet, golem, [d], transferTo(USDC(30)), 'ReplicantBudgetExceeded', [USD(30), USD(30), USD(50)])
    await redeem(devnet, golem, [d], transferTo(USDC(20)))
  })

  it('refuses after the lifespan that started at the first redemption', async () => {
    await refreshFeeds(devnet)
    const golem = await newGolem(devnet)
    const d = await ownerDelegation(devnet, owner, golem.address, {
      ...usdcTransfers(),
      bardo: [{ type: 'replicantBudget', maxBudgetUsd: USD(50), maxLifespanSeconds: 600n, maxPriceAge: 3_600, feeds: [usdcFeed] }],
    })
    const receipt = await redeem(devnet, golem, [d], transferTo(USDC(1)))
    const [activated] = parseEventLogs({ abi: artifacts.ReplicantBudgetEnforcerAbi, logs: receipt.logs, eventName: 'ReplicantActivated' })
    const expiresAt = activated!.args.expiresAt
    await devnet.increaseTime(700)
    const e = await expectRefused(devnet, golem, [d], transferTo(USDC(1)), 'ReplicantExpired')
    expect(e.args[1]).toBe(expiresAt)
    expect(e.args[0] as bigint).toBeGreaterThan(expiresAt)
  })
})

describe('MaxSlippageEnforcer', () => {
  it('passes a router swap with a tight amountOutMinimum and refuses one whose minimum allows 10% slippage', async () => {
    await refreshFeeds(devnet)
    const { router, weth, ethUsdFeed } = devnet.deployment.assets
    const golem = await newGolem(devnet)
    const d = await ownerDelegation(devnet, owner, golem.address, {
      targets: [usdc, router],
      selectors: [SELECTOR.approve, SELECTOR.exactInputSingle],
      bardo: [
        { type: 'maxSlippage', maxSlippageBps: 50, maxPriceAge: 3_600, feeds: [usdcFeed, { token: weth, decimals: 18, feed: ethUsdFeed }] },
      ],
    })
    const wethBefore = await devnet.publicClient.readContract({
      address: weth,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [owner.address],
    })
    // AllowedTargets/AllowedMethods admit single calls only, so approve and swap are two redemptions in one transaction.
    await redeemAll(devnet, golem, [
      { chain: [d], executions: [approveCall(usdc, router, USDC(3_000))] },
      { chain: [d], executions: [swap(usdc, weth, USDC(3_000), parseEther('0.999'))] },
    ])
    const wethAfter = await devnet.publicClient.readContract({
      address: weth,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [owner.address],
    })
    expect(wethAfter - wethBefore).toBe(parseEther('0.9995')) // 1 WETH at feed prices minus the 0.05% pool fee
    // 3,000 USDC at $1 for WETH at $3,000 is 1 WETH expected; a 0.9 WETH minimum is 1,000 bps of slippage.
    await expectRefused(devnet, golem, [d], [swap(usdc, weth, USDC(3_000), parseEther('0.9'))], 'SlippageExceeded', [
      parseEther('1'),
      parseEther('0.9'),
      1_000n,
      50n,
    ])
  })
})

describe('DailySpendLimitEnforcer', () => {
  it('passes under the daily cap and refuses what would exceed it today', async () => {
    // Start at noon UTC (chain time) so both redemptions fall on the same day.
    const now = await chainNow(devnet)
    await devnet.increaseTime((now / 86_400n + 1n) * 86_400n + 43_200n - now)
    await refreshFeeds(devnet)
    const golem = await newGolem(devnet)
    const d = await ownerDelegation(devnet, owner, golem.address, {
      ...usdcTransfers(),
      bardo: [{ type: 'dailySpendLimit', dailyLimitUsd: USD(100), maxPriceAge: 3_600, feeds: [usdcFeed] }],
    })
    await redeem(devnet, golem, [d], transferTo(USDC(60)))
    const day = (await chainNow(devnet)) / 86_400n
    await expectRefused(devnet, golem, [d], transferTo(USDC(60)), 'DailySpendLimitExceeded', [day, USD(60), USD(60), USD(100)])
  })

  it('refuses a stale price (feed updated two hours ago, maxPriceAge one hour)', async () => {
    const feed = await deployFeed(devnet)
    const updatedAt = (await chainNow(devnet)) - 7_200n
    await waitOk(
      devnet,
      devnet.deployer.writeContract({
        address: feed,
        abi: artifacts.MockPriceFeedAbi,
        functionName: 'setRoundData',
        args: [10n ** 8n, updatedAt],
      }),
    )
    const golem = await newGolem(devnet)
    const d = await ownerDelegation(devnet, owner, golem.address, {
      ...usdcTransfers(),
      bardo: [{ type: 'dailySpendLimit', dailyLimitUsd: USD(100), maxPriceAge: 3_600, feeds: [{ token: usdc, decimals: 6, feed }] }],
    })
    await expectRefused(devnet, golem, [d], transferTo(USDC(1)), 'StalePrice', [feed, updatedAt, 3_600n])
  })
})

async function deployFeed(devnet: Devnet): Promise<Address> {
  const receipt = await waitOk(
    devnet,
    devnet.deployer.deployContract({
      abi: artifacts.MockPriceFeedAbi,
      bytecode: artifacts.MockPriceFeedBytecode,
      args: [8, 10n ** 8n, 'USDC / USD (stale)'],
    }),
  )
  return receipt.contractAddress!
}

describe('EmotionalStateEnforcer', () => {
  it('passes a restricted selector at a neutral PAD; refuses it after the Golem reports panic, unrestricted calls still pass', async () => {
    const golem = await newGolem(devnet)
    const d = await ownerDelegation(devnet, owner, golem.address, {
      targets: [usdc],
      selectors: [SELECTOR.transfer, SELECTOR.approve],
      bardo: [
        {
          type: 'emotionalState',
          golem: golem.address,
          minPleasure: -50,
          maxArousal: 70,
          minDominance: -50,
          restrictedSelectors: [SELECTOR.transfer],
        },
      ],
    })
    await redeem(devnet, golem, [d], transferTo(USDC(1)))
    const { daimonOracle } = devnet.deployment
    await waitOk(
      devnet,
      walletFor(devnet, golem).writeContract({
        address: daimonOracle,
        abi: artifacts.DaimonOracleAbi,
        functionName: 'setPAD',
        args: [-80, 90, -60],
      }),
    )
    await expectRefused(devnet, golem, [d], transferTo(USDC(1)), 'EmotionalStateRestriction', [-80, 90, -60, SELECTOR.transfer])
    await redeem(devnet, golem, [d], [approveCall(usdc, payee, 0n)])
  })
})

describe('KnowledgeRoyaltyEnforcer (batch mode)', () => {
  it('passes a sale batch that pays the author 10%; refuses one without, or with too little, royalty', async () => {
    const golem = await newGolem(devnet)
    const author = privateKeyToAccount(generatePrivateKey()).address
    const seller2 = privateKeyToAccount(generatePrivateKey()).address
    // No functionCall scope: AllowedTargets/AllowedMethods would refuse the batch call type.
    const d = await ownerDelegation(devnet, owner, golem.address, {
      bardo: [
        { type: 'golemPhase', golem: golem.address },
        { type: 'knowledgeRoyalty', token: usdc, author, royaltyBps: 1_000 },
      ],
    })
    await redeem(devnet, golem, [d], [transferCall(usdc, payee, USDC(100)), transferCall(usdc, author, USDC(10))])
    expect(await usdcBalance(devnet, author)).toBe(USDC(10))
    await expectRefused(devnet, golem, [d], [transferCall(usdc, payee, USDC(60)), transferCall(usdc, seller2, USDC(40))], 'RoyaltyUnpaid', [
      USDC(10),
      0n,
    ])
    await expectRefused(devnet, golem, [d], [transferCall(usdc, payee, USDC(100)), transferCall(usdc, author, USDC(5))], 'RoyaltyUnpaid', [
      USDC(10),
      USDC(5),
    ])
  })
})

describe('framework facts the suites rely on', () => {
  it('a caveat revert is bubbled by the DelegationManager unwrapped; functionCall-scoped delegations refuse batch mode', async () => {
    const golem = await newGolem(devnet)
    const d = await ownerDelegation(devnet, owner, golem.address, usdcTransfers())
    const e = await redeemRefused(devnet, golem, [d], [transferCall(usdc, payee, 1n), transferCall(usdc, payee, 1n)])
    expect(e).toMatchObject({ name: 'Error', args: ['CaveatEnforcer:invalid-call-type'] })
    // The owner's revocation is one user operation; afterwards the DelegationManager itself refuses.
    await revoke(devnet, owner, d)
    expect((await refusal(redeem(devnet, golem, [d], transferTo(1n)))).name).toBe('CannotUseADisabledDelegation')
  })
})
