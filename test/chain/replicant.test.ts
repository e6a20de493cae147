// The Replicant path end to end on anvil: the Golem (an in-memory session key behind core/custody's
// GolemSigner) sub-delegates a narrow slice (core/delegations buildReplicantDelegation, signed with
// GolemSigner.signDelegation); the Replicant redeems within its budget and is refused over its
// ReplicantBudget, after its lifespan, once the Golem is Stable (GolemPhase SUBDELEGATION), and when it
// tries to pass its authority on (RedeemerEnforcer).
import { createDelegation, type Delegation } from '@metamask/smart-accounts-kit'
import { generateSalt } from '@metamask/smart-accounts-kit/utils'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { parseEther } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as artifacts from '../../contracts/artifacts/index.ts'
import { toStandardCaveat, type TokenFeed } from '../../core/caveats/index.ts'
import { createGolemSigner } from '../../adapters/signers/index.ts'
import { SessionKey, type GolemSigner } from '../../core/custody/index.ts'
import {
  buildGolemDelegation,
  buildReplicantDelegation,
  signedDelegationSigner,
  smartAccountSigner,
  type DelegationTree,
} from '../../core/delegations/index.ts'
import { startDevnet, type Devnet, type OwnerAccount } from '../../local/devnet.ts'
import {
  PHASE,
  SELECTOR,
  USD,
  USDC,
  chainNow,
  expectRefused,
  keySigner,
  newKey,
  newTree,
  redeem,
  redeemRefused,
  refreshFeeds,
  registerGolem,
  transferCall,
  usdcBalance,
  waitOk,
  walletFor,
} from './harness.ts'

let devnet: Devnet
let owner: OwnerAccount
let golem: GolemSigner
let tree: DelegationTree
let parentHash: `0x${string}`
let feeds: TokenFeed[]
let endTime: bigint
const payee = privateKeyToAccount(generatePrivateKey()).address

beforeAll(async () => {
  devnet = await startDevnet()
  owner = await devnet.createOwner()
  const { environment, vitalityOracle, dreamOracle, daimonOracle, assets } = devnet.deployment
  const now = await chainNow(devnet)
  endTime = now + 30n * 86_400n
  const sessionKey = SessionKey.generate({ expiresAt: Number(endTime), initialBudget: 0n, now: Number(now) })
  ;({ signer: golem } = await createGolemSigner(
    { mode: 'Delegation', smartAccount: owner.address, caveatEnforcers: [] },
    {
      sessionKey,
      policy: {
        chainId: devnet.chain.id,
        delegationManager: environment.DelegationManager,
        oracles: { vitality: vitalityOracle, dream: dreamOracle, daimon: daimonOracle },
      },
    },
  ))
  await waitOk(devnet, devnet.deployer.sendTransaction({ to: golem.address, value: parseEther('1') }))
  await registerGolem(devnet, golem.address)
  feeds = [{ token: assets.usdc, decimals: 6, feed: assets.usdcUsdFeed }]

  // The owner's grant to the Golem: its USDC runway (transfers, period-capped), its phase gate and its deadline.
  tree = newTree(devnet, now)
  const { runway } = buildGolemDelegation({
    tree,
    owner: owner.address,
    golem: golem.address,
    bardo: [{ type: 'golemPhase', golem: golem.address, startTime: now, endTime }],
    runway: { token: assets.usdc, periodAmount: USDC(1_000), periodDuration: 86_400, startDate: Number(now) },
  })
  parentHash = runway!.hash
  await tree.sign(parentHash, smartAccountSigner(owner.smartAccount))
})
afterAll(async () => devnet?.stop())

/** The Golem spawns a Replicant: $50 over a 10-minute life from first use, at most 5 calls. */
async function spawn(replicant: PrivateKeyAccount) {
  const now = await chainNow(devnet)
  const built = buildReplicantDelegation({
    tree,
    parent: parentHash,
    replicant: replicant.address,
    budget: { maxBudgetUsd: USD(50), maxLifespanSeconds: 600n, maxPriceAge: 86_400, feeds },
    maxCalls: 5,
    window: { startTime: now, endTime },
  })
  await tree.sign(built.hash, signedDelegationSigner(golem))
  return tree.chain(built.hash)
}

const pay = (amount: bigint) => [transferCall(devnet.deployment.assets.usdc, payee, amount)]

describe('Replicant on anvil', () => {
  let replicant: PrivateKeyAccount
  let replicantKey: `0x${string}`
  let chain: Delegation[]

  it('the Golem signs the sub-delegation with its GolemSigner; the Replicant redeems within its budget', async () => {
    await refreshFeeds(devnet)
    ;({ account: replicant, privateKey: replicantKey } = await newKey(devnet))
    chain = await spawn(replicant)
    expect(chain.map((d) => d.delegate)).toEqual([replicant.address, golem.address])
    expect(chain[0]!.delegator).toBe(golem.address)
    await redeem(devnet, replicant, chain, pay(USDC(20)))
    expect(await usdcBalance(devnet, payee)).toBe(USDC(20))
  })

  it('is refused over its ReplicantBudget', async () => {
    await expectRefused(devnet, replicant, chain, pay(USDC(40)), 'ReplicantBudgetExceeded', [USD(20), USD(40), USD(50)])
    await redeem(devnet, replicant, chain, pay(USDC(30)))
    await expectRefused(devnet, replicant, chain, pay(1n), 'ReplicantBudgetExceeded', [USD(50), 1n, USD(50)])
  })

  it('cannot pass its authority on: a further sub-delegation fails the RedeemerEnforcer', async () => {
    const grandchild = await newKey(devnet)
    const draft = createDelegation({
      environment: devnet.deployment.environment,
      from: replicant.address,
      to: grandchild.account.address,
      parentDelegation: chain[0]!,
      caveats: [toStandardCaveat({ type: 'limitedCalls', limit: 1n }, devnet.deployment.environment)],
      salt: generateSalt(),
    })
    const signature = await keySigner(devnet, replicantKey)(draft)
    const e = await redeemRefused(devnet, grandchild.account, [{ ...draft, signature }, ...chain], pay(0n))
    expect(e).toMatchObject({ name: 'Error', args: ['RedeemerEnforcer:unauthorized-redeemer'] })
  })

  it('is refused after its lifespan (ReplicantBudget: from its first redemption)', async () => {
    const young = await devnet.fundedAccount()
    const youngChain = await spawn(young)
    await redeem(devnet, young, youngChain, pay(USDC(1)))
    await devnet.increaseTime(601)
    const e = await expectRefused(devnet, young, youngChain, pay(USDC(1)), 'ReplicantExpired')
    expect(e.args[0] as bigint).toBeGreaterThan(e.args[1] as bigint)
  })

  it('is refused once the Golem reports Stable (no sub-delegation after Thriving); the Golem itself still transfers', async () => {
    await refreshFeeds(devnet)
    const late = await devnet.fundedAccount()
    const lateChain = await spawn(late)
    await redeem(devnet, late, lateChain, pay(USDC(1)))
    // The Golem reports its phase from its own key, through the GolemSigner (an oracle update).
    await waitOk(
      devnet,
      walletFor(devnet, golem.account).writeContract({
        address: devnet.deployment.vitalityOracle,
        abi: artifacts.VitalityOracleAbi,
        functionName: 'updatePhase',
        args: [PHASE.Stable, 8_000],
      }),
    )
    await expectRefused(devnet, late, lateChain, pay(USDC(1)), 'ActionNotAllowedInPhase', [
      golem.address,
      PHASE.Stable,
      SELECTOR.transfer,
      0x0c,
    ])
    await redeem(devnet, golem.account, tree.chain(parentHash), pay(USDC(1)))
  })
})
