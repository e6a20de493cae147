// A council proposal a crash left `executing` is settled by the next read or signature, on anvil through
// the real EntryPoint: a user operation that ran is found by its hash and recorded (executed, or
// reverted with the caveat's name), one that never ran is submitted then, and either way the owner's
// money moves exactly once.
import type { Hex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  councilUserOpHash,
  findCouncilExecution,
  precheckCouncilAction,
  readCouncilStandings,
  submitCouncilProposal,
} from '../../adapters/chain/council.ts'
import { InMemoryStore } from '../../adapters/store/memoryStore.ts'
import {
  COUNCIL_EXECUTION_LEASE_MS,
  councilProposalTypedData,
  parseCouncilProposal,
  type CouncilProposal,
} from '../../core/council/index.ts'
import { CouncilService, type CouncilProposalView } from '../../functions/council/councilService.ts'
import { startDevnet, type Devnet } from '../../local/devnet.ts'
import { councilGas, setupCouncil, type CouncilFixture } from './councilHarness.ts'
import { chainNow, revoke, transferCall, USDC, usdcBalance } from './harness.ts'

let devnet: Devnet
let f: CouncilFixture
let store: InMemoryStore
let service: CouncilService
let clock = 1_750_000_000_000
let crashAt: 'claimed' | 'submitted' | undefined
let submissions = 0

class Crash extends Error {}

beforeAll(async () => {
  devnet = await startDevnet()
  f = await setupCouncil(devnet)
  store = new InMemoryStore()
  service = new CouncilService({
    store,
    config: f.config,
    members: async () => f.members,
    threshold: 2,
    delegation: f.delegation,
    standings: (members) =>
      readCouncilStandings({
        publicClient: devnet.publicClient,
        vitalityOracle: devnet.deployment.vitalityOracle,
        members,
        custody: async (id) => f.custody.get(id),
      }),
    chainNow: () => chainNow(devnet),
    gas: () => councilGas(devnet),
    precheck: (p) => precheckCouncilAction(devnet.publicClient, p),
    submit: (proposal, signature) => {
      submissions += 1
      return submitCouncilProposal({ publicClient: devnet.publicClient, submitter: devnet.deployer, proposal, signature })
    },
    clockMs: () => clock,
    blockNumber: () => devnet.publicClient.getBlockNumber({ cacheTime: 0 }),
    findExecution: (proposal, fromBlock) => findCouncilExecution({ publicClient: devnet.publicClient, proposal, fromBlock }),
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

describe('a proposal left executing by a crash', () => {
  it('ran before the crash: the next read after the lease finds its UserOperationEvent and records it executed, never running it again', async () => {
    const view = await propose(USDC(11))
    const before = await balance()
    await crashWhileExecuting(view, 'submitted')
    expect(await balance()).toBe(before + USDC(11))
    // Within the lease the claimant may still be alive: nothing is settled.
    clock += COUNCIL_EXECUTION_LEASE_MS - 1
    expect(await service.get(view.id)).toMatchObject({ status: 'executing' })
    clock += 1
    const submitted = submissions
    const settled = await service.get(view.id)
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
    const [one, two] = await Promise.all([service.get(view.id), service.get(view.id)])
    expect(submissions).toBe(submitted + 1)
    expect([one.status, two.status]).toContain('executed')
    expect(await balance()).toBe(before + USDC(13))
    clock += COUNCIL_EXECUTION_LEASE_MS
    expect(await service.get(view.id)).toMatchObject({ status: 'executed' })
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
      const shown = await service.get(view.id)
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
    const settled = await service.get(view.id)
    expect(settled).toMatchObject({ status: 'reverted', execution: { refusal: { name: 'CannotUseADisabledDelegation' } } })
    expect(await balance()).toBe(before)
  })
})
