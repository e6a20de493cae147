// The council's records: write-once proposals and signatures, and an execution claim that exactly one of
// many concurrent requests wins.
import type { Address, Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import type { CouncilProposalRecord, CouncilRecord } from '../../../core/council/store.ts'
import type { Backend } from './fixtures.ts'

const ID: Hex = `0x${'ab'.repeat(16)}`
const A: Address = '0x00000000000000000000000000000000000000A1'
const B: Address = '0x00000000000000000000000000000000000000B2'
const COUNCIL: Address = '0x000000000000000000000000000000000000C0c1'
const OTHER: Address = '0x000000000000000000000000000000000000C0c2'
const record = (over: Partial<CouncilProposalRecord> = {}): CouncilProposalRecord => ({
  id: ID,
  council: COUNCIL,
  proposer: A,
  status: 'open',
  deadline: 1_800_000_000,
  createdAt: 1_750_000_000_000,
  proposal: '{"id":"0xabab"}',
  ...over,
})
const formed = (over: Partial<CouncilRecord> = {}): CouncilRecord => ({
  council: COUNCIL,
  owner: '0x00000000000000000000000000000000000000f1',
  chainId: 31337,
  members: [
    { golemId: 'atlas', signer: A },
    { golemId: 'boreas', signer: B },
  ],
  threshold: 2,
  salt: `0x${'01'.repeat(32)}`,
  scope: '{"targets":[]}',
  delegation: '{"delegate":"0x"}',
  delegationHash: `0x${'cd'.repeat(32)}`,
  formedAt: 1_750_000_000_000,
  ...over,
})
const sig = (signer: Address, at: number) => ({ proposalId: ID, signer, signature: `0x${'11'.repeat(65)}` as Hex, at })

export function councilSuite(backend: Backend): void {
  describe('council records', () => {
    it('writes a proposal once and reads it back', async () => {
      const store = await backend.newStore()
      expect(await store.getCouncilProposal(ID)).toBeNull()
      expect(await store.createCouncilProposal(record())).toEqual({ created: true, record: record() })
      expect(await store.createCouncilProposal(record({ proposer: B }))).toEqual({ created: false, existing: record() })
      expect(await store.getCouncilProposal(ID)).toEqual(record())
    })

    it('keeps one signature per signer, oldest first', async () => {
      const store = await backend.newStore()
      await store.createCouncilProposal(record())
      expect(await store.addCouncilSignature(sig(B, 2))).toMatchObject({ added: true })
      expect(await store.addCouncilSignature(sig(A, 1))).toMatchObject({ added: true })
      expect(await store.addCouncilSignature(sig(A, 3))).toEqual({ added: false, existing: sig(A, 1) })
      expect(await store.listCouncilSignatures(ID)).toEqual([sig(A, 1), sig(B, 2)])
    })

    it('lets exactly one of many concurrent claims execute, and only the claimant finish', async () => {
      const store = await backend.newStore()
      await store.createCouncilProposal(record())
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, i) => store.claimCouncilExecution({ id: ID, claimant: `r${i}`, now: 5 })),
      )
      const winners = claims.filter((c) => c.claimed)
      expect(winners).toHaveLength(1)
      const claimant = winners[0]!.claimed ? winners[0]!.record.execution!.claimant : ''
      expect(await store.finishCouncilExecution({ id: ID, claimant: 'someone-else', status: 'executed', execution: {}, now: 6 })).toBeNull()
      const done = await store.finishCouncilExecution({
        id: ID,
        claimant,
        status: 'executed',
        execution: { txHash: `0x${'22'.repeat(32)}` },
        now: 6,
      })
      expect(done).toMatchObject({ status: 'executed', execution: { claimant, claimedAt: 5, finishedAt: 6 } })
      expect(await store.claimCouncilExecution({ id: ID, claimant: 'late', now: 7 })).toMatchObject({
        claimed: false,
        current: { status: 'executed' },
      })
    })

    it('lets a proposal the EntryPoint rejected be claimed again', async () => {
      const store = await backend.newStore()
      await store.createCouncilProposal(record())
      await store.claimCouncilExecution({ id: ID, claimant: 'r1', now: 5 })
      await store.finishCouncilExecution({
        id: ID,
        claimant: 'r1',
        status: 'rejected',
        execution: { reason: 'AA24 signature error' },
        now: 6,
      })
      expect(await store.claimCouncilExecution({ id: ID, claimant: 'r2', now: 7 })).toMatchObject({ claimed: true })
    })

    it('lets exactly one request take over a claim, keeps its block, and leaves the overtaken claimant nothing to finish', async () => {
      const store = await backend.newStore()
      await store.createCouncilProposal(record())
      await store.claimCouncilExecution({ id: ID, claimant: 'dead', now: 5, fromBlock: '42' })
      const takeovers = await Promise.all(
        Array.from({ length: 6 }, (_, i) => store.reclaimCouncilExecution({ id: ID, from: 'dead', claimant: `t${i}`, now: 9 })),
      )
      const winners = takeovers.filter((t) => t.claimed)
      expect(winners).toHaveLength(1)
      const winner = winners[0]!.claimed ? winners[0]!.record : undefined
      expect(winner).toMatchObject({ status: 'executing', execution: { claimedAt: 9, fromBlock: '42' } })
      expect(await store.finishCouncilExecution({ id: ID, claimant: 'dead', status: 'executed', execution: {}, now: 10 })).toBeNull()
      expect(await store.reclaimCouncilExecution({ id: ID, from: 'dead', claimant: 'again', now: 11 })).toMatchObject({ claimed: false })
      const done = await store.finishCouncilExecution({
        id: ID,
        claimant: winner!.execution!.claimant,
        status: 'executed',
        execution: { txHash: `0x${'22'.repeat(32)}` },
        now: 12,
      })
      expect(done).toMatchObject({ status: 'executed', execution: { fromBlock: '42', finishedAt: 12 } })
      expect(await store.reclaimCouncilExecution({ id: ID, from: winner!.execution!.claimant, claimant: 'x', now: 13 })).toMatchObject({
        claimed: false,
        current: { status: 'executed' },
      })
    })

    it('notes the sent transaction on the claim, keeping it executing, for the claimant only', async () => {
      const store = await backend.newStore()
      await store.createCouncilProposal(record())
      const sent = { txHash: `0x${'33'.repeat(32)}` as Hex, userOpHash: `0x${'44'.repeat(32)}` as Hex, sentAt: 6 }
      expect(await store.noteCouncilExecution({ id: ID, claimant: 'r1', execution: sent })).toBeNull()
      await store.claimCouncilExecution({ id: ID, claimant: 'r1', now: 5, fromBlock: '42' })
      expect(await store.noteCouncilExecution({ id: ID, claimant: 'someone-else', execution: sent })).toBeNull()
      expect(await store.noteCouncilExecution({ id: ID, claimant: 'r1', execution: sent })).toMatchObject({
        status: 'executing',
        execution: { claimant: 'r1', claimedAt: 5, fromBlock: '42', ...sent },
      })
      // A claim taken over leaves the overtaken claimant nothing to note; the new claimant keeps the hash.
      await store.reclaimCouncilExecution({ id: ID, from: 'r1', claimant: 'r2', now: 9 })
      expect(await store.noteCouncilExecution({ id: ID, claimant: 'r1', execution: { reason: 'late' } })).toBeNull()
      expect(await store.getCouncilProposal(ID)).toMatchObject({ status: 'executing', execution: { claimant: 'r2', ...sent } })
      const done = await store.finishCouncilExecution({
        id: ID,
        claimant: 'r2',
        status: 'executed',
        execution: { blockNumber: '43' },
        now: 10,
      })
      expect(done).toMatchObject({ status: 'executed', execution: { ...sent, blockNumber: '43', finishedAt: 10 } })
      expect(await store.noteCouncilExecution({ id: ID, claimant: 'r2', execution: { reason: 'after' } })).toBeNull()
    })

    it('lists proposals newest first, a page at a time, and refuses a page size out of bounds', async () => {
      const store = await backend.newStore()
      const ids = Array.from({ length: 5 }, (_, i) => `0x${String(i + 1).padStart(32, '0')}` as Hex)
      for (const [i, id] of ids.entries()) await store.createCouncilProposal(record({ id, createdAt: 1_000 + i }))
      // A losing create is not listed twice.
      await store.createCouncilProposal(record({ id: ids[0]!, createdAt: 9_999 }))
      // Another council's proposal is not in this council's list.
      await store.createCouncilProposal(record({ id: `0x${'ee'.repeat(16)}`, council: OTHER, createdAt: 5_000 }))
      const list = (page: { limit: number; after?: string | null }) => store.listCouncilProposals({ council: COUNCIL, ...page })
      const first = await list({ limit: 2 })
      expect(first.items.map((r) => r.id)).toEqual([ids[4], ids[3]])
      expect(first.next).not.toBeNull()
      const second = await list({ limit: 2, after: first.next })
      expect(second.items.map((r) => r.id)).toEqual([ids[2], ids[1]])
      const third = await list({ limit: 2, after: second.next })
      expect(third.items.map((r) => r.id)).toEqual([ids[0]])
      const rest = third.next === null ? [] : (await list({ limit: 2, after: third.next })).items
      expect(rest).toEqual([])
      expect((await store.listCouncilProposals({ council: OTHER, limit: 10 })).items.map((r) => r.id)).toEqual([`0x${'ee'.repeat(16)}`])
      await expect(list({ limit: 0 })).rejects.toThrow('limit: must be an integer from 1 to 100')
    })

    it('writes a council once and finds it by address, by its owner and by each member Golem, newest first', async () => {
      const store = await backend.newStore()
      expect(await store.getCouncil(COUNCIL)).toBeNull()
      expect(await store.createCouncil(formed())).toEqual({ created: true, record: formed() })
      expect(await store.createCouncil(formed({ threshold: 1, formedAt: 1_750_000_000_001 }))).toEqual({
        created: false,
        existing: formed(),
      })
      expect(await store.getCouncil(COUNCIL.toUpperCase().replace('0X', '0x') as Address)).toEqual(formed())
      const later = formed({ council: OTHER, members: [{ golemId: 'atlas', signer: A }], formedAt: 1_750_000_000_500 })
      await store.createCouncil(later)
      const owner = formed().owner
      expect((await store.listCouncilsByOwner(owner)).map((c) => c.council)).toEqual([OTHER, COUNCIL])
      expect((await store.listCouncilsOfGolem('atlas')).map((c) => c.council)).toEqual([OTHER, COUNCIL])
      expect((await store.listCouncilsOfGolem('boreas')).map((c) => c.council)).toEqual([COUNCIL])
      expect(await store.listCouncilsOfGolem('zephyr')).toEqual([])
      expect(await store.listCouncilsByOwner(A)).toEqual([])
      await expect(store.getCouncil('0x12' as Address)).rejects.toThrow('council: must be a council address')
    })

    it('refuses an id that is not 16 bytes of lowercase hex, writing nothing', async () => {
      const store = await backend.newStore()
      await expect(store.getCouncilProposal('0x12')).rejects.toThrow('id: must be a council proposal id')
      await expect(store.addCouncilSignature({ ...sig(A, 1), proposalId: '0xAB' })).rejects.toThrow('proposalId')
    })
  })
}
