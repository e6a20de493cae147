// The dashboard's council panel, by its pure view: one row per proposal with its state, k of n signed,
// the execution's transaction and whether the indexer has seen it; a council in words; and the owner's
// request its "Form a council" form sends.
import { describe, expect, it } from 'vitest'
import {
  councilFormRequest,
  councilRows,
  councilSummary,
  type CouncilProposal,
  type IndexedCouncilExecution,
} from '../../web/src/council.ts'

const TX = `0x${'ab'.repeat(32)}`
const proposal = (id: string, over: Partial<CouncilProposal> = {}): CouncilProposal => ({
  id,
  proposer: '0x00000000000000000000000000000000000000a1',
  status: 'open',
  deadline: 1_800_000_000,
  action: { target: '0x00000000000000000000000000000000000005dc', value: '0', callData: '0xa9059cbb' },
  threshold: 2,
  seats: 3,
  counted: 1,
  execution: null,
  ...over,
})
const id = (n: number) => `0x${String(n).padStart(32, '0')}`
const seen = (n: number, success: boolean): IndexedCouncilExecution => ({
  proposalId: id(n),
  userOpHash: `0x${'cd'.repeat(32)}`,
  txHash: TX,
  success,
})

describe('council panel rows', () => {
  it('shows every state with k of n signed, and the threshold', () => {
    const states = ['open', 'executing', 'executed', 'reverted', 'rejected', 'expired'] as const
    const rows = councilRows(
      states.map((status, i) => proposal(id(i), { status, counted: i % 3 })),
      [],
    )
    expect(rows.map((r) => r.state)).toEqual([...states])
    expect(rows.map((r) => r.signatures)).toEqual([
      '0 of 3 signed, 2 needed',
      '1 of 3 signed, 2 needed',
      '2 of 3 signed, 2 needed',
      '0 of 3 signed, 2 needed',
      '1 of 3 signed, 2 needed',
      '2 of 3 signed, 2 needed',
    ])
  })

  it('marks an execution the indexer has seen, and one it has not yet; nothing for proposals that did not run', () => {
    const rows = councilRows(
      [
        proposal(id(1), { status: 'executed', counted: 2, execution: { txHash: TX } }),
        proposal(id(2), { status: 'executed', counted: 2, execution: { txHash: TX } }),
        proposal(id(3), { status: 'open' }),
      ],
      [seen(1, true)],
    )
    expect(rows.map((r) => [r.txHash, r.indexed])).toEqual([
      [TX, 'seen'],
      [TX, 'pending'],
      [null, null],
    ])
  })

  it('names the refusal of a reverted proposal and the reason of a rejected one; an indexer row that disagrees is not "seen"', () => {
    const [reverted, rejected] = councilRows(
      [
        proposal(id(1), { status: 'reverted', execution: { txHash: TX, refusal: { name: 'CannotUseADisabledDelegation', args: [] } } }),
        proposal(id(2), { status: 'rejected', execution: { reason: 'AA24 signature error' } }),
      ],
      [seen(1, true)],
    )
    expect(reverted).toMatchObject({ note: 'CannotUseADisabledDelegation()', indexed: 'pending' })
    expect(rejected).toMatchObject({ note: 'AA24 signature error', indexed: null, txHash: null })
    expect(councilRows([proposal(id(1), { status: 'reverted', execution: { txHash: TX } })], [seen(1, false)])[0]).toMatchObject({
      indexed: 'seen',
    })
  })

  it('matches the indexer’s ids without regard to case', () => {
    const upper = `0x${'AB'.repeat(16)}`
    const rows = councilRows(
      [proposal(upper.toLowerCase(), { status: 'executed', execution: { txHash: TX } })],
      [{ ...seen(0, true), proposalId: upper }],
    )
    expect(rows[0]?.indexed).toBe('seen')
  })

  it('says a council in words: k of n, its seats, and whom it pays how much a day', () => {
    const council = {
      council: '0x00000000000000000000000000000000000000c0',
      members: ['atlas', 'boreas', 'calypso'].map((golemId) => ({ golemId, signer: '0x01' })),
      threshold: 2,
      scope: { dailyLimitUsd: '1000', receivers: [{ receiver: '0x00000000000000000000000000000000000005dc' }], endsAt: 1_800_000_000 },
      formedAt: 1_700_000_000,
    }
    expect(councilSummary(council)).toBe('2 of 3: atlas, boreas, calypso; $1000 a day to 0x00000000000000000000000000000000000005dc')
  })

  it('asks for a council of the chosen Golems paying one receiver in USDC, a cap a day, for the days given', () => {
    const usdc = '0x0000000000000000000000000000000000000005'
    const input = { golems: ['atlas', 'boreas'], threshold: '2', receiver: ' 0xabc ', dailyUsd: '250.5', days: '7' }
    expect(councilFormRequest(input, usdc, 1_000)).toEqual({
      golems: ['atlas', 'boreas'],
      threshold: 2,
      scope: {
        targets: [usdc],
        selectors: ['0xa9059cbb'],
        receivers: [{ receiver: '0xabc', startIndex: 4 }],
        dailyLimitUsd: '250.5',
        endsAt: 1_000 + 7 * 86_400,
      },
    })
    // No days: the API's default end.
    expect(councilFormRequest({ ...input, days: '' }, usdc, 1_000).scope).not.toHaveProperty('endsAt')
  })
})
