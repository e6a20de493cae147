// Actions delegations: never a token transfer, and every call that names who receives its output has
// that receiver pinned to the owner's smart account by AllowedCalldata, one delegation per layout.
import { pad, type Address, type Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { decodeDelegationCaveats } from '../caveats/caveat.ts'
import { summarizeChain, summarizeDelegation } from '../caveats/summarizeDelegation.ts'
import {
  DAY,
  DEC_21_2026,
  DEPLOYMENT,
  ENV,
  GOLEM,
  LABELS,
  NOW,
  OWNER,
  REPLICANT,
  ROUTER,
  USD,
  USDC,
  VAULT,
  FEEDS,
} from '../../test/support/caveats/fixtures.ts'
import type { BardoCaveat } from '../caveats/types.ts'
import { SELECTORS } from '../permissions/selectors.ts'
import { TUPLE_OFFSET_WORD } from '../permissions/callLayouts.ts'
import { buildGolemDelegation, type ActionsSlot } from './buildGolemDelegation.ts'
import { buildReplicantDelegation } from './buildReplicantDelegation.ts'
import { DelegationShapeError } from './errors.ts'
import { DelegationTree } from './tree.ts'

const tree = () => new DelegationTree({ environment: ENV, deployment: DEPLOYMENT, now: () => NOW, labels: LABELS })
const bardo: BardoCaveat[] = [
  { type: 'golemPhase', golem: GOLEM },
  { type: 'mortalityTimeWindow', startTime: NOW, endTime: DEC_21_2026 },
]
const ownerWord = pad(OWNER.toLowerCase() as Hex)
const summaryOptions = { deployment: DEPLOYMENT, environment: ENV, tokens: LABELS.tokens!, targets: LABELS.targets!, now: NOW }
const S = SELECTORS

const slots: ActionsSlot[] = [
  { name: 'Swap: exactInputSingle', targets: [ROUTER], selectors: [S.exactInputSingle], receivers: [100] },
  {
    name: 'Swap: exactInput',
    targets: [ROUTER],
    selectors: [S.exactInput],
    receivers: [68],
    calldata: [{ startIndex: 4, value: TUPLE_OFFSET_WORD }],
  },
  { name: 'VaultManagement: deposit, mint', targets: [VAULT], selectors: [S.vaultDeposit, S.vaultMint], receivers: [36] },
  { name: 'VaultManagement: withdraw, redeem', targets: [VAULT], selectors: [S.vaultWithdraw, S.vaultRedeem], receivers: [68, 36] },
  { name: 'Other: a call of no known layout', targets: [VAULT], selectors: ['0x12345678'] },
]

describe('buildGolemDelegation actions', () => {
  it('builds one delegation per layout, each receiver word pinned to the owner, fixed words as given, the shared Bardo caveats after', () => {
    const t = tree()
    const grant = buildGolemDelegation({ tree: t, owner: OWNER, golem: GOLEM, bardo, actions: slots })
    expect(t.nodes()).toHaveLength(5)
    expect(grant.actions!.map((a) => [a.name, a.pins])).toEqual([
      ['Swap: exactInputSingle', [{ startIndex: 100, value: ownerWord }]],
      [
        'Swap: exactInput',
        [
          { startIndex: 68, value: ownerWord },
          { startIndex: 4, value: TUPLE_OFFSET_WORD },
        ],
      ],
      ['VaultManagement: deposit, mint', [{ startIndex: 36, value: ownerWord }]],
      [
        'VaultManagement: withdraw, redeem',
        [
          { startIndex: 36, value: ownerWord },
          { startIndex: 68, value: ownerWord },
        ],
      ],
      ['Other: a call of no known layout', []],
    ])
    expect(decodeDelegationCaveats(grant.actions![3]!.delegation, DEPLOYMENT, ENV)).toEqual([
      { type: 'allowedTargets', targets: [VAULT] },
      { type: 'allowedMethods', selectors: [S.vaultWithdraw, S.vaultRedeem] },
      { type: 'valueLte', maxValue: 0n },
      { type: 'allowedCalldata', startIndex: 36n, value: ownerWord },
      { type: 'allowedCalldata', startIndex: 68n, value: ownerWord },
      ...bardo,
    ])
    expect(decodeDelegationCaveats(grant.actions![4]!.delegation, DEPLOYMENT, ENV).some((c) => c.type === 'allowedCalldata')).toBe(false)
  })

  it('reads as "only with the owner\'s account as receiver"', () => {
    const grant = buildGolemDelegation({ tree: tree(), owner: OWNER, golem: GOLEM, bardo, actions: slots })
    const tail =
      'no ETH sent with calls, no Replicants after Thriving, no new positions after Stable, settlement only in Terminal, expires 21 Dec 2026'
    expect(summarizeDelegation(grant.actions![0]!.delegation, summaryOptions)).toBe(
      `may call exactInputSingle on the Uniswap router only with the owner's account as receiver, ${tail}`,
    )
    expect(summarizeDelegation(grant.actions![1]!.delegation, summaryOptions)).toBe(
      `may call exactInput on the Uniswap router only with the owner's account as receiver (bytes 4-35 fixed to 32), ${tail}`,
    )
    expect(summarizeDelegation(grant.actions![3]!.delegation, summaryOptions)).toBe(
      `may call withdraw or redeem on the USDC vault only with the owner's account as receiver, ${tail}`,
    )
  })

  it('a Replicant of an actions delegation carries its receiver pins, and its chain reads the same', () => {
    const t = tree()
    const parent = buildGolemDelegation({ tree: t, owner: OWNER, golem: GOLEM, bardo, actions: [slots[2]!] }).actions![0]!
    const budget = { maxBudgetUsd: USD(5), maxLifespanSeconds: DAY, maxPriceAge: 600, feeds: FEEDS }
    const r = buildReplicantDelegation({ tree: t, parent: parent.hash, replicant: REPLICANT, budget, maxCalls: 3 })
    expect(decodeDelegationCaveats(r.delegation, DEPLOYMENT, ENV)).toContainEqual({
      type: 'allowedCalldata',
      startIndex: 36n,
      value: ownerWord,
    })
    expect(summarizeChain(t.chain(r.hash), summaryOptions)).toMatch(
      /may call deposit or mint on the USDC vault only with the owner's account as receiver/,
    )
  })

  const base = { targets: [ROUTER] as Address[] }
  it.each([
    [
      'transfer',
      { ...base, targets: [USDC], selectors: [S.erc20Transfer] },
      "actions[0].selectors must not include transfer (0xa9059cbb): token movement from the owner's account goes through the runway's capped delegation (`runway`), and AllowedMethods cannot pin the recipient",
    ],
    [
      'transferFrom',
      { ...base, targets: [USDC], selectors: [S.erc20TransferFrom] },
      'actions[0].selectors must not include transferFrom (0x23b872dd): token movement',
    ],
    [
      'transfer beside a pinned swap',
      { ...base, selectors: [S.exactInputSingle, S.erc20Transfer], receivers: [100] },
      'actions[0].selectors must not include transfer (0xa9059cbb)',
    ],
    [
      'a swap with its recipient unpinned',
      { ...base, selectors: [S.exactInputSingle] },
      "actions[0].receivers exactInputSingle (0x04e45aaf) names its receivers at bytes [100]; they must be pinned to the owner's account (receivers is [])",
    ],
    [
      'a deposit pinned at the wrong byte',
      { ...base, selectors: [S.vaultDeposit], receivers: [68] },
      'actions[0].receivers vaultDeposit (0x6e553f65) names its receivers at bytes [36]',
    ],
    [
      'withdraw with only the receiver pinned, not the owner',
      { ...base, selectors: [S.vaultWithdraw], receivers: [36] },
      'actions[0].receivers vaultWithdraw (0xb460af94) names its receivers at bytes [36, 68]',
    ],
    [
      'two layouts in one delegation',
      { ...base, selectors: [S.vaultDeposit, S.exactInputSingle], receivers: [36] },
      'actions[0].receivers exactInputSingle (0x04e45aaf) names its receivers at bytes [100]',
    ],
    [
      'decreaseLiquidity without maxSlippage (liquidity removal, minimums free)',
      { ...base, selectors: [S.decreaseLiquidity] },
      "actions[0].bardo must carry maxSlippage to include decreaseLiquidity (0x0c49ccbe): its minimum amounts are free, so only the pool's price checked against the feeds keeps a sandwich from removing the position at a moved price",
    ],
    [
      'depositForBurn with only its recipient pinned',
      { ...base, selectors: [S.cctpDepositForBurn], receivers: [68] },
      'actions[0].calldata depositForBurn leaves destinationDomain (byte 36), burnToken (byte 100), destinationCaller (byte 132), maxFee (byte 164) free',
    ],
    [
      'exactInput without its tuple offset fixed',
      { ...base, selectors: [S.exactInput], receivers: [68] },
      'actions[0].calldata exactInput (0xb858183f) needs byte 4 fixed to 0x0000000000000000000000000000000000000000000000000000000000000020 (params (tuple offset))',
    ],
    [
      'increaseLiquidity',
      { ...base, selectors: [S.increaseLiquidity] },
      "actions[0].selectors must not include increaseLiquidity (0x219f5d17): it adds the owner's tokens to any tokenId",
    ],
    [
      'a receiver inside the selector',
      { ...base, selectors: ['0x12345678' as Hex], receivers: [0] },
      'actions[0].receivers a pinned word must start at a whole byte offset of at least 4',
    ],
    [
      'a word pinned twice',
      { ...base, selectors: ['0x12345678' as Hex], receivers: [36], calldata: [{ startIndex: 36, value: TUPLE_OFFSET_WORD }] },
      'actions[0].receivers byte 36 is pinned twice',
    ],
    ['no targets', { targets: [], selectors: [S.vaultDeposit], receivers: [36] }, 'actions[0].targets must list at least one target'],
  ] as const)('refuses %s, naming the field and the rule, and adds nothing', (_name, slot, message) => {
    const t = tree()
    const params = {
      tree: t,
      owner: OWNER,
      golem: GOLEM,
      bardo,
      runway: { token: USDC, periodAmount: 1n, periodDuration: 86_400, startDate: Number(NOW) },
      actions: [slot as ActionsSlot],
    }
    expect(() => buildGolemDelegation(params)).toThrowError(DelegationShapeError)
    expect(() => buildGolemDelegation(params)).toThrowError(message)
    expect(t.nodes()).toHaveLength(0)
  })

  it('names the index of the refused slot', () => {
    expect(() =>
      buildGolemDelegation({
        tree: tree(),
        owner: OWNER,
        golem: GOLEM,
        bardo,
        actions: [slots[0]!, { targets: [USDC], selectors: [S.erc20Transfer] }],
      }),
    ).toThrowError('actions[1].selectors must not include transfer')
  })
})
