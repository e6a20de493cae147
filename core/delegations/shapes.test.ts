import { DelegationManager } from '@metamask/delegation-abis'
import { Implementation, ROOT_AUTHORITY, signDelegation, toMetaMaskSmartAccount, type Delegation } from '@metamask/smart-accounts-kit'
import { encodeDelegations, hashDelegation, SIGNABLE_DELEGATION_TYPED_DATA, toDelegationStruct } from '@metamask/smart-accounts-kit/utils'
import {
  createPublicClient,
  custom,
  decodeFunctionData,
  encodeFunctionData,
  erc20Abi,
  pad,
  size,
  recoverTypedDataAddress,
  type Address,
  type Hex,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { baseSepolia } from 'viem/chains'
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
  LABELS,
  NOW,
  ROUTER,
  USD,
  USDC,
  VAULT,
  WETH,
} from '../../test/support/caveats/fixtures.ts'
import { RUNWAY_PHASE_MASKS, type BardoCaveat } from '../caveats/types.ts'
import { buildGolemDelegation, runwayGates } from './buildGolemDelegation.ts'
import { buildReplicantDelegation } from './buildReplicantDelegation.ts'
import { buildRunwayRedelegation } from './buildRunwayRedelegation.ts'
import { DelegationShapeError } from './errors.ts'
import { encodeRedemptions } from './redeem.ts'
import { smartAccountSigner, type DelegationSigner } from './signers.ts'
import { DelegationTree } from './tree.ts'

const CHAIN_ID = 84532
const keySigner =
  (privateKey: Hex): DelegationSigner =>
  (delegation) =>
    signDelegation({ privateKey, delegation, delegationManager: ENV.DelegationManager, chainId: CHAIN_ID })
const account = (key: Hex) => privateKeyToAccount(key).address

const ownerKey = generatePrivateKey()
const sessionKey = generatePrivateKey()
const golemKey = generatePrivateKey()
const OWNER = account(ownerKey)
const SESSION = account(sessionKey)
const GOLEM = account(golemKey)
const REPLICANT = account(generatePrivateKey())

const tree = () => new DelegationTree({ environment: ENV, deployment: DEPLOYMENT, now: () => NOW, labels: LABELS })
/** The Golem's phase gate carrying its life window: one caveat, as Bardo builds it. */
const golemBardo = (golem: Address = GOLEM, end = DEC_21_2026): BardoCaveat[] => [
  { type: 'golemPhase', golem, startTime: NOW, endTime: end },
]
/** The shape signed before GolemPhase carried the window: the gate and a separate mortalityTimeWindow. */
const previousBardo = (golem: Address = GOLEM, end = DEC_21_2026): BardoCaveat[] => [
  { type: 'golemPhase', golem },
  { type: 'mortalityTimeWindow', startTime: NOW, endTime: end },
]
const enforcerNames = (d: Delegation) =>
  d.caveats.map(
    (c) =>
      Object.entries({ ...ENV.caveatEnforcers, ...DEPLOYMENT.enforcers }).find(([, a]) => a.toLowerCase() === c.enforcer.toLowerCase())![0],
  )
const summary = (d: Delegation, golem: Address = GOLEM) =>
  summarizeDelegation(d, {
    deployment: DEPLOYMENT,
    environment: ENV,
    tokens: LABELS.tokens!,
    targets: { ...LABELS.targets, [golem]: 'the Golem key' },
    now: NOW,
  })

const fullGrant = (t: DelegationTree) =>
  buildGolemDelegation({
    tree: t,
    owner: OWNER,
    golem: GOLEM,
    bardo: golemBardo(),
    runway: { token: USDC, periodAmount: 100_000_000n, periodDuration: 86_400, startDate: Number(NOW) },
    gas: { periodAmount: 10n ** 16n, periodDuration: 86_400, startDate: Number(NOW) },
    // ERC-4626 deposit and mint share one layout: the receiver at byte 36, pinned to the owner.
    actions: [
      {
        targets: [ROUTER, VAULT],
        selectors: ['0x6e553f65', '0x94bf804d'],
        receivers: [36],
        maxCalls: 1000,
        bardo: [
          { type: 'dreamMode', golem: GOLEM },
          { type: 'dailySpendLimit', dailyLimitUsd: USD(1000), maxPriceAge: 3600, feeds: FEEDS },
          { type: 'maxSlippage', maxSlippageBps: 50, maxPriceAge: 600, feeds: FEEDS },
        ],
      },
    ],
    salt: '0x01',
  })

describe('buildGolemDelegation (direct ERC-7710)', () => {
  it('builds runway, gas and actions as sibling root delegations carrying the shared Bardo caveats', () => {
    const t = tree()
    const grant = fullGrant(t)
    expect(t.nodes()).toHaveLength(3)
    for (const slot of [grant.runway!, grant.gas!, grant.actions![0]!]) {
      expect(slot.delegation).toMatchObject({ delegator: OWNER, delegate: GOLEM, authority: ROOT_AUTHORITY, salt: '0x01', signature: '0x' })
      expect(slot.hash).toBe(hashDelegation(slot.delegation))
    }
    expect(enforcerNames(grant.runway!.delegation)).toEqual(['ValueLteEnforcer', 'ERC20PeriodTransferEnforcer', 'golemPhase'])
    expect(enforcerNames(grant.gas!.delegation)).toEqual([
      'ExactCalldataEnforcer',
      'NativeTokenPeriodTransferEnforcer',
      'AllowedTargetsEnforcer',
      'golemPhase',
    ])
    // The runway and gas slots only move funds, so their phase gate is runway terms (32 bytes, no table read);
    // the actions slot keeps the table's terms with the same window.
    const runwayGate = {
      type: 'golemPhase',
      golem: GOLEM,
      phaseMasks: RUNWAY_PHASE_MASKS,
      startTime: NOW,
      endTime: DEC_21_2026,
      runway: true,
    }
    expect(decodeDelegationCaveats(grant.runway!.delegation, DEPLOYMENT, ENV).at(-1)).toEqual(runwayGate)
    expect(decodeDelegationCaveats(grant.gas!.delegation, DEPLOYMENT, ENV).at(-1)).toEqual(runwayGate)
    expect(size(grant.runway!.delegation.caveats.at(-1)!.terms)).toBe(32)
    expect(decodeDelegationCaveats(grant.actions![0]!.delegation, DEPLOYMENT, ENV).find((c) => c.type === 'golemPhase')).toEqual({
      type: 'golemPhase',
      golem: GOLEM,
      startTime: NOW,
      endTime: DEC_21_2026,
    })
    expect(enforcerNames(grant.actions![0]!.delegation)).toEqual([
      'AllowedTargetsEnforcer',
      'AllowedMethodsEnforcer',
      'ValueLteEnforcer',
      'AllowedCalldataEnforcer',
      'LimitedCallsEnforcer',
      'golemPhase',
      'dreamMode',
      'dailySpendLimit',
      'maxSlippage',
    ])
    expect(summary(grant.runway!.delegation)).toBe(
      'up to 100 USDC a day, no ETH sent with calls, plain transfers only, no Replicants after Thriving, no transfers after Declining, expires 21 Dec 2026',
    )
    expect(summary(grant.gas!.delegation)).toBe(
      'up to 0.01 ETH a day, only the Golem key, plain transfers without calldata only, plain transfers only, no Replicants after Thriving, no transfers after Declining, expires 21 Dec 2026',
    )
  })

  it('is signed by the owner smart account through the kit (smartAccountSigner)', async () => {
    const client = createPublicClient({
      chain: baseSepolia,
      transport: custom({ request: async () => Promise.reject(new Error('offline')) }),
    })
    const ownerEoa = privateKeyToAccount(ownerKey)
    const smartAccount = await toMetaMaskSmartAccount({
      // The kit resolves its own viem copy's types; the client is the same at runtime.
      client: client as unknown as Parameters<typeof toMetaMaskSmartAccount>[0]['client'],
      implementation: Implementation.Hybrid,
      deployParams: [ownerEoa.address, [], [], []],
      deploySalt: '0x',
      signer: { account: ownerEoa },
      environment: ENV,
    })
    const t = tree()
    const grant = buildGolemDelegation({
      tree: t,
      owner: smartAccount.address,
      golem: GOLEM,
      bardo: golemBardo(),
      actions: [{ targets: [ROUTER], selectors: ['0x04e45aaf'], receivers: [100] }],
    })
    const signed = await t.sign(grant.actions![0]!.hash, smartAccountSigner(smartAccount))
    const { signature, ...message } = toDelegationStruct(signed)
    // A Hybrid DeleGator validates its EOA owner's ECDSA signature over the DelegationManager domain.
    const signer = await recoverTypedDataAddress({
      domain: { name: 'DelegationManager', version: '1', chainId: CHAIN_ID, verifyingContract: ENV.DelegationManager },
      types: SIGNABLE_DELEGATION_TYPED_DATA,
      primaryType: 'Delegation',
      message,
      signature,
    })
    expect(signer).toBe(ownerEoa.address)
  })

  it('refuses a grant without the phase gate or the deadline, or with nothing in it', () => {
    const actions = [{ targets: [ROUTER], selectors: ['0x04e45aaf'] as Hex[], receivers: [100] }]
    expect(() => buildGolemDelegation({ tree: tree(), owner: OWNER, golem: GOLEM, bardo: golemBardo(REPLICANT), actions })).toThrowError(
      `bardo must include a golemPhase caveat for the Golem ${GOLEM}, so it cannot act out of phase or after death`,
    )
    expect(() =>
      buildGolemDelegation({ tree: tree(), owner: OWNER, golem: GOLEM, bardo: [{ type: 'golemPhase', golem: GOLEM }], actions }),
    ).toThrowError(
      'bardo must give the Golem a hard deadline: a window on its golemPhase caveat (startTime and endTime) or a mortalityTimeWindow caveat',
    )
    // A window on another Golem's gate still bounds time, but this Golem's gate is what is required.
    expect(() =>
      buildGolemDelegation({
        tree: tree(),
        owner: OWNER,
        golem: GOLEM,
        bardo: [{ type: 'dreamMode', golem: GOLEM }, ...golemBardo(REPLICANT)],
        actions,
      }),
    ).toThrowError(`bardo must include a golemPhase caveat for the Golem ${GOLEM}`)
    expect(() => buildGolemDelegation({ tree: tree(), owner: OWNER, golem: GOLEM, bardo: golemBardo() })).toThrowError(DelegationShapeError)
  })

  it('writes runway terms only for the Golem’s own windowed gate with the default masks, within uint48', () => {
    const window = { startTime: NOW, endTime: DEC_21_2026 }
    const masks = [0x1f, 0x17, 0x16, 0x16, 0x00] as const
    expect(runwayGates([{ type: 'golemPhase', golem: GOLEM, ...window }], GOLEM)).toEqual([
      { type: 'golemPhase', golem: GOLEM, ...window, runway: true },
    ])
    const kept: BardoCaveat[] = [
      { type: 'golemPhase', golem: GOLEM, phaseMasks: masks, ...window },
      { type: 'golemPhase', golem: GOLEM, startTime: NOW, endTime: 1n << 48n },
      { type: 'golemPhase', golem: GOLEM },
      { type: 'golemPhase', golem: OWNER, ...window },
      { type: 'dreamMode', golem: GOLEM },
    ]
    expect(runwayGates(kept, GOLEM)).toEqual(kept)
  })

  it('still accepts the previous shape: golemPhase and a separate mortalityTimeWindow', () => {
    const t = tree()
    const grant = buildGolemDelegation({
      tree: t,
      owner: OWNER,
      golem: GOLEM,
      bardo: previousBardo(),
      runway: { token: USDC, periodAmount: 100_000_000n, periodDuration: 86_400, startDate: Number(NOW) },
    })
    expect(enforcerNames(grant.runway!.delegation)).toEqual([
      'ValueLteEnforcer',
      'ERC20PeriodTransferEnforcer',
      'golemPhase',
      'mortalityTimeWindow',
    ])
    expect(summary(grant.runway!.delegation)).toBe(
      'up to 100 USDC a day, no ETH sent with calls, no Replicants after Thriving, no new positions after Stable, settlement only in Terminal, expires 21 Dec 2026',
    )
  })

  it('refuses a golemPhase window that has already ended, and one disjoint from a mortalityTimeWindow beside it', () => {
    const actions = [{ targets: [ROUTER], selectors: ['0x04e45aaf'] as Hex[], receivers: [100] }]
    const ended: BardoCaveat[] = [{ type: 'golemPhase', golem: GOLEM, startTime: NOW - DAY, endTime: NOW - 1n }]
    expect(() => buildGolemDelegation({ tree: tree(), owner: OWNER, golem: GOLEM, bardo: ended, actions })).toThrowError(
      'golemPhase window already expired at 31 Dec 2025 23:59:59 UTC, before now (1 Jan 2026).',
    )
    // An inverted window never reaches the tree: the encoder refuses it, naming the field.
    expect(() =>
      buildGolemDelegation({ tree: tree(), owner: OWNER, golem: GOLEM, bardo: golemBardo(GOLEM, NOW - 1n), actions }),
    ).toThrowError('golemPhase.endTime must not be before startTime (1767225600), got 1767225599')
    const bardo: BardoCaveat[] = [
      ...golemBardo(GOLEM, NOW + DAY),
      { type: 'mortalityTimeWindow', startTime: NOW + 2n * DAY, endTime: DEC_21_2026 },
    ]
    expect(() => buildGolemDelegation({ tree: tree(), owner: OWNER, golem: GOLEM, bardo, actions })).toThrowError(
      'golemPhase from 1 Jan 2026 to 2 Jan 2026 and mortalityTimeWindow from 3 Jan 2026 to 21 Dec 2026 do not overlap, so no moment satisfies both.',
    )
  })

  it('is all or nothing: one refused slot leaves the tree empty', () => {
    const t = tree()
    expect(() =>
      buildGolemDelegation({
        tree: t,
        owner: OWNER,
        golem: GOLEM,
        bardo: golemBardo(),
        runway: { token: USDC, periodAmount: 1n, periodDuration: 86_400, startDate: Number(NOW) },
        actions: [
          {
            targets: [ROUTER],
            selectors: ['0x04e45aaf'],
            receivers: [100],
            bardo: [{ type: 'dailySpendLimit', dailyLimitUsd: USD(5), maxPriceAge: 60, feeds: [] }],
          },
        ],
      }),
    ).toThrowError('dailySpendLimit prices no token (feeds is empty), so it caps nothing.')
    expect(t.nodes()).toHaveLength(0)
  })
})

describe('buildRunwayRedelegation (ERC-7715 runway + Bardo re-delegation)', () => {
  const permission = {
    owner: OWNER,
    sessionAccount: SESSION,
    token: USDC,
    periodAmount: 10_000_000n,
    periodDuration: 86_400,
    startTime: Number(NOW),
    expiry: Number(DEC_21_2026),
    salt: '0x07' as Hex,
  }

  it('chains Session Account -> execution key under the owner permission; redemption carries [child, parent]', async () => {
    const t = tree()
    // The permission's expiry is exclusive (TimestampEnforcer), the golemPhase window's end inclusive: end one second earlier.
    const r = buildRunwayRedelegation({
      tree: t,
      permission,
      executionKey: GOLEM,
      bardo: golemBardo(GOLEM, DEC_21_2026 - 1n),
      caveats: [{ type: 'limitedCalls', limit: 1000n }],
      salt: '0x08',
    })
    expect(enforcerNames(r.parent.delegation)).toEqual(['ValueLteEnforcer', 'ERC20PeriodTransferEnforcer', 'TimestampEnforcer'])
    expect(r.parent.delegation).toMatchObject({ delegator: OWNER, delegate: SESSION, authority: ROOT_AUTHORITY })
    expect(r.child.delegation).toMatchObject({ delegator: SESSION, delegate: GOLEM, authority: r.parent.hash })
    expect(enforcerNames(r.child.delegation)).toEqual(['LimitedCallsEnforcer', 'golemPhase'])
    expect(r.chain()).toEqual([r.child.delegation, r.parent.delegation])
    expect(summarizeChain(r.chain(), { deployment: DEPLOYMENT, environment: ENV, tokens: LABELS.tokens!, now: NOW })).toBe(
      'up to 10 USDC a day, no ETH sent with calls, at most 1000 calls, plain transfers only, no Replicants after Thriving, no transfers after Declining, expires 20 Dec 2026 23:59:59 UTC',
    )

    await t.sign(r.parent.hash, keySigner(ownerKey))
    await t.sign(r.child.hash, keySigner(sessionKey))
    const transfer = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [GOLEM, 1_000_000n] })
    const calldata = encodeRedemptions([{ chain: r.chain(), executions: [{ target: USDC, value: 0n, callData: transfer }] }])
    const { functionName, args } = decodeFunctionData({ abi: DelegationManager, data: calldata })
    expect(functionName).toBe('redeemDelegations')
    expect(args[0]).toEqual([encodeDelegations(r.chain())])
  })

  it('refuses a re-delegation that outlives the permission, and leaves no local draft behind', () => {
    const t = tree()
    expect(() =>
      buildRunwayRedelegation({ tree: t, permission, executionKey: GOLEM, bardo: golemBardo(GOLEM, DEC_21_2026 + DAY) }),
    ).toThrowError('Child golemPhase end 22 Dec 2026 is after parent timestamp end 20 Dec 2026 23:59:59 UTC.')
    expect(t.nodes()).toHaveLength(0)
    // The same rule holds for the previous shape's separate window.
    expect(() =>
      buildRunwayRedelegation({ tree: t, permission, executionKey: GOLEM, bardo: previousBardo(GOLEM, DEC_21_2026 + DAY) }),
    ).toThrowError('Child mortalityTimeWindow end 22 Dec 2026 is after parent timestamp end 20 Dec 2026 23:59:59 UTC.')
  })

  it('accepts the wallet-signed permission context and refuses a child that could never spend under it', async () => {
    const t = tree()
    const bardo = golemBardo(GOLEM, DEC_21_2026 - 1n)
    const draft = buildRunwayRedelegation({ tree: tree(), permission, executionKey: GOLEM, bardo }).parent.delegation
    const granted = { ...draft, signature: await keySigner(ownerKey)(draft) }
    const r = buildRunwayRedelegation({ tree: t, permission: { context: [granted] }, executionKey: GOLEM, bardo })
    expect(t.get(r.parent.hash)!.granted).toBe(true)
    expect(() =>
      buildRunwayRedelegation({
        tree: t,
        permission: { context: [granted] },
        executionKey: GOLEM,
        bardo,
        caveats: [{ type: 'allowedTargets', targets: [ROUTER] }],
      }),
    ).toThrowError('allowedTargets [the Uniswap router] excludes USDC, the only target erc20PeriodTransfer admits.')
  })

  it('refuses the Session Account as its own execution key', () => {
    expect(() => buildRunwayRedelegation({ tree: tree(), permission, executionKey: SESSION, bardo: golemBardo(SESSION) })).toThrowError(
      'executionKey must differ from the Session Account that holds the permission',
    )
  })
})

describe('buildReplicantDelegation', () => {
  const budget = { maxBudgetUsd: USD(50), maxLifespanSeconds: DAY, maxPriceAge: 600, feeds: FEEDS }

  it('re-delegates a strictly narrower slice that only the Replicant can redeem', async () => {
    const t = tree()
    const grant = fullGrant(t)
    const r = buildReplicantDelegation({
      tree: t,
      parent: grant.actions![0]!.hash,
      replicant: REPLICANT,
      budget,
      maxCalls: 100,
      salt: '0x09',
    })
    expect(r.delegation).toMatchObject({ delegator: GOLEM, delegate: REPLICANT, authority: grant.actions![0]!.hash })
    expect(decodeDelegationCaveats(r.delegation, DEPLOYMENT, ENV)).toEqual([
      { type: 'limitedCalls', limit: 100n },
      { type: 'allowedTargets', targets: [ROUTER, VAULT] },
      // The parent's receiver pin is carried: a Replicant, too, deposits only for the owner.
      { type: 'allowedCalldata', startIndex: 36n, value: pad(OWNER.toLowerCase() as Hex) },
      { type: 'redeemer', redeemers: [REPLICANT] },
      { type: 'replicantBudget', ...budget },
      { type: 'mortalityTimeWindow', startTime: NOW, endTime: NOW + DAY },
    ])
    expect(t.chain(r.hash)).toEqual([r.delegation, grant.actions![0]!.delegation])
    const signed = await t.sign(r.hash, keySigner(golemKey))
    expect(signed.signature).not.toBe('0x')
  })

  it('refuses targets outside the parent, a lifespan past the parent deadline, and a wider runway slice', () => {
    const t = tree()
    const grant = fullGrant(t)
    expect(() =>
      buildReplicantDelegation({ tree: t, parent: grant.actions![0]!.hash, replicant: REPLICANT, budget, maxCalls: 10, targets: [WETH] }),
    ).toThrowError(AttenuationError)
    expect(() =>
      buildReplicantDelegation({ tree: t, parent: grant.actions![0]!.hash, replicant: REPLICANT, budget, maxCalls: 10, targets: [WETH] }),
    ).toThrowError('Child allowedTargets [WETH] is not within parent allowedTargets [the Uniswap router, the USDC vault].')
    const short = buildGolemDelegation({
      tree: t,
      owner: OWNER,
      golem: GOLEM,
      bardo: golemBardo(GOLEM, NOW + 10n * DAY),
      actions: [{ targets: [ROUTER], selectors: ['0x04e45aaf'], receivers: [100] }],
    })
    expect(() =>
      buildReplicantDelegation({
        tree: t,
        parent: short.actions![0]!.hash,
        replicant: REPLICANT,
        budget: { ...budget, maxLifespanSeconds: 30n * DAY },
        maxCalls: 10,
      }),
    ).toThrowError('Child replicantBudget lifespan 30 days exceeds parent golemPhase from 1 Jan 2026 to 11 Jan 2026 (10 days).')
    const runway = { token: USDC, periodDuration: 86_400, startDate: Number(NOW) }
    expect(() =>
      buildReplicantDelegation({
        tree: t,
        parent: grant.runway!.hash,
        replicant: REPLICANT,
        budget,
        maxCalls: 10,
        runway: { ...runway, periodAmount: 200_000_000n },
      }),
    ).toThrowError('Child erc20PeriodTransfer 200 USDC/day exceeds parent erc20PeriodTransfer 100 USDC/day.')
    const slice = buildReplicantDelegation({
      tree: t,
      parent: grant.runway!.hash,
      replicant: REPLICANT,
      budget,
      maxCalls: 10,
      runway: { ...runway, periodAmount: 20_000_000n },
    })
    expect(t.chain(slice.hash)).toHaveLength(2)
  })

  it('refuses a Replicant under a Golem whose phase gate never allows sub-delegation', () => {
    const t = tree()
    const noSub = buildGolemDelegation({
      tree: t,
      owner: OWNER,
      golem: GOLEM,
      bardo: [{ type: 'golemPhase', golem: GOLEM, phaseMasks: [0x17, 0x17, 0x16, 0x16, 0x10], startTime: NOW, endTime: DEC_21_2026 }],
      actions: [{ targets: [ROUTER], selectors: ['0x04e45aaf'], receivers: [100] }],
    })
    expect(() =>
      buildReplicantDelegation({ tree: t, parent: noSub.actions![0]!.hash, replicant: REPLICANT, budget, maxCalls: 10 }),
    ).toThrowError(`parent golemPhase for ${GOLEM} allows sub-delegation in no phase, so a Replicant could never redeem`)
  })

  it('refuses the Golem as its own Replicant and a non-positive call limit', () => {
    const t = tree()
    const grant = fullGrant(t)
    expect(() =>
      buildReplicantDelegation({ tree: t, parent: grant.actions![0]!.hash, replicant: GOLEM, budget, maxCalls: 10 }),
    ).toThrowError(DelegationShapeError)
    expect(() =>
      buildReplicantDelegation({ tree: t, parent: grant.actions![0]!.hash, replicant: REPLICANT, budget, maxCalls: 0 }),
    ).toThrowError('maxCalls must be a positive integer, got 0')
  })
})

describe('encodeRedemptions', () => {
  it('refuses unsigned chains and empty execution lists', () => {
    const t = tree()
    const grant = fullGrant(t)
    expect(() =>
      encodeRedemptions([{ chain: t.chain(grant.actions![0]!.hash), executions: [{ target: ROUTER, value: 0n, callData: '0x' }] }]),
    ).toThrowError('redemptions[0].chain[0] is unsigned; sign it through the tree first')
    expect(() => encodeRedemptions([{ chain: [], executions: [] }])).toThrowError(
      'redemptions[0].executions must hold at least one execution',
    )
  })
})
