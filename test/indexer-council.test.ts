// Coordination Council executions in the indexer: a 2-of-3 council on anvil executes one proposal and has
// another refused by a caveat (the owner revoked it); the indexer, told the council's address, writes one
// council_execution row per user operation (the proposal id and deadline from the nonce key, the
// user-operation and transaction hashes, success, block, time, the delegation redeemed or the revert
// reason), served by /v1/council-executions and GraphQL. Other smart accounts' operations are not rows.
import { hashDelegation } from '@metamask/smart-accounts-kit/utils'
import { decodeErrorResult, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chainErrorsAbi } from '../adapters/chain/decodeChainError.ts'
import { councilUserOpHash, submitCouncilProposal, type CouncilSubmission } from '../adapters/chain/council.ts'
import { councilProposalTypedData, tallyCouncilSignatures, type CouncilProposal } from '../core/council/index.ts'
import { councilPendingKey, councilProposalOf, isCouncil } from '../indexer/lib/council.ts'
import { stackIndexerOptions } from '../indexer/lib/deployment.ts'
import { loadIndexerSettings, UNCONFIGURED } from '../indexer/lib/settings.ts'
import { startIndexer, type RunningIndexer } from '../indexer/start.ts'
import { getJson, graphqlQuery, waitForIndexed } from '../indexer/testing.ts'
import { startDevnet, type Devnet } from '../local/devnet.ts'
import { COUNCIL_EXECUTIONS_QUERY, type IndexedCouncilExecution } from '../web/src/council.ts'
import { proposeTransfer, setupCouncil, type CouncilFixture } from './chain/councilHarness.ts'
import { revoke, USDC } from './chain/harness.ts'

type Row = {
  userOpHash: string
  council: string
  proposalId: string
  deadline: string
  nonce: string
  success: boolean
  revertReason: string | null
  delegationHash: string | null
  rootDelegator: string | null
  actualGasCost: string
  blockNumber: string
  timestamp: string
  txHash: string
}

let devnet: Devnet
let f: CouncilFixture
let indexer: RunningIndexer
const runs: { proposal: CouncilProposal; outcome: CouncilSubmission }[] = []
const lc = (a: string) => a.toLowerCase()

async function execute(proposal: CouncilProposal): Promise<CouncilSubmission> {
  const signatures = await Promise.all(
    f.golems.slice(0, 2).map(async (g) => ({ signer: g.address, signature: await g.signTypedData(councilProposalTypedData(proposal)) })),
  )
  const tally = tallyCouncilSignatures({
    signatures,
    counting: f.golems.map((g) => g.address),
    threshold: 2,
    deadline: proposal.deadline,
    now: proposal.deadline - 1n,
  })
  if (!tally.ready) throw new Error('two signatures must make the threshold')
  return submitCouncilProposal({ publicClient: devnet.publicClient, submitter: devnet.deployer, proposal, signature: tally.aggregate })
}

beforeAll(async () => {
  devnet = await startDevnet()
  f = await setupCouncil(devnet)
  indexer = await startIndexer(
    stackIndexerOptions({ rpcUrl: devnet.rpcUrl, deployment: { ...devnet.deployment, councils: [f.config.council] } }, { local: true }),
  )
  const paid = await proposeTransfer(devnet, f, f.treasury, USDC(25))
  runs.push({ proposal: paid, outcome: await execute(paid) })
  // The owner's revocation is a user operation of its own smart account at the same EntryPoint: not a council's.
  const refused = await proposeTransfer(devnet, f, f.treasury, USDC(5))
  await revoke(devnet, f.owner, f.delegation)
  runs.push({ proposal: refused, outcome: await execute(refused) })
  await waitForIndexed(indexer.url, await devnet.publicClient.getBlockNumber({ cacheTime: 0 }))
}, 240_000)

afterAll(async () => {
  await indexer?.stop()
  await devnet?.stop()
})

describe('indexed council executions', () => {
  it('writes one row per council user operation: executed with its redemption, reverted with its reason', async () => {
    expect(runs.map((r) => r.outcome.status)).toEqual(['executed', 'reverted'])
    const { status, body } = await getJson<{ items: Row[] }>(`${indexer.url}/v1/council-executions?council=${f.config.council}`)
    expect(status).toBe(200)
    // Newest first.
    expect(body.items.map((r) => r.userOpHash)).toEqual([councilUserOpHash(runs[1]!.proposal), councilUserOpHash(runs[0]!.proposal)])
    const [refused, paid] = body.items as [Row, Row]
    const paidTx = runs[0]!.outcome as Extract<CouncilSubmission, { status: 'executed' }>
    expect(paid).toMatchObject({
      council: lc(f.config.council),
      proposalId: runs[0]!.proposal.id,
      deadline: runs[0]!.proposal.deadline.toString(),
      nonce: runs[0]!.proposal.userOperation.nonce.toString(),
      success: true,
      revertReason: null,
      delegationHash: lc(hashDelegation(f.delegation)),
      rootDelegator: lc(f.owner.address),
      txHash: paidTx.txHash,
      blockNumber: paidTx.blockNumber.toString(),
    })
    const block = await devnet.publicClient.getBlock({ blockNumber: paidTx.blockNumber })
    expect(paid.timestamp).toBe(block.timestamp.toString())
    expect(BigInt(paid.actualGasCost)).toBeGreaterThan(0n)
    expect(refused).toMatchObject({ proposalId: runs[1]!.proposal.id, success: false, delegationHash: null, rootDelegator: null })
    expect(decodeErrorResult({ abi: chainErrorsAbi, data: refused.revertReason as Hex }).errorName).toBe('CannotUseADisabledDelegation')
  })

  it('indexes no other smart account’s user operations (the owner’s revocation ran through the same EntryPoint)', async () => {
    const { body } = await getJson<{ items: Row[] }>(`${indexer.url}/v1/council-executions`)
    expect(body.items).toHaveLength(2)
    expect(body.items.every((r) => r.council === lc(f.config.council))).toBe(true)
  })

  it('answers by proposal id and by user-operation hash, 404 for an unknown one, 400 for a bad parameter', async () => {
    const byProposal = await getJson<{ items: Row[] }>(`${indexer.url}/v1/council-executions?proposalId=${runs[0]!.proposal.id}`)
    expect(byProposal.body.items.map((r) => r.userOpHash)).toEqual([councilUserOpHash(runs[0]!.proposal)])
    const one = await getJson<Row>(`${indexer.url}/v1/council-executions/${councilUserOpHash(runs[1]!.proposal)}`)
    expect(one).toMatchObject({ status: 200, body: { success: false } })
    expect((await getJson(`${indexer.url}/v1/council-executions/0x${'00'.repeat(32)}`)).status).toBe(404)
    const bad = await getJson(`${indexer.url}/v1/council-executions?proposalId=0x12`)
    expect(bad).toMatchObject({ status: 400, body: { code: 'INVALID_PARAMETER', param: 'proposalId' } })
  })

  it('serves the rows over GraphQL too, answering the dashboard’s own query', async () => {
    const data = await graphqlQuery<{ councilExecutions: { items: IndexedCouncilExecution[] } }>(indexer.url, COUNCIL_EXECUTIONS_QUERY, {
      ids: [runs[0]!.proposal.id, `0x${'ee'.repeat(16)}`],
    })
    expect(data.councilExecutions.items).toEqual([
      {
        proposalId: runs[0]!.proposal.id,
        userOpHash: councilUserOpHash(runs[0]!.proposal),
        txHash: (runs[0]!.outcome as { txHash: string }).txHash,
        success: true,
      },
    ])
  })
})

describe('how the indexer knows a council (pure)', () => {
  it('reads the proposal id and deadline from the nonce key, and joins by transaction and council', () => {
    const proposal = runs[0]!.proposal
    expect(councilProposalOf(proposal.userOperation.nonce)).toEqual({ proposalId: proposal.id, deadline: proposal.deadline })
    expect(councilPendingKey('0xAB', f.config.council)).toBe(`0xab-${lc(f.config.council)}`)
    expect(isCouncil(new Set([lc(f.config.council)]), f.config.council)).toBe(true)
  })

  it('listens to the EntryPoint only for named councils, and needs its address when one is named', () => {
    const council = '0x000000000000000000000000000000000000C0c1'
    const entryPoint = '0x0000000071727De22E5E9d8BAf0edAc6f37da032'
    const environment = { EntryPoint: entryPoint }
    expect(loadIndexerSettings({ BARDO_DEPLOYMENT: JSON.stringify({ environment }) }).addresses.entryPoint).toBe(UNCONFIGURED)
    const named = loadIndexerSettings({ BARDO_DEPLOYMENT: JSON.stringify({ environment, councils: [council] }) })
    expect(named.addresses.entryPoint).toBe(entryPoint)
    expect(named.councils).toEqual([lc(council)])
    expect(() => loadIndexerSettings({ BARDO_DEPLOYMENT: JSON.stringify({ councils: [council] }) })).toThrow(
      'BARDO_DEPLOYMENT.environment.EntryPoint: is required when councils are named',
    )
    expect(() => loadIndexerSettings({ BARDO_DEPLOYMENT: JSON.stringify({ environment, councils: ['0x12'] }) })).toThrow(
      'BARDO_DEPLOYMENT.councils.0: must be a 0x-prefixed 20-byte address',
    )
  })
})
