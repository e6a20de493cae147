// The Coordination Council on anvil, through the real DelegationManager and EntryPoint: the owner
// delegates to a MultiSig DeleGator whose signers are three Golems' session keys (2 of 3); a proposal
// runs once when two counting members signed it, and never beyond its caveats or after revocation.
import type { Delegation, MetaMaskSmartAccount } from '@metamask/smart-accounts-kit'
import { MultiSigDeleGator } from '@metamask/delegation-abis'
import { encodeFunctionData, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as artifacts from '../../contracts/artifacts/index.ts'
import {
  findCouncilSignatureFaults,
  precheckCouncilAction,
  readCouncilStandings,
  submitCouncilProposal,
} from '../../adapters/chain/council.ts'
import { highS } from '../support/council/signatures.ts'
import {
  checkCouncilProposal,
  councilProposalTypedData,
  councilUserOperationTypedData,
  countingSigners,
  judgeCouncilSignature,
  judgeMembers,
  tallyCouncilSignatures,
  type CouncilConfig,
  type CouncilMember,
  type CouncilProposal,
  type CouncilSignature,
} from '../../core/council/index.ts'
import { startDevnet, type Devnet, type OwnerAccount } from '../../local/devnet.ts'
import {
  councilSelfCall,
  deployCouncil,
  grantCouncil,
  handleCouncilOps,
  proposeTransfer,
  setupCouncil,
  type CouncilFixture,
} from './councilHarness.ts'
import { chainNow, newGolem, revoke, USD, USDC, usdcBalance, waitOk } from './harness.ts'

let devnet: Devnet
let f: CouncilFixture
let owner: OwnerAccount
let golems: PrivateKeyAccount[]
let members: CouncilMember[]
let council: MetaMaskSmartAccount
let config: CouncilConfig
let delegation: Delegation
let treasury: Address
let custody: CouncilFixture['custody']
const stranger = privateKeyToAccount(generatePrivateKey()).address

beforeAll(async () => {
  devnet = await startDevnet()
  f = await setupCouncil(devnet)
  ;({ owner, golems, members, council, config, delegation, treasury, custody } = f)
}, 120_000)

afterAll(async () => devnet?.stop())

const propose = (to: Address, amount: bigint): Promise<CouncilProposal> => proposeTransfer(devnet, f, to, amount)

const sign = async (proposal: CouncilProposal, who: PrivateKeyAccount): Promise<CouncilSignature> => ({
  signer: who.address,
  signature: await who.signTypedData(councilProposalTypedData(proposal)),
})

async function counting(): Promise<Address[]> {
  const standings = await readCouncilStandings({
    publicClient: devnet.publicClient,
    vitalityOracle: devnet.deployment.vitalityOracle,
    members,
    custody: async (id) => custody.get(id),
  })
  return countingSigners(judgeMembers(members, standings))
}

/** Tallies with the members that count now and submits what the tally aggregates. */
async function tallyAndSubmit(proposal: CouncilProposal, signatures: CouncilSignature[]) {
  const tally = tallyCouncilSignatures({
    signatures,
    counting: await counting(),
    threshold: 2,
    deadline: proposal.deadline,
    now: await chainNow(devnet),
  })
  if (!tally.ready) return { tally, submission: undefined }
  const submission = await submitCouncilProposal({
    publicClient: devnet.publicClient,
    submitter: devnet.deployer,
    proposal,
    signature: tally.aggregate,
  })
  return { tally, submission }
}

/** Submits whatever signatures are given, in the MultiSigDeleGator's order, without the off-chain rule. */
function submitRaw(proposal: CouncilProposal, signatures: CouncilSignature[]) {
  const sorted = [...signatures].sort((a, b) => (BigInt(a.signer) < BigInt(b.signer) ? -1 : 1))
  const signature = `0x${sorted.map((s) => s.signature.slice(2)).join('')}` as Hex
  return submitCouncilProposal({ publicClient: devnet.publicClient, submitter: devnet.deployer, proposal, signature })
}

describe('the council proposal', () => {
  it('is signed as the kit signs a MultiSig user operation, and checks against its own action', async () => {
    const proposal = await propose(treasury, USDC(1))
    checkCouncilProposal(proposal)
    const kitSignature = await council.signUserOperation({ ...proposal.userOperation, chainId: devnet.chain.id })
    expect((await sign(proposal, golems[0]!)).signature).toBe(kitSignature)
    const tampered = { ...proposal, action: { ...proposal.action, target: stranger } }
    expect(() => checkCouncilProposal(tampered)).toThrow(
      'userOperation.callData must redeem the council delegation for exactly the proposed action',
    )
  })
})

describe('k of n on-chain', () => {
  it('refuses 1 of 3: off-chain the tally waits, on-chain the EntryPoint rejects the signature', async () => {
    const proposal = await propose(treasury, USDC(100))
    const one = [await sign(proposal, golems[0]!)]
    const before = await usdcBalance(devnet, treasury)
    const { tally } = await tallyAndSubmit(proposal, one)
    expect(tally).toMatchObject({ ready: false, missing: 1, reason: 'threshold' })
    expect(await submitRaw(proposal, one)).toEqual({ status: 'rejected', reason: 'FailedOp: AA24 signature error', cause: 'signature' })
    expect(await usdcBalance(devnet, treasury)).toBe(before)
  })

  it('executes 2 of 3 exactly once; a duplicate or late signature changes nothing', async () => {
    const proposal = await propose(treasury, USDC(100))
    const [a, b, c] = [await sign(proposal, golems[0]!), await sign(proposal, golems[1]!), await sign(proposal, golems[2]!)]
    const before = await usdcBalance(devnet, treasury)
    // A's signature twice is still one member.
    expect((await tallyAndSubmit(proposal, [a, a])).tally).toMatchObject({ ready: false, missing: 1 })
    const { submission } = await tallyAndSubmit(proposal, [a, a, b])
    expect(submission?.status).toBe('executed')
    expect(await usdcBalance(devnet, treasury)).toBe(before + USDC(100))
    // The same operation again, or with C's late signature instead of B's: the nonce key is spent.
    expect(await submitRaw(proposal, [a, b])).toEqual({
      status: 'rejected',
      reason: 'FailedOp: AA25 invalid account nonce',
      cause: 'nonce',
    })
    expect(await submitRaw(proposal, [a, c])).toEqual({
      status: 'rejected',
      reason: 'FailedOp: AA25 invalid account nonce',
      cause: 'nonce',
    })
    expect(await usdcBalance(devnet, treasury)).toBe(before + USDC(100))
    // And off-chain a signature after the deadline is refused outright.
    const late = await judgeCouncilSignature({
      proposal,
      open: true,
      caller: golems[2]!.address,
      signature: c.signature,
      members,
      counting: await counting(),
      existing: [a, b],
      now: proposal.deadline + 1n,
    })
    expect(late).toMatchObject({ status: 'refused', reason: 'expired' })
  })
})

describe('bounds', () => {
  it('refuses a receiver the delegation does not pin, by AllowedCalldataEnforcer, before and on-chain', async () => {
    const proposal = await propose(stranger, USDC(10))
    expect(await precheckCouncilAction(devnet.publicClient, proposal)).toMatchObject({
      name: 'Error',
      args: ['AllowedCalldataEnforcer:invalid-calldata'],
    })
    const before = await usdcBalance(devnet, owner.address)
    const submission = await submitRaw(proposal, [await sign(proposal, golems[0]!), await sign(proposal, golems[1]!)])
    expect(submission).toMatchObject({ status: 'reverted', refusal: { name: 'Error', args: ['AllowedCalldataEnforcer:invalid-calldata'] } })
    expect(await usdcBalance(devnet, owner.address)).toBe(before)
  })

  it('refuses more than the USD day allows, by DailySpendLimitExceeded with the numbers', async () => {
    const proposal = await propose(treasury, USDC(950))
    const refusal = await precheckCouncilAction(devnet.publicClient, proposal)
    const day = (await chainNow(devnet)) / 86_400n
    expect(refusal?.name).toBe('DailySpendLimitExceeded')
    // $100 went out today in the 2-of-3 test; $950 more would pass $1,000.
    expect(refusal?.args.slice(1)).toEqual([USD(100), USD(950), USD(1_000)])
    expect((refusal?.args[0] as bigint) - day).toBeLessThanOrEqual(1n)
    const submission = await submitRaw(proposal, [await sign(proposal, golems[1]!), await sign(proposal, golems[2]!)])
    expect(submission).toMatchObject({ status: 'reverted', refusal: { name: 'DailySpendLimitExceeded' } })
  })
})

describe('a signature the chain refuses', () => {
  it('a high-s copy of a valid signature recovers off-chain but fails the EntryPoint (AA23), and is named as the one refused', async () => {
    const proposal = await propose(treasury, USDC(1))
    const [a, b] = [await sign(proposal, golems[0]!), await sign(proposal, golems[1]!)]
    const veto = { signer: a.signer, signature: highS(a.signature) }
    const before = await usdcBalance(devnet, treasury)
    expect(await submitRaw(proposal, [veto, b])).toMatchObject({
      status: 'rejected',
      reason: expect.stringContaining('AA23'),
      cause: 'signature',
    })
    expect(await findCouncilSignatureFaults({ publicClient: devnet.publicClient, proposal, signatures: [veto, b] })).toEqual([
      { signer: a.signer, rule: expect.stringMatching(/^signature: s must be at most n\/2 \(low-s\)/) },
    ])
    expect(await usdcBalance(devnet, treasury)).toBe(before)
    expect((await submitRaw(proposal, [a, b])).status).toBe('executed')
  })
})

describe('membership', () => {
  it('does not count a rotated member; the council then replaces its old key, which no longer validates on-chain', async () => {
    const proposal = await propose(treasury, USDC(5))
    const [a, b] = [await sign(proposal, golems[0]!), await sign(proposal, golems[1]!)]
    // Golem 1 rotates its session key: the oracle and custody move to the new key.
    const rotatedOld = golems[1]!
    const next = await devnet.fundedAccount()
    await waitOk(
      devnet,
      devnet.operator.writeContract({
        address: devnet.deployment.vitalityOracle,
        abi: artifacts.VitalityOracleAbi,
        functionName: 'rotateGolemKey',
        args: [rotatedOld.address, next.address],
      }),
    )
    custody.set('golem-1', { lifecycle: 'alive', currentKey: next.address })
    const standings = await readCouncilStandings({
      publicClient: devnet.publicClient,
      vitalityOracle: devnet.deployment.vitalityOracle,
      members,
      custody: async (id) => custody.get(id),
    })
    expect(judgeMembers(members, standings).map((v) => (v.counts ? 'counts' : v.reason))).toEqual(['counts', 'rotated', 'counts'])
    const before = await usdcBalance(devnet, treasury)
    // Off-chain: B's signature is refused, and stored ones stop counting, so nothing is submitted.
    const { tally, submission } = await tallyAndSubmit(proposal, [a, b])
    expect(tally).toMatchObject({ ready: false, missing: 1 })
    expect(submission).toBeUndefined()
    const refused = await judgeCouncilSignature({
      proposal,
      open: true,
      caller: rotatedOld.address,
      signature: b.signature,
      members,
      counting: countingSigners(judgeMembers(members, standings)),
      existing: [a],
      now: await chainNow(devnet),
    })
    expect(refused).toMatchObject({ status: 'refused', reason: 'not-counting' })
    expect(await usdcBalance(devnet, treasury)).toBe(before)

    // On-chain the old key still holds its seat until the council (A and C, both counting) replaces it.
    const op = await councilSelfCall(
      devnet,
      config,
      encodeFunctionData({ abi: MultiSigDeleGator, functionName: 'replaceSigner', args: [rotatedOld.address, next.address] }),
    )
    await handleCouncilOps(devnet, config, op, [
      { signer: golems[0]!.address, signature: await golems[0]!.signTypedData(councilUserOperationTypedData(config, op)) },
      { signer: golems[2]!.address, signature: await golems[2]!.signTypedData(councilUserOperationTypedData(config, op)) },
    ])
    const signers = await devnet.publicClient.readContract({ address: council.address, abi: MultiSigDeleGator, functionName: 'getSigners' })
    expect(new Set(signers.map((x) => x.toLowerCase()))).toEqual(
      new Set([golems[0]!, next, golems[2]!].map((g) => g.address.toLowerCase())),
    )
    members[1] = { golemId: 'golem-1', signer: next.address }
    golems[1] = next
    // Even submitted without the off-chain rule, the rotated key's signature now fails the MultiSigDeleGator.
    expect(await submitRaw(proposal, [a, b])).toEqual({ status: 'rejected', reason: 'FailedOp: AA24 signature error', cause: 'signature' })
    const { submission: done } = await tallyAndSubmit(proposal, [a, await sign(proposal, next)])
    expect(done?.status).toBe('executed')
    expect(await usdcBalance(devnet, treasury)).toBe(before + USDC(5))
  })

  it('does not count a dead member: with one of three left, nothing can run', async () => {
    const proposal = await propose(treasury, USDC(5))
    const signatures = [await sign(proposal, golems[0]!), await sign(proposal, golems[2]!)]
    // Golem 2 dies: its death protocol deregisters it.
    await waitOk(
      devnet,
      devnet.operator.writeContract({
        address: devnet.deployment.vitalityOracle,
        abi: artifacts.VitalityOracleAbi,
        functionName: 'deregisterGolem',
        args: [golems[2]!.address],
      }),
    )
    custody.set('golem-2', { lifecycle: 'dead', currentKey: golems[2]!.address })
    expect(await counting()).toEqual([golems[0]!.address, golems[1]!.address])
    const before = await usdcBalance(devnet, treasury)
    const { tally, submission } = await tallyAndSubmit(proposal, signatures)
    expect(tally).toMatchObject({ ready: false, missing: 1, reason: 'threshold' })
    expect(submission).toBeUndefined()
    expect(await usdcBalance(devnet, treasury)).toBe(before)
  })
})

describe('revocation', () => {
  it('the owner revokes the council in one transaction; a fully signed proposal then reverts, naming the disabled delegation', async () => {
    const proposal = await propose(treasury, USDC(5))
    const signatures = [await sign(proposal, golems[0]!), await sign(proposal, golems[1]!)]
    const receipt = await revoke(devnet, owner, delegation)
    expect(receipt.status).toBe('success')
    expect(await precheckCouncilAction(devnet.publicClient, proposal)).toMatchObject({ name: 'CannotUseADisabledDelegation' })
    const before = await usdcBalance(devnet, treasury)
    const { submission } = await tallyAndSubmit(proposal, signatures)
    expect(submission).toMatchObject({ status: 'reverted', refusal: { name: 'CannotUseADisabledDelegation' } })
    expect(await usdcBalance(devnet, treasury)).toBe(before)
  })

  it('the owner changes the membership: a new council with the new signers, delegated to afresh, acts; the old one cannot', async () => {
    // After the revocation above, the owner delegates to a council of A, B's current key and a new Golem D.
    const d = await newGolem(devnet)
    const seats = [members[0]!, members[1]!, { golemId: 'golem-3', signer: d.address }]
    custody.set('golem-3', { lifecycle: 'alive', currentKey: d.address })
    const next = await deployCouncil(devnet, seats, golems[0]!)
    expect(next.council.address).not.toBe(council.address)
    const nextDelegation = await grantCouncil(devnet, owner, next.council.address, treasury)
    const proposal = await proposeTransfer(devnet, { ...f, config: next.config }, treasury, USDC(5), { delegation: nextDelegation })
    const before = await usdcBalance(devnet, treasury)
    const done = await submitRaw(proposal, [await sign(proposal, golems[0]!), await sign(proposal, d)])
    expect(done.status).toBe('executed')
    expect(await usdcBalance(devnet, treasury)).toBe(before + USDC(5))
    // The dead Golem 2's key holds no seat in the new council: with A it cannot pass the contract.
    const other = await proposeTransfer(devnet, { ...f, config: next.config }, treasury, USDC(5), { delegation: nextDelegation })
    expect(await submitRaw(other, [await sign(other, golems[0]!), await sign(other, golems[2]!)])).toEqual({
      status: 'rejected',
      reason: 'FailedOp: AA24 signature error',
      cause: 'signature',
    })
  })
})
