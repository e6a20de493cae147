import { ROOT_AUTHORITY, type Delegation } from '@metamask/smart-accounts-kit'
import { encodeFunctionData, erc20Abi, getAddress, recoverTypedDataAddress, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { DEPLOYMENT, ENV, FEEDS, NOW, OWNER, USD, USDC } from '../../test/support/caveats/fixtures.ts'
import { DelegationTree } from '../delegations/tree.ts'
import { highS, withV } from '../../test/support/council/signatures.ts'
import {
  buildCouncilDelegation,
  councilSignatureRule,
  buildCouncilProposal,
  checkCouncilProposal,
  councilNonce,
  councilProposalTypedData,
  countingSigners,
  judgeCouncilSignature,
  judgeMember,
  judgeMembers,
  parseCouncilNonce,
  tallyCouncilSignatures,
  type CouncilConfig,
  type CouncilMember,
  type CouncilProposal,
  type MemberStanding,
} from './index.ts'

const keys = [generatePrivateKey(), generatePrivateKey(), generatePrivateKey(), generatePrivateKey()].map((k) => privateKeyToAccount(k))
const [a, b, c, outsider] = keys as [(typeof keys)[0], (typeof keys)[0], (typeof keys)[0], (typeof keys)[0]]
const members: CouncilMember[] = [a, b, c].map((k, i) => ({ golemId: `g${i}`, signer: k.address }))
const COUNCIL = getAddress('0x000000000000000000000000000000000000C0c1')
const TREASURY = getAddress('0x0000000000000000000000000000000000007EA5')
const config: CouncilConfig = { council: COUNCIL, chainId: 84532, entryPoint: ENV.EntryPoint, delegationManager: ENV.DelegationManager }
const alive = (key: Address): MemberStanding => ({ registered: true, dead: false, phase: 0, lifecycle: 'alive', currentKey: key })

const signedDelegation: Delegation = {
  delegate: COUNCIL,
  delegator: OWNER,
  authority: ROOT_AUTHORITY,
  caveats: [],
  salt: '0x01',
  signature: `0x${'11'.repeat(65)}`,
}
const gas = { callGasLimit: 1n, verificationGasLimit: 2n, preVerificationGas: 3n, maxFeePerGas: 4n, maxPriorityFeePerGas: 5n }
const transfer = (to: Address, amount: bigint) => ({
  target: USDC,
  value: 0n,
  callData: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }),
})
const proposal = (over: Partial<{ deadline: bigint; id: Hex }> = {}): CouncilProposal =>
  buildCouncilProposal({
    config,
    delegation: signedDelegation,
    action: transfer(TREASURY, USD(500)),
    id: over.id ?? `0x${'ab'.repeat(16)}`,
    deadline: over.deadline ?? NOW + 3_600n,
    now: NOW,
    gas,
  })

describe('council membership', () => {
  it('counts a registered, living member on its current key, and says why any other seat does not', () => {
    const m = members[0]!
    expect(judgeMember(m, alive(m.signer))).toMatchObject({ counts: true })
    const cases: [Partial<MemberStanding>, string][] = [
      [{ registered: false }, 'deregistered'],
      [{ dead: true }, 'dead'],
      [{ lifecycle: 'dead' }, 'dead'],
      [{ lifecycle: 'dying' }, 'dying'],
      [{ phase: 4 }, 'terminal'],
      [{ currentKey: outsider.address }, 'rotated'],
    ]
    for (const [change, reason] of cases) expect(judgeMember(m, { ...alive(m.signer), ...change })).toMatchObject({ counts: false, reason })
    expect(judgeMember(m, undefined)).toMatchObject({ counts: false, reason: 'unknown' })
    // A rotated-away key is also dead in the oracle; the seat says "rotated", the truer reason.
    expect(judgeMember(m, { ...alive(m.signer), dead: true, registered: false, currentKey: outsider.address })).toMatchObject({
      reason: 'rotated',
    })
  })

  it('lists the counting signers in seat order', () => {
    const standings = new Map(members.map((m) => [m.signer.toLowerCase(), alive(m.signer)]))
    standings.set(members[1]!.signer.toLowerCase(), { ...alive(members[1]!.signer), phase: 4 })
    expect(countingSigners(judgeMembers(members, standings))).toEqual([a.address, c.address])
  })
})

describe('council proposal', () => {
  it('carries the id and deadline in the user operation nonce, sequence 0', () => {
    const p = proposal()
    expect(parseCouncilNonce(p.userOperation.nonce)).toEqual({ id: p.id, deadline: p.deadline, sequence: 0n })
    expect(councilNonce(p.id, p.deadline)).toBe(p.userOperation.nonce)
    expect(() => checkCouncilProposal(p)).not.toThrow()
  })

  it('binds the council, chain, action and deadline into what members sign', async () => {
    const p = proposal()
    const signature = await a.signTypedData(councilProposalTypedData(p))
    expect(await recoverTypedDataAddress({ ...councilProposalTypedData(p), signature })).toBe(a.address)
    const variants: CouncilProposal[] = [
      proposal({ deadline: p.deadline + 1n }),
      proposal({ id: `0x${'cd'.repeat(16)}` }),
      { ...p, chainId: 1 },
      { ...p, council: TREASURY },
      buildCouncilProposal({
        config,
        delegation: signedDelegation,
        action: transfer(TREASURY, USD(501)),
        id: p.id,
        deadline: p.deadline,
        now: NOW,
        gas,
      }),
    ]
    for (const v of variants) expect(await recoverTypedDataAddress({ ...councilProposalTypedData(v), signature })).not.toBe(a.address)
  })

  it('refuses bad parameters by field, and a user operation that is not its action', () => {
    const base = { config, delegation: signedDelegation, action: transfer(TREASURY, 1n), id: `0x${'ab'.repeat(16)}` as Hex, now: NOW, gas }
    expect(() => buildCouncilProposal({ ...base, deadline: NOW })).toThrow('deadline must be after now')
    expect(() => buildCouncilProposal({ ...base, deadline: NOW + 8n * 86_400n })).toThrow(
      'deadline must be at most 604800 seconds from now',
    )
    expect(() => buildCouncilProposal({ ...base, deadline: NOW + 60n, id: '0x12' })).toThrow('id must be 16 bytes')
    expect(() => buildCouncilProposal({ ...base, deadline: NOW + 60n, delegation: { ...signedDelegation, delegate: TREASURY } })).toThrow(
      'delegation.delegate must be the council',
    )
    expect(() => buildCouncilProposal({ ...base, deadline: NOW + 60n, delegation: { ...signedDelegation, signature: '0x' } })).toThrow(
      'delegation.signature is missing',
    )
    const p = proposal()
    expect(() => checkCouncilProposal({ ...p, action: transfer(OWNER, USD(500)) })).toThrow('userOperation.callData')
    expect(() => checkCouncilProposal({ ...p, deadline: p.deadline + 60n })).toThrow('userOperation.nonce')
    expect(() => checkCouncilProposal({ ...p, council: TREASURY })).toThrow('userOperation.sender')
  })
})

describe('council signatures', () => {
  const p = proposal()
  const counting = [a.address, b.address, c.address]
  const judge = async (signer: typeof a, over: Partial<Parameters<typeof judgeCouncilSignature>[0]> = {}) =>
    judgeCouncilSignature({
      proposal: p,
      open: true,
      caller: signer.address,
      signature: await signer.signTypedData(councilProposalTypedData(p)),
      members,
      counting,
      existing: [],
      now: NOW,
      ...over,
    })

  it('accepts a counting member once; the second time is a duplicate', async () => {
    expect(await judge(a)).toEqual({ status: 'accepted', signer: a.address })
    const existing = [{ signer: a.address, signature: await a.signTypedData(councilProposalTypedData(p)) }]
    expect(await judge(a, { existing })).toEqual({ status: 'duplicate', signer: a.address })
  })

  it('refuses late, closed, foreign, non-member, non-counting and malformed signatures', async () => {
    expect(await judge(a, { now: p.deadline + 1n })).toMatchObject({ status: 'refused', reason: 'expired' })
    expect(await judge(a, { open: false })).toMatchObject({ status: 'refused', reason: 'closed' })
    expect(await judge(a, { caller: b.address })).toMatchObject({ status: 'refused', reason: 'wrong-signer' })
    expect(await judge(outsider)).toMatchObject({ status: 'refused', reason: 'not-member' })
    expect(await judge(b, { counting: [a.address, c.address] })).toMatchObject({ status: 'refused', reason: 'not-counting' })
    expect(await judge(a, { signature: '0x1234' })).toMatchObject({ status: 'refused', reason: 'bad-signature' })
    const other = proposal({ id: `0x${'cd'.repeat(16)}` })
    expect(await judge(a, { signature: await a.signTypedData(councilProposalTypedData(other)) })).toMatchObject({ reason: 'wrong-signer' })
  })

  it('refuses, by the rule the chain applies, a high-s copy of a valid signature and a v that is not 27 or 28', async () => {
    const good = await a.signTypedData(councilProposalTypedData(p))
    expect(councilSignatureRule(good)).toBeUndefined()
    // Off-chain both recover to A: only the chain's rule tells them apart.
    expect(await recoverTypedDataAddress({ ...councilProposalTypedData(p), signature: highS(good) })).toBe(a.address)
    expect(await judge(a, { signature: highS(good) })).toEqual({
      status: 'refused',
      reason: 'bad-signature',
      rule: expect.stringMatching(/^signature: s must be at most n\/2 \(low-s\)/),
    })
    for (const v of [0, 1, 29]) {
      const rule = `signature: v must be 27 or 28 as the chain's ECDSA recovery requires, got ${v}`
      expect(await judge(a, { signature: withV(good, v) })).toEqual({ status: 'refused', reason: 'bad-signature', rule })
    }
    expect(councilSignatureRule(`0x${'00'.repeat(32)}${good.slice(66)}` as Hex)).toBe('r must be between 1 and the curve order n - 1')
    expect(councilSignatureRule(`${good.slice(0, 66)}${'00'.repeat(32)}${good.slice(-2)}` as Hex)).toBe('s must not be 0')
  })

  it('does not count a stored signature the chain would refuse, nor a signer dropped after the chain refused it', async () => {
    const sig = async (k: typeof a) => ({ signer: k.address, signature: await k.signTypedData(councilProposalTypedData(p)) })
    const [sa, sb, sc] = [await sig(a), await sig(b), await sig(c)]
    const t = { counting, threshold: 2, deadline: p.deadline, now: NOW }
    const vetoed = { ...sa, signature: highS(sa.signature) }
    expect(tallyCouncilSignatures({ ...t, signatures: [vetoed, sb] })).toMatchObject({ ready: false, missing: 1, counted: [sb] })
    const ready = tallyCouncilSignatures({ ...t, signatures: [vetoed, sb, sc] })
    expect(ready).toMatchObject({ ready: true, chosen: [sb, sc].sort((x, y) => (BigInt(x.signer) < BigInt(y.signer) ? -1 : 1)) })
    expect(tallyCouncilSignatures({ ...t, signatures: [sa, sb, sc], dropped: [a.address, c.address] })).toMatchObject({
      ready: false,
      counted: [sb],
    })
  })

  it('tallies distinct counting signers up to the threshold, sorted by signer, and nothing after the deadline', async () => {
    const sig = async (k: typeof a) => ({ signer: k.address, signature: await k.signTypedData(councilProposalTypedData(p)) })
    const [sa, sb, sc] = [await sig(a), await sig(b), await sig(c)]
    const t = { counting, threshold: 2, deadline: p.deadline, now: NOW }
    expect(tallyCouncilSignatures({ ...t, signatures: [sa] })).toMatchObject({ ready: false, missing: 1, reason: 'threshold' })
    expect(tallyCouncilSignatures({ ...t, signatures: [sa, sa] })).toMatchObject({ ready: false, missing: 1 })
    expect(tallyCouncilSignatures({ ...t, signatures: [sa, sb], counting: [a.address, c.address] })).toMatchObject({ ready: false })
    expect(tallyCouncilSignatures({ ...t, signatures: [sa, sb], now: p.deadline + 1n })).toMatchObject({ ready: false, reason: 'expired' })
    const ready = tallyCouncilSignatures({ ...t, signatures: [sc, sa, sb] })
    if (!ready.ready) throw new Error('expected ready')
    const sorted = [sa, sb, sc].sort((x, y) => (BigInt(x.signer) < BigInt(y.signer) ? -1 : 1)).slice(0, 2)
    expect(ready.aggregate).toBe(`0x${sorted.map((s) => s.signature.slice(2)).join('')}`)
  })
})

describe('buildCouncilDelegation', () => {
  const tree = () => new DelegationTree({ environment: ENV, deployment: DEPLOYMENT, now: () => NOW })
  const bounds = {
    targets: [USDC],
    selectors: ['0xa9059cbb' as Hex],
    receivers: [{ startIndex: 4, receiver: TREASURY }],
    dailySpendLimit: { dailyLimitUsd: USD(1_000), maxPriceAge: 3_600, feeds: FEEDS },
    window: { startTime: NOW, endTime: NOW + 30n * 86_400n },
  }

  it('holds the targets, methods, value, pinned receiver, USD day cap and window as caveats', () => {
    const t = tree()
    const { hash, delegation } = buildCouncilDelegation({ tree: t, owner: OWNER, council: COUNCIL, bounds })
    expect(delegation.delegate).toBe(COUNCIL)
    const types = t.get(hash)!.caveats.map((cv) => cv.type)
    expect(types).toEqual(
      expect.arrayContaining(['allowedTargets', 'allowedMethods', 'valueLte', 'allowedCalldata', 'dailySpendLimit', 'mortalityTimeWindow']),
    )
    expect(t.get(hash)!.caveats.find((cv) => cv.type === 'allowedCalldata')).toMatchObject({ startIndex: 4n })
  })

  it('refuses an open-ended council by field, adding nothing to the tree', () => {
    const t = tree()
    const build = (over: Partial<typeof bounds>) => () =>
      buildCouncilDelegation({ tree: t, owner: OWNER, council: COUNCIL, bounds: { ...bounds, ...over } })
    expect(build({ receivers: [] })).toThrow('bounds.receivers must pin at least one receiver')
    expect(build({ targets: [] })).toThrow('bounds.targets must list at least one target')
    expect(build({ selectors: [] })).toThrow('bounds.selectors must list at least one selector')
    expect(build({ receivers: [{ startIndex: 2, receiver: TREASURY }] })).toThrow('bounds.receivers[0].startIndex')
    expect(build({ dailySpendLimit: { ...bounds.dailySpendLimit, dailyLimitUsd: 0n } })).toThrow(
      'bounds.dailySpendLimit.dailyLimitUsd must be positive',
    )
    expect(build({ window: { startTime: NOW - 100n, endTime: NOW - 10n } })).toThrow(/expired/)
    expect(() => buildCouncilDelegation({ tree: t, owner: OWNER, council: OWNER, bounds })).toThrow('council must not be the owner')
    expect(t.nodes()).toHaveLength(0)
  })
})
