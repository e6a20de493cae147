// Wind-down at the edge: reads what the Golem holds open in its owner's account (vault shares and
// allowances for the vaults and approvals its action grant names, and the owner's Uniswap V3 positions on
// every position manager it may remove liquidity from and collect on), plans the closing steps
// (core/lifecycle/windDownPlan.ts) and sends each through the action grant, exactly once per step slot.
// The calls execute from the owner's account, so the redeemed assets and the collected tokens land
// there. A position is closed by one redeemDelegations: decreaseLiquidity through the removal delegation
// (MaxSlippage refuses it while the pool is off the feeds; it is the first call of its redemption, as the
// enforcer requires), then collect through the collect delegation, to the owner. The settled positions
// are read back from the step slots and their receipts, so a record built after a crash still lists
// every one with its transaction.
import { erc20Abi, getAbiItem, isAddressEqual, parseEventLogs, type Address, type Hex, type TransactionReceipt } from 'viem'
import type { ExecutionStruct } from '@metamask/smart-accounts-kit'
import { encodeActionCall, type ActionRequest } from '../../core/actions/actionCall.ts'
import type { GolemSigner } from '../../core/custody/golemSigner.ts'
import { ownerOf } from '../../core/custody/golemPolicy.ts'
import { encodeRedemptions, type Redemption } from '../../core/delegations/redeem.ts'
import { InvariantError } from '../../core/errors.ts'
import {
  grantedPositions,
  type GrantedLiquidity,
  type GrantedPositions,
  type PositionEnforcers,
} from '../../core/lifecycle/grantedPositions.ts'
import type { Phase } from '../../core/lifecycle/phase.ts'
import type { GolemProfile } from '../../core/lifecycle/profile.ts'
import {
  closeAllDue,
  liquidityBase,
  liquidityOpen,
  MAX_WIND_DOWN_ATTEMPTS,
  redeemBase,
  revokeBase,
  windDownPlan,
  WindDownPlanError,
  windDownStep,
  type LiquidityHolding,
  type PositionLeftOpen,
  type PositionSettled,
  type WindDownStep,
} from '../../core/lifecycle/windDownPlan.ts'
import type { ActionGrantRecord } from '../../core/actions/actionGrant.ts'
import { ActionGrantError } from '../../core/actions/errors.ts'
import { PositionManagerTickAbi } from '../../adapters/chain/positionManagerAbi.ts'
import { deploylessMulticall } from '../../adapters/chain/deploylessMulticall.ts'
import { sendOnce, settleSlot } from '../../adapters/chain/sendOnce.ts'
import { loadActionGrant } from '../actions/actionGrantStore.ts'
import type { SlotBase } from './slots.ts'
import type { TickDeps, TickResult } from './types.ts'

export type WindDownResult = {
  /** How many positions wind-down has closed for this Golem so far, this tick's included. */
  settled: number
  /** Those positions with their transactions, read from their receipts: only when asked for (`describe`). */
  positionsSettled?: PositionSettled[]
  /** What this tick could not close, and why. */
  leftOpen: PositionLeftOpen[]
  /** A step another invocation holds (or one still in flight): the next tick finishes it. */
  pending: string | null
}

const nothing = (describe?: boolean): WindDownResult => ({
  settled: 0,
  ...(describe ? { positionsSettled: [] } : {}),
  leftOpen: [],
  pending: null,
})

const withdrawEvent = getAbiItem({
  abi: [
    {
      type: 'event',
      name: 'Withdraw',
      inputs: [
        { name: 'sender', type: 'address', indexed: true },
        { name: 'receiver', type: 'address', indexed: true },
        { name: 'owner', type: 'address', indexed: true },
        { name: 'assets', type: 'uint256', indexed: false },
        { name: 'shares', type: 'uint256', indexed: false },
      ],
    },
  ] as const,
  name: 'Withdraw',
})

export async function windDown(
  deps: TickDeps,
  slotBase: SlotBase,
  golemId: string,
  profile: GolemProfile,
  p: {
    phase: Phase
    scope: 'approvals' | 'all'
    /**
     * The Golem's signer, or why nothing may be sent any more (the key is retired, the Golem is no longer
     * registered): the settled positions are then only read back, and what is open is listed with the reason.
     */
    signer: (() => Promise<GolemSigner>) | { none: string }
    /** Read every settled position's receipt for the record (the death protocol); a tick only counts them. */
    describe?: boolean
  },
  /** The grant as grantOf read it, when the caller already did. */
  granted?: Granted | null,
): Promise<WindDownResult> {
  const grant = granted === undefined ? await grantOf(deps, golemId) : granted
  if (!grant) return nothing(p.describe)
  const { record, positions } = grant
  const owner = ownerOf(profile)
  // Every position the owner's account holds on a manager whose collect pays the owner, closed or not:
  // a closed one is read for its settled slot (the record lists it), an open one is planned.
  const liquidity = await readLiquidity(
    deps,
    owner,
    positions.liquidity.filter((l) => isAddressEqual(l.recipient, owner)),
  )
  const inFlight = await readSlots(deps, slotBase, golemId, positions, liquidity)
  const { confirmed, attempts } = inFlight
  const vaults =
    p.scope === 'all'
      ? await Promise.all(
          positions.vaults.map(async ({ vault }) => ({
            vault,
            shares: await deps.client.readContract({ address: vault, abi: erc20Abi, functionName: 'balanceOf', args: [owner] }),
          })),
        )
      : []
  const approvals = await Promise.all(
    positions.approvals.map(async ({ token, spender }) => ({
      token,
      spender,
      allowance: await deps.client.readContract({ address: token, abi: erc20Abi, functionName: 'allowance', args: [owner, spender] }),
    })),
  )
  const plan = windDownPlan({ phase: p.phase, scope: p.scope, vaults, approvals, liquidity, attempts })
  const leftOpen = [...plan.leftOpen]
  const done = async (pending: string | null): Promise<WindDownResult> => ({
    settled: confirmed.length,
    ...(p.describe
      ? {
          positionsSettled: await Promise.all(
            confirmed.map(async (c) =>
              settledOf(c.step, owner, c.txHash, c.receipt ?? (await deps.client.getTransactionReceipt({ hash: c.txHash }))),
            ),
          ),
        }
      : {}),
    leftOpen,
    pending,
  })
  if (plan.steps.length === 0) return done(inFlight.pending)
  if (typeof p.signer !== 'function') {
    const reason = p.signer.none
    leftOpen.push(...plan.steps.map((s) => openOf(s, reason)))
    return done(inFlight.pending)
  }
  const signer = await p.signer()
  let pending = inFlight.pending
  for (const step of plan.steps) {
    const redemptions = redemptionsOf(record, positions, step, owner)
    const sent = await sendOnce({
      ...slotBase,
      slot: { golemId, period: 0n, step: step.step },
      afterBroadcast: () => deps.afterBroadcast?.('winddown'),
      build: async () => ({
        sender: signer.address,
        to: deps.deployment.environment.DelegationManager,
        data: encodeRedemptions(redemptions),
        sign: (tx) => signer.signRedemptionTransaction(tx),
      }),
    })
    if (sent.status === 'confirmed') confirmed.push({ step, txHash: sent.txHash, receipt: sent.receipt })
    else if (sent.status === 'busy') pending = `winddown ${step.step}: ${sent.reason}`
    // Mined but not yet as deep as the chain's confirmation depth: a later tick settles it.
    else if (sent.status === 'pending') pending = `winddown ${step.step}: ${sent.confirmations} of ${sent.needed} confirmations`
    else leftOpen.push(openOf(step, `${sent.status}: ${sent.reason}`))
  }
  return done(pending)
}

export type Granted = { record: ActionGrantRecord; positions: GrantedPositions }

/** The action grant in force and what it lets the Golem hold open; null when it names nothing wind-down can close. */
export async function grantOf(deps: TickDeps, golemId: string): Promise<Granted | null> {
  const record = await loadActionGrant(deps.store, golemId)
  if (!record) return null
  const positions = grantedPositions(record, enforcersOf(deps))
  return positions.vaults.length === 0 && positions.approvals.length === 0 && positions.liquidity.length === 0
    ? null
    : { record, positions }
}

/**
 * The tick's close-all, when it is due (core/lifecycle/windDownPlan.ts closeAllDue): in Declining, or when
 * a delegation covering a position stops acting before the next tick. Null when not due: then only the
 * grant was read, nothing on the chain.
 */
export async function closeAllIfDue(
  deps: TickDeps,
  slotBase: SlotBase,
  golemId: string,
  profile: GolemProfile,
  p: { phase: Phase; nextTickAt: bigint; signer: () => Promise<GolemSigner> },
): Promise<WindDownResult | null> {
  // Provisioned without an action grant: nothing the Golem holds to close, and no log to read.
  if (profile.actionGrant === false) return null
  let grant: Granted | null
  try {
    grant = await grantOf(deps, golemId)
  } catch (error) {
    if (error instanceof ActionGrantError) return null
    throw error
  }
  if (!grant) return null
  const endsAt = [...grant.positions.vaults, ...grant.positions.approvals, ...grant.positions.liquidity].map((g) => g.endsAt)
  if (!closeAllDue({ phase: p.phase, nextTickAt: p.nextTickAt, endsAt })) return null
  return windDownOrNothing(deps, slotBase, golemId, profile, { phase: p.phase, scope: 'all', signer: p.signer }, grant)
}

/** windDown, except that a grant record custody cannot read settles nothing rather than failing the tick again and again. */
export async function windDownOrNothing(...args: Parameters<typeof windDown>): Promise<WindDownResult> {
  try {
    return await windDown(...args)
  } catch (error) {
    if (error instanceof ActionGrantError || error instanceof WindDownPlanError) return nothing(args[4].describe)
    throw error
  }
}

/** What a tick reports of its wind-down. */
export function windDownSummary(r: WindDownResult): NonNullable<TickResult['windDown']> {
  return { settled: r.settled, leftOpen: r.leftOpen, ...(r.pending ? { pending: r.pending } : {}) }
}

function enforcersOf(deps: TickDeps): PositionEnforcers {
  const e = deps.deployment.environment.caveatEnforcers
  const named = (name: string): Address => {
    const address = e[name]
    if (!address) throw new InvariantError('FRAMEWORK_MISSING', `deployment: the framework has no ${name}`)
    return address
  }
  return {
    allowedTargets: named('AllowedTargetsEnforcer'),
    allowedMethods: named('AllowedMethodsEnforcer'),
    allowedCalldata: named('AllowedCalldataEnforcer'),
    golemPhase: deps.deployment.enforcers.golemPhase,
  }
}

type Confirmed = { step: WindDownStep; txHash: Hex; receipt?: TransactionReceipt }

/**
 * The attempts spent per position and the steps that settled one: a confirmed slot settled its
 * position; a failed or reconciled one moved nothing and gives way to the next. A slot with a recorded
 * transaction that no tick saw through (a crash after the broadcast) is settled from the chain first,
 * never signed again: its redemption may have emptied the position, so no plan would name it again. A
 * slot without a transaction (none yet, or a bare claim an older tick left in the store) is the attempt
 * to use next.
 */
async function readSlots(
  deps: TickDeps,
  slotBase: SlotBase,
  golemId: string,
  positions: GrantedPositions,
  liquidity: readonly LiquidityHolding[],
): Promise<{ confirmed: Confirmed[]; attempts: Record<string, number>; pending: string | null }> {
  const confirmed: Confirmed[] = []
  const attempts: Record<string, number> = {}
  let pending: string | null = null
  const steps: WindDownStep[] = [
    ...positions.vaults.map(({ vault }) => ({ kind: 'redeem' as const, base: redeemBase(vault), step: '', vault, shares: 0n })),
    ...liquidity.map((l) => ({ kind: 'removeLiquidity' as const, base: liquidityBase(l.manager, l.tokenId), step: '', ...l })),
    ...positions.approvals.map(({ token, spender }) => ({
      kind: 'revoke' as const,
      base: revokeBase(token, spender),
      step: '',
      token,
      spender,
      allowance: 0n,
    })),
  ]
  for (const position of steps) {
    let k = 0
    for (; k < MAX_WIND_DOWN_ATTEMPTS; k++) {
      const ref = { golemId, period: 0n, step: windDownStep(position.base, k) }
      const slot = await deps.store.getSlot(ref)
      if (!slot || slot.status === 'claimed') break
      const step = { ...position, step: ref.step }
      if (slot.status === 'sent') {
        const settled = await settleSlot({ ...slotBase, slot: ref }, slot)
        if (settled.status === 'confirmed') confirmed.push({ step, txHash: settled.txHash, receipt: settled.receipt })
        else if (settled.status === 'busy') {
          pending = `winddown ${ref.step}: ${settled.reason}`
          break
        }
      } else if (slot.status === 'confirmed' && slot.txHash) confirmed.push({ step, txHash: slot.txHash })
    }
    attempts[position.base] = k
  }
  return { confirmed, attempts, pending }
}

/**
 * The redemptions of one step, in one redeemDelegations. A liquidity close is decreaseLiquidity through
 * the removal delegation (left out when the position has no liquidity, only owed tokens), then collect of
 * everything owed to the owner through the collect delegation: each its own single-call redemption, the
 * removal first, so MaxSlippage sees it as the first call of its batch (it refuses a removal after any
 * call but another removal or collect on the same manager) and collect pays out what it just removed.
 */
function redemptionsOf(record: ActionGrantRecord, positions: GrantedPositions, step: WindDownStep, owner: Address): Redemption[] {
  const execution = (request: ActionRequest): ExecutionStruct => {
    const call = encodeActionCall(request, owner)
    return { target: call.target, value: 0n, callData: call.callData }
  }
  if (step.kind === 'removeLiquidity') {
    const granted = positions.liquidity.find((l) => isAddressEqual(l.manager, step.manager))
    const { manager: positionManager, tokenId } = step
    return [
      ...(step.liquidity > 0n
        ? [
            {
              chain: chainOf(record, granted?.removal, step),
              executions: [execution({ kind: 'removeLiquidity', positionManager, tokenId, liquidity: step.liquidity })],
            },
          ]
        : []),
      { chain: chainOf(record, granted?.collect, step), executions: [execution({ kind: 'collect', positionManager, tokenId })] },
    ]
  }
  const hash =
    step.kind === 'redeem'
      ? positions.vaults.find((v) => v.vault === step.vault)?.delegation
      : positions.approvals.find((a) => a.token === step.token && a.spender === step.spender)?.delegation
  const request: ActionRequest =
    step.kind === 'redeem'
      ? { kind: 'redeem', vault: step.vault, shares: step.shares }
      : { kind: 'approve', token: step.token, spender: step.spender, amount: 0n }
  return [{ chain: chainOf(record, hash, step), executions: [execution(request)] }]
}

function chainOf(record: ActionGrantRecord, hash: Hex | undefined, step: WindDownStep) {
  const entry = record.delegations.find((d) => d.hash === hash)
  if (!entry) throw new InvariantError('WIND_DOWN_GRANT', `wind-down: no delegation of the grant covers ${step.step}`)
  return entry.chain
}

/**
 * The owner's positions on each granted manager: how many it holds on each, then their ids (ERC-721
 * enumeration), then positions(tokenId). Each read needs the one before, so they are at most three
 * deployless multicalls for every manager and position at once (none past a step with nothing to read),
 * not one call per position; each reads the latest block, as the vault and approval reads do.
 */
async function readLiquidity(deps: TickDeps, owner: Address, granted: readonly GrantedLiquidity[]): Promise<LiquidityHolding[]> {
  if (granted.length === 0) return []
  const batched = { allowFailure: false } as const
  const abi = PositionManagerTickAbi
  const counts = await deploylessMulticall(deps.client, {
    ...batched,
    contracts: granted.map(({ manager }) => ({ address: manager, abi, functionName: 'balanceOf', args: [owner] }) as const),
  })
  const held = granted.flatMap(({ manager }, m) => Array.from({ length: Number(counts[m]) }, (_, i) => ({ manager, index: BigInt(i) })))
  if (held.length === 0) return []
  const ids = await deploylessMulticall(deps.client, {
    ...batched,
    contracts: held.map(
      ({ manager, index }) => ({ address: manager, abi, functionName: 'tokenOfOwnerByIndex', args: [owner, index] }) as const,
    ),
  })
  const positions = await deploylessMulticall(deps.client, {
    ...batched,
    contracts: held.map(({ manager }, i) => ({ address: manager, abi, functionName: 'positions', args: [ids[i]!] }) as const),
  })
  return held.map(({ manager }, i): LiquidityHolding => {
    const p = positions[i]!
    return { manager, tokenId: ids[i]!, token0: p[2], token1: p[3], liquidity: p[7], tokensOwed0: p[10], tokensOwed1: p[11] }
  })
}

/**
 * A settled position as the record lists it: a vault's redemption with the shares and assets its Withdraw
 * event reports; a liquidity close with the liquidity its DecreaseLiquidity events and the amounts its
 * Collect events (to the owner) report.
 */
function settledOf(step: WindDownStep, owner: Address, txHash: Hex, receipt: TransactionReceipt): PositionSettled {
  if (step.kind === 'revoke') return { kind: 'approval', token: step.token, spender: step.spender, txHash }
  if (step.kind === 'removeLiquidity') {
    const ofPosition = <T extends { address: Address; args: { tokenId?: bigint } }>(logs: T[]) =>
      logs.filter((l) => isAddressEqual(l.address, step.manager) && l.args.tokenId === step.tokenId)
    const decreased = ofPosition(parseEventLogs({ abi: PositionManagerTickAbi, eventName: 'DecreaseLiquidity', logs: receipt.logs }))
    const collected = ofPosition(parseEventLogs({ abi: PositionManagerTickAbi, eventName: 'Collect', logs: receipt.logs })).filter((l) =>
      isAddressEqual(l.args.recipient, owner),
    )
    const sum = (values: bigint[]) => values.reduce((a, b) => a + b, 0n).toString()
    return {
      kind: 'liquidity',
      manager: step.manager,
      tokenId: step.tokenId.toString(),
      token0: step.token0,
      token1: step.token1,
      liquidity: sum(decreased.map((l) => l.args.liquidity)),
      amount0: sum(collected.map((l) => l.args.amount0)),
      amount1: sum(collected.map((l) => l.args.amount1)),
      txHash,
    }
  }
  const withdraw = parseEventLogs({ abi: [withdrawEvent], logs: receipt.logs }).find(
    (l) => isAddressEqual(l.address, step.vault) && isAddressEqual(l.args.owner, owner),
  )
  return {
    kind: 'vault',
    vault: step.vault,
    shares: (withdraw?.args.shares ?? step.shares).toString(),
    assets: (withdraw?.args.assets ?? 0n).toString(),
    txHash,
  }
}

function openOf(step: WindDownStep, reason: string): PositionLeftOpen {
  if (step.kind === 'removeLiquidity') return liquidityOpen(step, reason)
  return step.kind === 'redeem'
    ? { kind: 'vault', vault: step.vault, shares: step.shares.toString(), reason }
    : { kind: 'approval', token: step.token, spender: step.spender, allowance: step.allowance.toString(), reason }
}
