// A council proposal left `executing` is settled by the next read or signature, on anvil through the
// real EntryPoint: after a crash between the claim and the outcome, or a transaction sent whose receipt
// did not come in time, the user operation is found (by its transaction's hash, or by its own) and
// recorded (executed, or reverted with the caveat's name), one that never ran is submitted then, and
// either way the owner's money moves exactly once; a proposal that already ran is never recorded refused.
import type { Hex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { councilUserOpHash, findCouncilExecution, submitCouncilProposal } from '../../adapters/chain/council.ts'
import { InMemoryStore } from '../../adapters/store/memoryStore.ts'
import {
  COUNCIL_EXECUTION_LEASE_MS,
  councilProposalTypedData,
  parseCouncilProposal,
  type CouncilProposal,
} from '../../core/council/index.ts'
import { CouncilService, type CouncilProposalView } from '../../app/council/councilService.ts'
import { startDevnet, type Devnet } from '../../local/devnet.ts'
import { councilChainDeps, setupCouncil, type CouncilFixture } from './councilHarness.ts'
import { chainNow, revoke, transferCall, USDC, usdcBalance } from './harness.ts'

let devnet: Devnet
let f: CouncilFixture
let store: InMemoryStore
let service: CouncilService
let clock = 1_750_000_000_000
let crashAt: 'claimed' | 'submitted' | undefined
let submissions = 0
/** How long a submission waits for its receipt; short where a test holds the block back. */
let receiptTimeoutMs: number | undefined

class Crash extends Error {}

beforeAll(async () => {
  devnet = await startDevnet()
  f = await setupCouncil(devnet)
  store = new InMemoryStore()
  const chain = councilChainDeps(devnet, f)
  service = new CouncilService({
    ...chain,
    store,
    submit: (proposal, signature, onSent) => {
      submissions += 1
      return submitCouncilProposal({
        publicClient: devnet.publicClient,
        submitter: devnet.deployer,
        proposal,
        signature,
        onSent,
        receiptTimeoutMs,
      })
    },
    clockMs: () => clock,
    afterClaim: (step) => {
      if (step === crashAt) {
        crashAt = undefined
        throw new Crash(`crashed after the proposal was ${step}`)
      }
    },
  })
}, 120_000)

afterAll(async () => devnet?.stop())

const a = () => f.golems[0] as PrivateKeyAccount
const b = () => f.golems[1] as PrivateKeyAccount
const c = () => f.golems[2] as PrivateKeyAccount

async function propose(amount: bigint): Promise<CouncilProposalView> {
  const action = transferCall(devnet.deployment.assets.usdc, f.treasury, amount)
  return service.propose(a().address, action, (await chainNow(devnet)) + 3_600n)
}

const proposalOf = (view: CouncilProposalView): CouncilProposal => parseCouncilProposal(view.proposal)
const signatureOf = (who: PrivateKeyAccount, view: CouncilProposalView): Promise<Hex> =>
  who.signTypedData(councilProposalTypedData(proposalOf(view)))
const sign = async (who: PrivateKeyAccount, view: CouncilProposalView) => service.sign(who.address, view.id, await signatureOf(who, view))

/** Signs with A, then with B while a crash is injected at `step`: the proposal is left `executing`. */
async function crashWhileExecuting(view: CouncilProposalView, step: 'claimed' | 'submitted'): Promise<void> {
  await sign(a(), view)
  crashAt = step
  await expect(sign(b(), view)).rejects.toBeInstanceOf(Crash)
  expect(await store.getCouncilProposal(view.id)).toMatchObject({ status: 'executing' })
}

const balance = (): Promise<bigint> => usdcBalance(devnet, f.treasury)

/** Holds mining back while `body` runs: a sent transaction stays pending until `mine` is called. */
async function withoutAutomine<T>(body: (mine: () => Promise<void>) => Promise<T>): Promise<T> {
  const automine = (on: boolean) => devnet.publicClient.request({ method: 'evm_setAutomine' as never, params: [on] as never })
  await automine(false)
  try {
    return await body(async () => {
      await devnet.publicClient.request({ method: 'evm_mine' as never, params: [] as never })
    })
  } finally {
    await automine(true)
  }
}

describe('a proposal whose transaction was sent and whose receipt did not come in time', () => {
  it('stays executing with its transaction hash, and a later read records how the chain ended it: executed, or reverted with the refusal named', async () => {
    // Two proposals whose sum passes the USD day ($1,000): each passes the pre-check alone, and in one
    // block the second is refused by DailySpendLimitExceeded.
    const first = await propose(USDC(600))
    const second = await propose(USDC(600))
    const before = await balance()
    await sign(a(), first)
    await sign(a(), second)
    receiptTimeoutMs = 300
    const [sentFirst, sentSecond] = await withoutAutomine(async (mine) => {
      const one = await sign(b(), first)
      const two = await sign(b(), second)
      for (const sent of [one, two]) {
        expect(sent.proposal).toMatchObject({ status: 'executing', execution: { txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) } })
        expect((sent.proposal.execution as { reason: string }).reason).toContain('no receipt yet')
      }
      // Still pending: a read leaves it executing, and a late signature finds it closed.
      expect(await service.get(c().address, first.id)).toMatchObject({ status: 'executing' })
      await expect(sign(c(), first)).rejects.toMatchObject({ code: 'COUNCIL_PROPOSAL_CLOSED' })
      expect(await balance()).toBe(before)
      await mine()
      // The block is out; its receipts are readable a moment later on anvil.
      for (const sent of [one, two])
        await devnet.publicClient.waitForTransactionReceipt({ hash: (sent.proposal.execution as { txHash: Hex }).txHash })
      return [one.proposal, two.proposal]
    })
    receiptTimeoutMs = undefined
    expect(await balance()).toBe(before + USDC(600))
    const submitted = submissions
    // Within the claim's lease, with nobody waiting for the receipt any more: the next read settles it by its hash.
    const executed = await service.get(c().address, first.id)
    expect(executed).toMatchObject({
      status: 'executed',
      execution: { txHash: (sentFirst.execution as { txHash: Hex }).txHash, userOpHash: councilUserOpHash(proposalOf(first)) },
    })
    const { proposals } = await service.list({ limit: 10 })
    expect(proposals.find((p) => p.id === second.id)).toMatchObject({
      status: 'reverted',
      execution: { txHash: (sentSecond.execution as { txHash: Hex }).txHash, refusal: { name: 'DailySpendLimitExceeded' } },
    })
    expect(submissions).toBe(submitted)
    expect(await balance()).toBe(before + USDC(600))
  })

  it('already ran (its outcome was lost): a new submission the EntryPoint refuses for its used nonce records where it ran, not a refusal', async () => {
    const view = await propose(USDC(2))
    const before = await balance()
    await sign(a(), view)
    // The same user operation, signed by A and B, sent by someone else: it runs.
    const proposal = proposalOf(view)
    const aggregate = [a(), b()]
      .sort((x, y) => (BigInt(x.address) < BigInt(y.address) ? -1 : 1))
      .map((k) => k.signTypedData(councilProposalTypedData(proposal)))
    const signature = `0x${(await Promise.all(aggregate)).map((s) => s.slice(2)).join('')}` as Hex
    const ran = await submitCouncilProposal({ publicClient: devnet.publicClient, submitter: devnet.deployer, proposal, signature })
    expect(ran.status).toBe('executed')
    // B's signature completes the threshold here: the EntryPoint refuses the resubmission (AA25), and the
    // proposal is recorded as the chain ran it.
    const signed = await sign(b(), view)
    expect(signed.proposal).toMatchObject({
      status: 'executed',
      execution: { txHash: (ran as { txHash: Hex }).txHash, reason: expect.stringContaining('AA25') },
    })
    expect(await balance()).toBe(before + USDC(2))
  })
})

describe('a proposal left executing by a crash', () => {
  it('ran before the crash: the next read after the lease finds its UserOperationEvent and records it executed, never running it again', async () => {
    const view = await propose(USDC(11))
    const before = await balance()
    await crashWhileExecuting(view, 'submitted')
    expect(await balance()).toBe(before + USDC(11))
    // Within the lease the claimant may still be alive: nothing is settled.
    clock += COUNCIL_EXECUTION_LEASE_MS - 1
    expect(await service.get(a().address, view.id)).toMatchObject({ status: 'executing' })
    clock += 1
    const submitted = submissions
    const settled = await service.get(a().address, view.id)
    expect(settled).toMatchObject({ status: 'executed', counted: 2 })
    const execution = settled.execution as { txHash: Hex; userOpHash: Hex; blockNumber: string }
    expect(execution.userOpHash).toBe(councilUserOpHash(proposalOf(view)))
    const receipt = await devnet.publicClient.getTransactionReceipt({ hash: execution.txHash })
    expect(receipt.blockNumber.toString()).toBe(execution.blockNumber)
    expect(submissions).toBe(submitted)
    // A late signature finds it closed; the money moved once.
    await expect(sign(c(), view)).rejects.toMatchObject({ code: 'COUNCIL_PROPOSAL_CLOSED' })
    expect(await balance()).toBe(before + USDC(11))
  })

  it('crashed before submission: two reads at once after the lease submit it once, and it executes exactly once', async () => {
    const view = await propose(USDC(13))
    const before = await balance()
    await crashWhileExecuting(view, 'claimed')
    expect(await balance()).toBe(before)
    expect(await findCouncilExecution({ publicClient: devnet.publicClient, proposal: proposalOf(view) })).toEqual({ status: 'not-run' })
    clock += COUNCIL_EXECUTION_LEASE_MS
    const submitted = submissions
    const [one, two] = await Promise.all([service.get(a().address, view.id), service.get(a().address, view.id)])
    expect(submissions).toBe(submitted + 1)
    expect([one.status, two.status]).toContain('executed')
    expect(await balance()).toBe(before + USDC(13))
    clock += COUNCIL_EXECUTION_LEASE_MS
    expect(await service.get(a().address, view.id)).toMatchObject({ status: 'executed' })
    expect(submissions).toBe(submitted + 1)
    expect(await balance()).toBe(before + USDC(13))
  })

  it('crashed before submission and its signatures no longer count: a signature after the lease releases it, and it runs once when k count again', async () => {
    const view = await propose(USDC(3))
    const before = await balance()
    await crashWhileExecuting(view, 'claimed')
    // B's Golem begins dying: only A's signature counts now.
    f.custody.set('golem-1', { lifecycle: 'dying', currentKey: b().address })
    try {
      clock += COUNCIL_EXECUTION_LEASE_MS
      const shown = await service.get(a().address, view.id)
      expect(shown).toMatchObject({ status: 'rejected', counted: 1 })
      expect((shown.execution as { reason: string }).reason).toContain('released')
    } finally {
      f.custody.set('golem-1', { lifecycle: 'alive', currentKey: b().address })
    }
    expect(await balance()).toBe(before)
    const signed = await sign(c(), view)
    expect(signed.proposal).toMatchObject({ status: 'executed' })
    expect(await balance()).toBe(before + USDC(3))
  })

  it('reverted before the crash (the owner revoked the council): it is recorded reverted with the refusal named', async () => {
    const view = await propose(USDC(5))
    await revoke(devnet, f.owner, f.delegation)
    const before = await balance()
    await crashWhileExecuting(view, 'submitted')
    clock += COUNCIL_EXECUTION_LEASE_MS
    const settled = await service.get(a().address, view.id)
    expect(settled).toMatchObject({ status: 'reverted', execution: { refusal: { name: 'CannotUseADisabledDelegation' } } })
    expect(await balance()).toBe(before)
  })
})
