// Bugs found by the on-chain suites, each kept as a regression test of the behaviour a user expects.
// Details: the "On-chain verification" section of docs/delegations.md.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DelegationShapeError, buildGolemDelegation, encodeRedemptions, smartAccountSigner } from '../../core/delegations/index.ts'
import { startDevnet, type Devnet, type OwnerAccount } from '../../local/devnet.ts'
import { USDC, chainNow, newGolem, newTree, redeemAll, transferCall } from './harness.ts'

let devnet: Devnet
let owner: OwnerAccount
beforeAll(async () => {
  devnet = await startDevnet()
  owner = await devnet.createOwner()
})
afterAll(async () => devnet?.stop())

describe('core/delegations/redeem.ts encodeRedemptions', () => {
  // Was a bug: a redemption with more than one execution was encoded in batch mode, but every slot
  // buildGolemDelegation builds holds framework enforcers that admit single calls only (AllowedTargets,
  // AllowedMethods, ValueLte, ERC20PeriodTransfer: "CaveatEnforcer:invalid-call-type"), as does every
  // ERC-7715 grant. encodeRedemptions now splits into single-call redemptions on the same chain unless
  // `mode: 'batch'` is asked for.
  it("a two-call redemption through a Golem grant's runway slot is either refused off-chain or succeeds on-chain", async () => {
    const golem = await newGolem(devnet)
    const now = await chainNow(devnet)
    const tree = newTree(devnet, now)
    const { usdc } = devnet.deployment.assets
    const { runway } = buildGolemDelegation({
      tree,
      owner: owner.address,
      golem: golem.address,
      bardo: [{ type: 'golemPhase', golem: golem.address, startTime: now, endTime: now + 86_400n }],
      runway: { token: usdc, periodAmount: USDC(10), periodDuration: 86_400, startDate: Number(now) },
    })
    await tree.sign(runway!.hash, smartAccountSigner(owner.smartAccount))
    const chain = tree.chain(runway!.hash)
    const executions = [transferCall(usdc, golem.address, USDC(1)), transferCall(usdc, golem.address, USDC(2))]
    let encoded = false
    try {
      encodeRedemptions([{ chain, executions }])
      encoded = true
    } catch (error) {
      expect(error).toBeInstanceOf(DelegationShapeError)
    }
    if (encoded) await redeemAll(devnet, golem, [{ chain, executions }])
  })
})
