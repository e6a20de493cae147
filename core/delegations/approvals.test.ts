import { createDelegation, ROOT_AUTHORITY, type Delegation } from '@metamask/smart-accounts-kit'
import { hashDelegation } from '@metamask/smart-accounts-kit/utils'
import { getAddress, pad, type Address, type Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { decodeDelegationCaveats } from '../caveats/caveat.ts'
import { AttenuationError } from '../caveats/errors.ts'
import { summarizeChain, summarizeDelegation } from '../caveats/summarizeDelegation.ts'
import {
  DAY,
  DEC_21_2026,
  DEPLOYMENT,
  ENV,
  FEEDS,
  GOLEM,
  LABELS,
  NOW,
  OWNER,
  REPLICANT,
  ROUTER,
  USD,
  USDC,
  VAULT,
  WETH,
} from '../../test/support/caveats/fixtures.ts'
import type { BardoCaveat } from '../caveats/types.ts'
import { APPROVE_SELECTOR, approveSpenderPin, buildGolemDelegation, type ApprovalsSlot } from './buildGolemDelegation.ts'
import { buildReplicantDelegation } from './buildReplicantDelegation.ts'
import { DelegationShapeError } from './errors.ts'
import { DelegationTree } from './tree.ts'

// Approvals: one delegation per spender, approve's first argument pinned by AllowedCalldata, never in actions.
const ATTACKER: Address = getAddress('0x000000000000000000000000000000000000a77a')
const SWAP: Hex = '0x04e45aaf'
const DEPOSIT: Hex = '0x6e553f65'

const tree = () => new DelegationTree({ environment: ENV, deployment: DEPLOYMENT, now: () => NOW, labels: LABELS })
const bardo: BardoCaveat[] = [
  { type: 'golemPhase', golem: GOLEM },
  { type: 'mortalityTimeWindow', startTime: NOW, endTime: DEC_21_2026 },
]
const enforcerNames = (d: Delegation) =>
  d.caveats.map(
    (c) =>
      Object.entries({ ...ENV.caveatEnforcers, ...DEPLOYMENT.enforcers }).find(([, a]) => a.toLowerCase() === c.enforcer.toLowerCase())![0],
  )
const summaryOptions = { deployment: DEPLOYMENT, environment: ENV, tokens: LABELS.tokens!, targets: LABELS.targets!, now: NOW }
const approvals: ApprovalsSlot[] = [
  { spender: ROUTER, tokens: [USDC, WETH] },
  { spender: VAULT, tokens: [USDC], bardo: [{ type: 'dailySpendLimit', dailyLimitUsd: USD(100), maxPriceAge: 3600, feeds: FEEDS }] },
]
const grantWithApprovals = (t: DelegationTree) =>
  buildGolemDelegation({
    tree: t,
    owner: OWNER,
    golem: GOLEM,
    bardo,
    actions: [
      { targets: [ROUTER], selectors: [SWAP], receivers: [100], bardo: [{ type: 'dreamMode', golem: GOLEM }] },
      { targets: [VAULT], selectors: [DEPOSIT], receivers: [36], bardo: [{ type: 'dreamMode', golem: GOLEM }] },
    ],
    approvals,
  })

describe('buildGolemDelegation approvals', () => {
  it('builds one root delegation per spender: its tokens, approve only, the spender pinned at byte 4, the shared Bardo caveats', () => {
    const t = tree()
    const grant = grantWithApprovals(t)
    expect(t.nodes()).toHaveLength(4)
    expect(grant.approvals?.map((a) => [a.spender, a.tokens])).toEqual([
      [ROUTER, [USDC, WETH]],
      [VAULT, [USDC]],
    ])
    const [router, vault] = grant.approvals!
    for (const a of grant.approvals!) {
      expect(a.delegation).toMatchObject({ delegator: OWNER, delegate: GOLEM, authority: ROOT_AUTHORITY, signature: '0x' })
      expect(a.hash).toBe(hashDelegation(a.delegation))
    }
    expect(enforcerNames(router!.delegation)).toEqual([
      'AllowedTargetsEnforcer',
      'AllowedMethodsEnforcer',
      'ValueLteEnforcer',
      'AllowedCalldataEnforcer',
      'golemPhase',
      'mortalityTimeWindow',
    ])
    expect(decodeDelegationCaveats(router!.delegation, DEPLOYMENT, ENV)).toEqual([
      { type: 'allowedTargets', targets: [USDC, WETH] },
      { type: 'allowedMethods', selectors: [APPROVE_SELECTOR] },
      { type: 'valueLte', maxValue: 0n },
      { type: 'allowedCalldata', startIndex: 4n, value: pad(ROUTER.toLowerCase() as Hex) },
      ...bardo,
    ])
    // The slot's own Bardo caveats go on that slot only, after the shared ones (as for the other slots).
    expect(enforcerNames(vault!.delegation).slice(4)).toEqual(['golemPhase', 'mortalityTimeWindow', 'dailySpendLimit'])
    expect(summarizeDelegation(router!.delegation, summaryOptions)).toBe(
      'may approve only the Uniswap router to spend USDC and WETH, no ETH sent with calls, no Replicants after Thriving, no new positions after Stable, settlement only in Terminal, expires 21 Dec 2026',
    )
  })

  it('leaves approve out of the actions delegations; their only pins are the owner as receiver', () => {
    const grant = grantWithApprovals(tree())
    const [swap, deposit] = grant.actions!.map((a) => decodeDelegationCaveats(a.delegation, DEPLOYMENT, ENV))
    expect(swap!.find((c) => c.type === 'allowedMethods')).toEqual({ type: 'allowedMethods', selectors: [SWAP] })
    expect(deposit!.find((c) => c.type === 'allowedMethods')).toEqual({ type: 'allowedMethods', selectors: [DEPOSIT] })
    expect(swap!.filter((c) => c.type === 'allowedCalldata')).toEqual([
      { type: 'allowedCalldata', startIndex: 100n, value: pad(OWNER.toLowerCase() as Hex) },
    ])
    expect(deposit!.filter((c) => c.type === 'allowedCalldata')).toEqual([
      { type: 'allowedCalldata', startIndex: 36n, value: pad(OWNER.toLowerCase() as Hex) },
    ])
  })

  it('pins approve(spender, amount) exactly: startIndex 4 and the spender as one ABI word', () => {
    expect(approveSpenderPin(ROUTER)).toEqual({ startIndex: 4, value: `0x000000000000000000000000${ROUTER.slice(2).toLowerCase()}` })
  })

  it('accepts a grant of approvals alone', () => {
    const grant = buildGolemDelegation({
      tree: tree(),
      owner: OWNER,
      golem: GOLEM,
      bardo,
      approvals: [{ spender: ROUTER, tokens: [USDC] }],
    })
    expect(Object.keys(grant)).toEqual(['approvals'])
    expect(grant.approvals).toHaveLength(1)
  })

  it.each([
    [
      'approve in actions',
      { actions: [{ targets: [USDC], selectors: [SWAP, APPROVE_SELECTOR], receivers: [100] }] },
      'actions[0].selectors must not include approve (0x095ea7b3)',
    ],
    [
      'increaseAllowance in actions',
      { actions: [{ targets: [USDC], selectors: ['0x39509351' as Hex] }] },
      'actions[0].selectors must not include increaseAllowance (0x39509351)',
    ],
    [
      'a spender listed twice',
      {
        approvals: [
          { spender: ROUTER, tokens: [USDC] },
          { spender: ROUTER.toLowerCase() as Address, tokens: [WETH] },
        ],
      },
      `approvals[1].spender ${ROUTER} is already approvals[0]; list each spender once, with all its tokens`,
    ],
    ['the Golem as spender', { approvals: [{ spender: GOLEM, tokens: [USDC] }] }, `approvals[0].spender must not be the Golem ${GOLEM}`],
    [
      'the zero address as spender',
      { approvals: [{ spender: '0x0000000000000000000000000000000000000000' as Address, tokens: [USDC] }] },
      'approvals[0].spender must be a non-zero 20-byte hex address',
    ],
    [
      'a spender that is not an address',
      { approvals: [{ spender: '0x1234' as Address, tokens: [USDC] }] },
      'approvals[0].spender must be a non-zero 20-byte hex address (checksum-valid if mixed case), got "0x1234"',
    ],
    ['no tokens', { approvals: [{ spender: ROUTER, tokens: [] }] }, 'approvals[0].tokens must list at least one token'],
    [
      'a token listed twice',
      { approvals: [{ spender: ROUTER, tokens: [USDC, WETH, USDC] }] },
      `approvals[0].tokens[2] ${USDC} is listed twice`,
    ],
  ] as const)('refuses %s, naming the field, and adds nothing', (_name, patch, message) => {
    const t = tree()
    const params = {
      tree: t,
      owner: OWNER,
      golem: GOLEM,
      bardo,
      runway: { token: USDC, periodAmount: 1n, periodDuration: 86_400, startDate: Number(NOW) },
      ...patch,
    }
    expect(() => buildGolemDelegation(params as Parameters<typeof buildGolemDelegation>[0])).toThrowError(DelegationShapeError)
    expect(() => buildGolemDelegation(params as Parameters<typeof buildGolemDelegation>[0])).toThrowError(message)
    expect(t.nodes()).toHaveLength(0)
  })

  it('is all or nothing: a refused approvals delegation leaves the other slots out of the tree too', () => {
    const t = tree()
    expect(() =>
      buildGolemDelegation({
        tree: t,
        owner: OWNER,
        golem: GOLEM,
        bardo,
        actions: [{ targets: [ROUTER], selectors: [SWAP], receivers: [100] }],
        approvals: [
          { spender: ROUTER, tokens: [USDC], bardo: [{ type: 'dailySpendLimit', dailyLimitUsd: USD(5), maxPriceAge: 60, feeds: [] }] },
        ],
      }),
    ).toThrowError('dailySpendLimit prices no token (feeds is empty), so it caps nothing.')
    expect(t.nodes()).toHaveLength(0)
  })
})

describe('sub-delegations of an approvals delegation', () => {
  const child = (t: DelegationTree, parent: Delegation, pin?: { startIndex: number; value: Hex }) =>
    createDelegation({
      environment: ENV,
      from: GOLEM,
      to: REPLICANT,
      parentDelegation: parent,
      scope: { type: 'functionCall', targets: [USDC], selectors: [APPROVE_SELECTOR], ...(pin ? { allowedCalldata: [pin] } : {}) },
      caveats: [],
      salt: '0x0a',
    })

  it('the tree refuses a child that drops or changes the spender pin, naming both values', () => {
    const t = tree()
    const parent = grantWithApprovals(t).approvals![0]!.delegation
    expect(() => t.add(child(t, parent))).toThrowError(AttenuationError)
    expect(() => t.add(child(t, parent))).toThrowError(
      'Child has no allowedCalldata at byte 4, so it drops parent allowedCalldata the Uniswap router at byte 4.',
    )
    expect(() => t.add(child(t, parent, approveSpenderPin(ATTACKER)))).toThrowError(
      `Child allowedCalldata ${ATTACKER} at byte 4 differs from parent allowedCalldata the Uniswap router at byte 4.`,
    )
    const kept = t.add(child(t, parent, approveSpenderPin(ROUTER)))
    expect(summarizeChain(t.chain(kept), summaryOptions)).toMatch(/^may approve only the Uniswap router to spend USDC, /)
  })

  it('a Replicant of an approvals delegation carries the pin', () => {
    const t = tree()
    const parent = grantWithApprovals(t).approvals![0]!
    const budget = { maxBudgetUsd: USD(5), maxLifespanSeconds: DAY, maxPriceAge: 600, feeds: FEEDS }
    const r = buildReplicantDelegation({ tree: t, parent: parent.hash, replicant: REPLICANT, budget, maxCalls: 3, targets: [USDC] })
    expect(decodeDelegationCaveats(r.delegation, DEPLOYMENT, ENV)).toContainEqual({
      type: 'allowedCalldata',
      startIndex: 4n,
      value: pad(ROUTER.toLowerCase() as Hex),
    })
  })
})
