// Wind-down at the edge: reads what the Golem holds open in its owner's account (vault shares and
// allowances for the vaults and approvals its action grant names), plans the closing steps
// (core/lifecycle/windDownPlan.ts) and sends each through the action grant, exactly once per step slot.
// The calls execute from the owner's account, so the redeemed assets land there. The settled positions
// are read back from the step slots and their receipts, so a record built after a crash still lists
// every one with its transaction.
import { erc20Abi, getAbiItem, isAddressEqual, parseEventLogs, type Address, type Hex, type TransactionReceipt } from 'viem'
import { encodeActionCall, type ActionRequest } from '../../core/actions/actionCall.ts'
import type { GolemSigner } from '../../core/custody/golemSigner.ts'
import { ownerOf } from '../../core/custody/golemPolicy.ts'
import { encodeRedemptions } from '../../core/delegations/redeem.ts'
import { InvariantError } from '../../core/errors.ts'
import { grantedPositions, type GrantedPositions, type PositionEnforcers } from '../../core/lifecycle/grantedPositions.ts'
import type { Phase } from '../../core/lifecycle/phase.ts'
import type { GolemProfile } from '../../core/lifecycle/profile.ts'
import {
  MAX_WIND_DOWN_ATTEMPTS,
  redeemBase,
  revokeBase,
  windDownPlan,
  WindDownPlanError,
  windDownStep,
  type PositionLeftOpen,
  type PositionSettled,
  type WindDownStep,
} from '../../core/lifecycle/windDownPlan.ts'
import type { ActionGrantRecord } from '../../core/actions/actionGrant.ts'
import { ActionGrantError } from '../../core/actions/errors.ts'
import { sendOnce } from '../../adapters/chain/sendOnce.ts'
import { loadActionGrant } from '../actions/actionGrantStore.ts'
import type { SlotBase } from './slots.ts'
import type { TickDeps, TickResult } from './types.ts'

export type WindDownResult = {
  /** Every position wind-down has closed for this Golem so far, this tick's included. */
  settled: PositionSettled[]
  /** What this tick could not close, and why. */
  leftOpen: PositionLeftOpen[]
  /** A step another invocation holds (or one still in flight): the next tick finishes it. */
  pending: string | null
}

const nothing = (): WindDownResult => ({ settled: [], leftOpen: [], pending: null })

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
  },
): Promise<WindDownResult> {
  const record = await loadActionGrant(deps.store, golemId)
  if (!record) return nothing()
  const positions = grantedPositions(record, enforcersOf(deps))
  if (positions.vaults.length === 0 && positions.approvals.length === 0) return nothing()
  const owner = ownerOf(profile)
  const { settled, attempts } = await readSlots(deps, golemId, owner, positions)
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
  const plan = windDownPlan({ phase: p.phase, scope: p.scope, vaults, approvals, attempts })
  const leftOpen = [...plan.leftOpen]
  if (plan.steps.length === 0) return { settled, leftOpen, pending: null }
  if (typeof p.signer !== 'function') {
    const reason = p.signer.none
    leftOpen.push(...plan.steps.map((s) => openOf(s, reason)))
    return { settled, leftOpen, pending: null }
  }
  const signer = await p.signer()
  let pending: string | null = null
  for (const step of plan.steps) {
    const chain = chainOf(record, positions, step)
    const call = encodeActionCall(requestOf(step), owner)
    const sent = await sendOnce({
      ...slotBase,
      slot: { golemId, period: 0n, step: step.step },
      afterBroadcast: () => deps.afterBroadcast?.('winddown'),
      build: async () => ({
        sender: signer.address,
        to: deps.deployment.environment.DelegationManager,
        data: encodeRedemptions([{ chain, executions: [{ target: call.target, value: 0n, callData: call.callData }] }]),
        sign: (tx) => signer.signRedemptionTransaction(tx),
      }),
    })
    if (sent.status === 'confirmed') settled.push(settledOf(step, owner, sent.txHash, sent.receipt))
    else if (sent.status === 'busy') pending = `winddown ${step.step}: ${sent.reason}`
    else leftOpen.push(openOf(step, `${sent.status}: ${sent.reason}`))
  }
  return { settled, leftOpen, pending }
}

/** windDown, except that a grant record custody cannot read settles nothing rather than failing the tick again and again. */
export async function windDownOrNothing(...args: Parameters<typeof windDown>): Promise<WindDownResult> {
  try {
    return await windDown(...args)
  } catch (error) {
    if (error instanceof ActionGrantError || error instanceof WindDownPlanError) return nothing()
    throw error
  }
}

/** What a tick reports of its wind-down. */
export function windDownSummary(r: WindDownResult): NonNullable<TickResult['windDown']> {
  return { settled: r.settled.length, leftOpen: r.leftOpen, ...(r.pending ? { pending: r.pending } : {}) }
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
  }
}

/**
 * The attempts spent per position and the positions they settled: a confirmed slot settled its
 * position; a failed or reconciled one moved nothing and gives way to the next; a slot still claimed or
 * sent is the attempt in progress (sendOnce settles it from the chain).
 */
async function readSlots(
  deps: TickDeps,
  golemId: string,
  owner: Address,
  positions: GrantedPositions,
): Promise<{ settled: PositionSettled[]; attempts: Record<string, number> }> {
  const settled: PositionSettled[] = []
  const attempts: Record<string, number> = {}
  const bases: { base: string; position: { kind: 'redeem'; vault: Address } | { kind: 'revoke'; token: Address; spender: Address } }[] = [
    ...positions.vaults.map(({ vault }) => ({ base: redeemBase(vault), position: { kind: 'redeem' as const, vault } })),
    ...positions.approvals.map(({ token, spender }) => ({
      base: revokeBase(token, spender),
      position: { kind: 'revoke' as const, token, spender },
    })),
  ]
  for (const { base, position } of bases) {
    let k = 0
    for (; k < MAX_WIND_DOWN_ATTEMPTS; k++) {
      const slot = await deps.store.getSlot({ golemId, period: 0n, step: windDownStep(base, k) })
      if (!slot || slot.status === 'claimed' || slot.status === 'sent') break
      if (slot.status === 'confirmed' && slot.txHash) {
        const receipt = await deps.client.getTransactionReceipt({ hash: slot.txHash })
        const step: WindDownStep =
          position.kind === 'redeem'
            ? { ...position, base, step: slot.step, shares: 0n }
            : { ...position, base, step: slot.step, allowance: 0n }
        settled.push(settledOf(step, owner, slot.txHash, receipt))
      }
    }
    attempts[base] = k
  }
  return { settled, attempts }
}

function requestOf(step: WindDownStep): ActionRequest {
  return step.kind === 'redeem'
    ? { kind: 'redeem', vault: step.vault, shares: step.shares }
    : { kind: 'approve', token: step.token, spender: step.spender, amount: 0n }
}

function chainOf(record: ActionGrantRecord, positions: GrantedPositions, step: WindDownStep) {
  const hash =
    step.kind === 'redeem'
      ? positions.vaults.find((v) => v.vault === step.vault)?.delegation
      : positions.approvals.find((a) => a.token === step.token && a.spender === step.spender)?.delegation
  const entry = record.delegations.find((d) => d.hash === hash)
  if (!entry) throw new InvariantError('WIND_DOWN_GRANT', `wind-down: no delegation of the grant covers ${step.step}`)
  return entry.chain
}

/** A settled position as the record lists it: a vault's redemption with the shares and assets its Withdraw event reports. */
function settledOf(step: WindDownStep, owner: Address, txHash: Hex, receipt: TransactionReceipt): PositionSettled {
  if (step.kind === 'revoke') return { kind: 'approval', token: step.token, spender: step.spender, txHash }
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
  return step.kind === 'redeem'
    ? { kind: 'vault', vault: step.vault, shares: step.shares.toString(), reason }
    : { kind: 'approval', token: step.token, spender: step.spender, allowance: step.allowance.toString(), reason }
}
