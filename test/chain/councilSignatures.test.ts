// One member's unusable signature cannot veto the council, on anvil through the real EntryPoint: a
// high-s copy of a valid signature is refused before it is stored; one stored anyway never reaches the
// chain; and a signer the EntryPoint refuses (the council replaced its key on-chain) is dropped and the
// remaining signatures execute when they still make the threshold.
import { MultiSigDeleGator } from '@metamask/delegation-abis'
import { encodeFunctionData, getAddress, type Hex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { InMemoryStore } from '../../adapters/store/memoryStore.ts'
import { councilProposalTypedData, councilUserOperationTypedData, parseCouncilProposal } from '../../core/council/index.ts'
import { highS } from '../support/council/signatures.ts'
import { CouncilService, type CouncilProposalView } from '../../app/council/councilService.ts'
import { startDevnet, type Devnet } from '../../local/devnet.ts'
import { councilChainDeps, councilSelfCall, handleCouncilOps, setupCouncil, type CouncilFixture } from './councilHarness.ts'
import { chainNow, transferCall, USDC, usdcBalance } from './harness.ts'

let devnet: Devnet
let f: CouncilFixture
let store: InMemoryStore
let service: CouncilService
/** The seats by signer address, lowest first: the MultiSigDeleGator takes signatures in this order. */
let seats: PrivateKeyAccount[]
let submissions = 0

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
      return chain.submit(proposal, signature, onSent)
    },
    clockMs: () => Date.now(),
  })
  seats = [...f.golems].sort((x, y) => (BigInt(x.address) < BigInt(y.address) ? -1 : 1))
}, 120_000)

afterAll(async () => devnet?.stop())

async function propose(amount: bigint): Promise<CouncilProposalView> {
  const action = transferCall(devnet.deployment.assets.usdc, f.treasury, amount)
  return service.propose(seats[2]!.address, action, (await chainNow(devnet)) + 3_600n)
}

const signatureOf = (who: PrivateKeyAccount, view: CouncilProposalView): Promise<Hex> =>
  who.signTypedData(councilProposalTypedData(parseCouncilProposal(view.proposal)))
const sign = async (who: PrivateKeyAccount, view: CouncilProposalView) => service.sign(who.address, view.id, await signatureOf(who, view))
const balance = (): Promise<bigint> => usdcBalance(devnet, f.treasury)

describe('a member’s signature the chain refuses', () => {
  it('is refused when sent (a high-s copy of its own valid signature), storing nothing', async () => {
    const view = await propose(USDC(1))
    const good = await signatureOf(seats[0]!, view)
    await expect(service.sign(seats[0]!.address, view.id, highS(good))).rejects.toMatchObject({
      code: 'COUNCIL_BAD_SIGNATURE',
      message: expect.stringMatching(/^signature: s must be at most n\/2 \(low-s\)/),
    })
    expect(await store.listCouncilSignatures(view.id)).toEqual([])
  })

  it('stored before the rule (a high-s copy by the lowest signer): it never counts, and the two honest signatures execute', async () => {
    const view = await propose(USDC(4))
    const before = await balance()
    const [low, mid, high] = seats as [PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount]
    // As the API stored it before it applied the chain's rule: it recovers to `low` off-chain.
    await store.addCouncilSignature({ proposalId: view.id, signer: low.address, signature: highS(await signatureOf(low, view)), at: 1 })
    const first = await sign(mid, view)
    expect(first).toMatchObject({ status: 'accepted', proposal: { status: 'open', counted: 1 } })
    const second = await sign(high, view)
    expect(second.proposal).toMatchObject({ status: 'executed', counted: 2 })
    expect(second.proposal.signatures.find((s) => s.signer === low.address)).toMatchObject({ counts: false })
    expect(await balance()).toBe(before + USDC(4))
  })

  it('refused by the EntryPoint (the council replaced that signer on-chain): the signer is dropped and the rest execute once they make the threshold', async () => {
    const [gone, mid, high] = seats as [PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount]
    // The council replaces `gone`'s key with a new one; off-chain the seat still counts (its Golem is
    // alive on its current key), so only the chain can say its signature is worth nothing now.
    const next = await devnet.fundedAccount()
    const op = await councilSelfCall(
      devnet,
      f.config,
      encodeFunctionData({ abi: MultiSigDeleGator, functionName: 'replaceSigner', args: [gone.address, next.address] }),
    )
    await handleCouncilOps(devnet, f.config, op, [
      { signer: mid.address, signature: await mid.signTypedData(councilUserOperationTypedData(f.config, op)) },
      { signer: high.address, signature: await high.signTypedData(councilUserOperationTypedData(f.config, op)) },
    ])

    const view = await propose(USDC(6))
    const before = await balance()
    expect(await sign(gone, view)).toMatchObject({ status: 'accepted', proposal: { status: 'open', counted: 1 } })
    const submitted = submissions
    // Two signatures: the EntryPoint refuses `gone`'s, the one left does not make 2 of 3.
    const short = await sign(mid, view)
    expect(submissions).toBe(submitted + 1)
    expect(short.proposal).toMatchObject({
      status: 'rejected',
      execution: {
        reason: expect.stringContaining(`the chain refused ${getAddress(gone.address)}`),
        dropped: [{ signer: getAddress(gone.address), rule: expect.stringContaining('is not a signer of the council') }],
      },
    })
    expect(short.proposal.signatures.find((s) => s.signer === gone.address)).toMatchObject({ counts: false })
    expect(await balance()).toBe(before)
    // The third signature: `gone`'s is refused again and dropped, the other two run it.
    const done = await sign(high, view)
    expect(done.proposal).toMatchObject({
      status: 'executed',
      counted: 2,
      execution: { dropped: [{ signer: getAddress(gone.address) }], txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) },
    })
    expect(await balance()).toBe(before + USDC(6))
  })
})
