// Executes the death protocol that core/lifecycle/deathPlan.ts orders, once a Golem is Terminal, its grant
// has ended or its owner revoked it. Every step is a store slot, so a crashed or retried tick continues
// where the last one stopped.
import { encodeFunctionData, parseEventLogs, type Address, type Hex, type TransactionReceipt } from 'viem'
import { encodeDisableDelegation } from '../../core/delegations/redeem.ts'
import { VitalityOracleTickAbi } from '../../adapters/chain/oracleAbi.ts'
import type { GolemProfile } from '../../core/lifecycle/profile.ts'
import type { GolemSigner } from '../../core/custody/golemSigner.ts'
import {
  deathCause,
  deathSettlementOf,
  deregisterStep,
  disableSteps,
  FINAL_SURVIVAL_SCORE_BPS,
  KEY_ZEROED_STEP,
  MAX_DEREGISTER_ATTEMPTS,
  MAX_SPENT_OPERATOR_ATTEMPTS,
  TERMINAL_STEP,
  terminalPostNeeded,
  terminalResetReason,
  terminalResetStep,
} from '../../core/lifecycle/deathPlan.ts'
import { Phase } from '../../core/lifecycle/phase.ts'
import { deathEventTime } from '../../core/lifecycle/eventOrder.ts'
import { PASSED, RETRY, retry } from '../../core/retry.ts'
import { type GolemRecord, isSpent, slotSentAt, type SlotRef, type TickSlot } from '../../core/store/index.ts'
import { sendOnce, settleSlot, type SlotSendOutcome } from '../../adapters/chain/sendOnce.ts'
import { maxGasCost, returnFunds } from './returnFunds.ts'
import { feesPerGasOf } from '../../core/fees.ts'
import type { ObservedGolem } from '../../core/lifecycle/observation.ts'
import { slotBaseOf, type SlotBase } from './slots.ts'
import { phaseChangedEvent } from './reconcile.ts'
import { windDownOrNothing, type WindDownResult } from './windDown.ts'
import type { TickDeps, TickResult } from './types.ts'

const done = (s: SlotSendOutcome) =>
  s.status === 'confirmed' || s.status === 'reconciled' || (s.status === 'busy' && s.reason === 'completed')

export async function runDeathProtocol(
  deps: TickDeps,
  golem: GolemRecord,
  profile: GolemProfile,
  read: ObservedGolem,
  nowMs: number,
): Promise<TickResult> {
  const { store } = deps
  const golemId = golem.golemId
  const slotBase = slotBaseOf(deps, nowMs)

  const keyRetired = await store.getSlot({ golemId, period: 0n, step: KEY_ZEROED_STEP })
  let resolved: Promise<GolemSigner> | undefined
  const signerOf = () => (resolved ??= deps.signers.resolve(profile).then((s) => s.signer))

  // 1. Settle what the Golem holds open in the owner's account, before anything takes its authority away:
  //    its vault shares are redeemed (a settlement action the phase gate allows even in Terminal), its
  //    allowances revoked while the phase still allows approve. Best effort: whatever the grant no longer
  //    allows (revoked, expired) is listed as left open, and the death goes on.
  const wound = await settlePositions(deps, slotBase, golemId, profile, read, keyRetired ? { none: 'the key is retired' } : signerOf)
  if (wound.pending) return { golemId, outcome: 'busy', redemption: { status: 'death-pending', reason: wound.pending } }

  // 2. Post Terminal while the oracle still lists the Golem: deregistration keeps the phase it finds, and
  //    the death event the indexer records carries it, so every surface says Terminal after the death.
  const terminal = await postTerminal(deps, slotBase, golemId, profile, read)
  if (!terminal.done) return { golemId, outcome: 'busy', redemption: { status: 'death-pending', reason: terminal.reason } }
  await recordTerminal(deps, slotBase, golemId, terminal)
  const final = { ...read, phase: terminal.phase, survivalScoreBps: terminal.survivalScoreBps }

  // 3. Deregister on the VitalityOracle with the operator key (its owner), before anything else: from
  //    then on every Bardo delegation of the Golem refuses its key (GolemPhase: GolemNotRegistered),
  //    whatever grant the owner has not disabled yet. The steps after it need no registration.
  const deregistration = await deregister(deps, slotBase, golemId, profile, read.registered)
  if (!deregistration.done) return { golemId, outcome: 'busy', redemption: { status: 'death-pending', reason: deregistration.reason } }
  const deregisterTx = deregistration.txHash

  // 4. Disable every sub-delegation this Golem signed.
  const disabled: Hex[] = []
  const subDelegations = disableSteps(profile)
  if (!keyRetired && subDelegations.length > 0) {
    const signer = await signerOf()
    for (const d of subDelegations) {
      const sent = await sendOnce({
        ...slotBase,
        slot: { golemId, period: 0n, step: d.step },
        afterBroadcast: () => deps.afterBroadcast?.('disable'),
        build: async () => ({
          sender: signer.address,
          to: deps.deployment.environment.DelegationManager,
          data: encodeDisableDelegation(d.delegation),
          sign: (tx) => signer.signDisableDelegation(tx),
        }),
      })
      // Already disabled (e.g. by an earlier attempt whose record was lost) counts as done.
      if (!done(sent) && !(sent.status === 'refused' && sent.reason === 'AlreadyDisabled')) {
        return { golemId, outcome: 'busy', redemption: { status: 'death-pending', reason: `disable ${d.hash}: ${sent.status}` } }
      }
      disabled.push(d.hash)
    }
  }
  if (keyRetired) disabled.push(...subDelegations.map((d) => d.hash))

  // 5. Return the key's unspent funds to the owner, token first and ETH last, before the key that can
  //    move them is zeroed. Once the key is zeroed every return is settled and only read back.
  const returned = await returnFunds(deps, slotBase, golemId, profile, keyRetired ? null : signerOf)
  if (!returned.done) return { golemId, outcome: 'busy', redemption: { status: 'death-pending', reason: returned.reason } }

  // 6. Zero the key: after this nothing can be signed for the Golem, ever. Retiring is idempotent and
  //    runs on every attempt: a process that still holds a copy of a memory key zeroes it too.
  await deps.signers.retire(profile)
  if (!keyRetired) {
    await store.claimSlot({ golemId, period: 0n, step: KEY_ZEROED_STEP, owner: deps.invocationId, now: nowMs, leaseMs: 1 })
    await store.completeSlot({ golemId, period: 0n, step: KEY_ZEROED_STEP, owner: deps.invocationId, outcome: 'reconciled', now: nowMs })
  }

  // 7. The DeathSettlement record (write-once), then the Golem is dead.
  const cause = deathCause(read)
  await store.recordDeathSettlement({
    golemId,
    kind: 'DelegationExpiry',
    settledAt: nowMs,
    settlement: deathSettlementOf(profile, final, {
      positionsSettled: wound.positionsSettled ?? [],
      positionsLeftOpen: wound.leftOpen,
      subDelegationsDisabled: disabled,
      deregisterTx,
      fundsReturned: returned.lines,
    }),
  })
  await store.appendEvent({
    golemId,
    type: 'DeathCompleted',
    at: deathEventTime(nowMs, 'DeathCompleted'),
    eventId: 'DeathCompleted',
    data: { delegationHash: profile.runway.chainHashes[0] as string, cause },
  })
  // The record this tick holds; a conflict answer (a credit landed meanwhile) carries the current one.
  const deadPatch = {
    status: 'dead' as const,
    phase: 'Terminal' as const,
    lastTick: { at: nowMs, period: read.currentPeriod, outcome: 'dead', txHash: deregisterTx, survivalScoreBps: FINAL_SURVIVAL_SCORE_BPS },
  }
  const marked = await store.updateGolem({ golemId, expectedVersion: golem.version, patch: deadPatch, now: nowMs })
  if (!marked.updated && marked.current && marked.current.status !== 'dead') {
    await store.updateGolem({ golemId, expectedVersion: marked.current.version, patch: deadPatch, now: nowMs })
  }
  return {
    golemId,
    outcome: 'died',
    phase: { from: read.phase, to: Phase.Terminal, posted: terminal.posted },
    vitality: FINAL_SURVIVAL_SCORE_BPS / 10_000,
    redemption: { status: 'revoke' },
  }
}

/**
 * Step 1: wind-down with everything in scope, in the phase the chain holds the Golem in. A Golem the
 * oracle no longer lists can act no more (its delegations refuse GolemNotRegistered), so only what was
 * settled is read back. A grant record custody cannot read settles nothing rather than holding the death.
 */
async function settlePositions(
  deps: TickDeps,
  slotBase: SlotBase,
  golemId: string,
  profile: GolemProfile,
  read: ObservedGolem,
  signer: (() => Promise<GolemSigner>) | { none: string },
): Promise<WindDownResult> {
  return windDownOrNothing(deps, slotBase, golemId, profile, {
    phase: read.phase,
    scope: 'all',
    describe: true,
    signer: read.registered ? signer : { none: 'the Golem is no longer registered: its delegations refuse every call' },
  })
}

/** A post that reached the chain: a slot `reconciled` lost its nonce to another transaction and posted nothing. */
const landed = (s: SlotSendOutcome) => s.status === 'confirmed' || (s.status === 'busy' && s.reason === 'completed')

type TerminalPosted =
  | {
      done: true
      phase: Phase
      survivalScoreBps: number
      posted: boolean
      /** The slot whose transaction took the Golem to Terminal in this attempt, and how (the key's post, the operator's reset). */
      landed?: { slot: SlotRef; by: 'post' | 'reset'; receipt?: TransactionReceipt }
    }
  | { done: false; reason: string }

/** The receipt of an outcome that confirmed in this attempt (none for a slot an earlier attempt completed). */
const receiptOf = (s: SlotSendOutcome) => (s.status === 'confirmed' ? { receipt: s.receipt } : {})

/**
 * Terminal as the oracle took it, in the store once, placed after the tick's own events: PhaseChanged from
 * the key's post (its PhaseTransition log), or PhaseReset from the operator's reset (its PhaseReset log).
 * Both are looked for on every attempt, so a death resumed after a crash that followed either still
 * records it.
 */
async function recordTerminal(
  deps: TickDeps,
  slotBase: SlotBase,
  golemId: string,
  terminal: Extract<TerminalPosted, { done: true }>,
): Promise<void> {
  const landed = terminal.landed
  if (landed?.by !== 'reset') {
    const post = await phaseChangedEvent(
      deps.client,
      deps.store,
      landed?.slot ?? { golemId, period: 0n, step: TERMINAL_STEP },
      landed?.receipt,
    )
    if (post?.type === 'PhaseChanged') {
      await deps.store.appendEvent({
        golemId,
        type: post.type,
        at: deathEventTime(Number(post.at) * 1000, post.type),
        eventId: `phase:${post.to}`,
        data: { from: post.from, to: post.to, survivalScoreBps: post.survivalScoreBps },
      })
      return
    }
    // The key's own post landed in this attempt: no reset was sent.
    if (landed) return
  }
  const reset = await landedReset(deps, slotBase, golemId)
  if (!reset) return
  await deps.store.appendEvent({
    golemId,
    type: 'PhaseReset',
    at: deathEventTime(slotSentAt(reset.slot), 'PhaseReset'),
    eventId: `PhaseReset:${reset.slot.step}`,
    data: { from: reset.from, to: Phase.Terminal, reason: 'death' },
  })
}

/**
 * The operator's reset to Terminal that landed, as the chain recorded it: the first reset attempt that is
 * not spent, settled from the chain first when an attempt that crashed after its broadcast left it `sent`.
 * Null when no reset landed.
 */
async function landedReset(deps: TickDeps, slotBase: SlotBase, golemId: string): Promise<{ slot: TickSlot; from: number } | null> {
  for (let attempt = 0; attempt <= MAX_DEREGISTER_ATTEMPTS + MAX_SPENT_OPERATOR_ATTEMPTS; attempt++) {
    const ref = { golemId, period: 0n, step: terminalResetStep(attempt) }
    const slot = await deps.store.getSlot(ref)
    if (slot === null) return null
    if (isSpent(slot.status)) continue
    let receipt: TransactionReceipt
    if (slot.status === 'sent') {
      // Settled from the chain here: its receipt is the one the settling read.
      const settled = await settleSlot({ ...slotBase, slot: ref }, slot)
      if (settled.status !== 'confirmed') return null
      receipt = settled.receipt
    } else if (slot.status === 'confirmed' && slot.txHash) receipt = await deps.client.getTransactionReceipt({ hash: slot.txHash })
    else return null
    const [log] = parseEventLogs({ abi: VitalityOracleTickAbi, logs: receipt.logs, eventName: 'PhaseReset' })
    return log ? { slot, from: log.args.fromPhase } : null
  }
  return null
}

/**
 * Step 2: the Golem's own key reports Terminal with the final score, as it reported every phase before;
 * a key that cannot (no gas left after the owner's revocation, say) leaves it to the operator's audited
 * reset, which keeps the last reported score. Every attempt is one slot, so a resumed death never sends
 * twice, and one that already landed shows in the read (Terminal, or no longer listed).
 */
async function postTerminal(
  deps: TickDeps,
  slotBase: SlotBase,
  golemId: string,
  profile: GolemProfile,
  read: ObservedGolem,
): Promise<TerminalPosted> {
  const keep: TerminalPosted = { done: true, phase: read.phase, survivalScoreBps: read.survivalScoreBps, posted: false }
  const needed = terminalPostNeeded(read)
  if (needed === 'none') return keep
  const oracle = deps.deployment.vitalityOracle
  const ownSlot = { golemId, period: 0n, step: TERMINAL_STEP }
  const own = await deps.store.getSlot(ownSlot)
  const signer = await deps.signers.resolve(profile).then(
    (s) => s.signer,
    () => null,
  )
  const data = encodeFunctionData({
    abi: VitalityOracleTickAbi,
    functionName: 'updatePhase',
    args: [Phase.Terminal, FINAL_SURVIVAL_SCORE_BPS],
  })
  // A first attempt only when the key can pay for it: a transaction it cannot pay is refused at broadcast.
  const mayTry = signer !== null && !isSpent(own?.status)
  if (signer && mayTry && (own ? true : await keyCanPay(deps, signer.address, data))) {
    // Whatever else stops the key's own post (a node that refuses it, say), the operator's reset still can.
    const sent = await sendOnce({
      ...slotBase,
      slot: ownSlot,
      afterBroadcast: () => deps.afterBroadcast?.('terminal'),
      build: async () => ({ sender: signer.address, to: oracle, data, sign: (tx) => signer.signOracleUpdate(tx) }),
    }).catch(() => null)
    if (sent && landed(sent))
      return {
        done: true,
        phase: Phase.Terminal,
        survivalScoreBps: FINAL_SURVIVAL_SCORE_BPS,
        posted: true,
        landed: { slot: ownSlot, by: 'post', ...receiptOf(sent) },
      }
    if (sent?.status === 'busy') return { done: false, reason: `terminal: ${sent.status}` }
  }
  // Already Terminal: the operator's reset cannot set a score, so the last reported one stays.
  if (needed === 'score') return keep
  const exhausted = (): TerminalPosted => ({ done: false, reason: 'terminal: no reset confirmed' })
  const policy = { attempts: MAX_DEREGISTER_ATTEMPTS, passes: MAX_SPENT_OPERATOR_ATTEMPTS, exhausted }
  return retry<TerminalPosted>(policy, async (attempt) => {
    const slot = { golemId, period: 0n, step: terminalResetStep(attempt) }
    const existing = await deps.store.getSlot(slot)
    if (isSpent(existing?.status)) return PASSED
    const sent = await sendOnce({
      ...slotBase,
      slot,
      afterBroadcast: () => deps.afterBroadcast?.('terminal'),
      build: async () => ({
        sender: deps.operator.address,
        to: oracle,
        data: encodeFunctionData({
          abi: VitalityOracleTickAbi,
          functionName: 'resetPhase',
          args: [profile.golemKey, Phase.Terminal, terminalResetReason(read)],
        }),
        sign: (tx) => deps.operator.signTransaction(tx),
      }),
    })
    if (landed(sent))
      return { done: true, phase: Phase.Terminal, survivalScoreBps: read.survivalScoreBps, posted: true, landed: { slot, by: 'reset' } }
    if (sent.status === 'refused' && sent.reason === 'GolemNotRegistered') return keep
    if (isSpent(sent.status)) return RETRY
    return { done: false, reason: `terminal: ${sent.status}` }
  })
}

/** Whether the key's ETH covers the most the post can cost, priced as sendOnce prices it. */
async function keyCanPay(deps: TickDeps, key: Address, data: Hex): Promise<boolean> {
  const to = deps.deployment.vitalityOracle
  const [balance, fees, gas] = await Promise.all([
    deps.client.getBalance({ address: key }),
    deps.fees ? feesPerGasOf(deps.fees) : deps.client.estimateFeesPerGas(),
    deps.client.estimateGas({ account: key, to, data }).catch(() => null),
  ])
  return gas !== null && balance >= maxGasCost(gas, fees.maxFeePerGas)
}

type Deregistered = { done: true; txHash: Hex | null } | { done: false; reason: string }

/**
 * Deregistration is exactly-once by the oracle itself (a second one reverts GolemNotRegistered). The
 * operator key is shared by every tick, so an attempt can lose its nonce to another operator
 * transaction (the slot then ends `reconciled`, nothing deregistered): it is retried under a fresh
 * slot while the oracle still lists the Golem. An attempt sent but never seen through (after a crash
 * or a lost answer: the read then already says unregistered) is settled from the chain first, so the
 * record names the transaction that did it.
 */
async function deregister(
  deps: TickDeps,
  slotBase: SlotBase,
  golemId: string,
  profile: GolemProfile,
  registeredAtRead: boolean,
): Promise<Deregistered> {
  const oracle = deps.deployment.vitalityOracle
  const exhausted = (): Deregistered => ({ done: false, reason: 'deregister: no attempt confirmed' })
  const policy = { attempts: MAX_DEREGISTER_ATTEMPTS, passes: MAX_SPENT_OPERATOR_ATTEMPTS, exhausted }
  return retry<Deregistered>(policy, async (attempt) => {
    const slot = { golemId, period: 0n, step: deregisterStep(attempt) }
    const existing = await deps.store.getSlot(slot)
    if (existing?.status === 'confirmed') return { done: true, txHash: existing.txHash }
    if (isSpent(existing?.status)) return PASSED
    if (existing?.status !== 'sent') {
      const registered =
        attempt === 0
          ? registeredAtRead
          : (
              await deps.client.readContract({
                address: oracle,
                abi: VitalityOracleTickAbi,
                functionName: 'getState',
                args: [profile.golemKey],
              })
            ).registered
      if (!registered) return { done: true, txHash: null }
    }
    const sent = await sendOnce({
      ...slotBase,
      slot,
      afterBroadcast: () => deps.afterBroadcast?.('deregister'),
      build: async () => ({
        sender: deps.operator.address,
        to: oracle,
        data: encodeFunctionData({ abi: VitalityOracleTickAbi, functionName: 'deregisterGolem', args: [profile.golemKey] }),
        sign: (tx) => deps.operator.signTransaction(tx),
      }),
    })
    if (sent.status === 'confirmed') return { done: true, txHash: sent.txHash }
    if (sent.status === 'refused' && sent.reason === 'GolemNotRegistered') return { done: true, txHash: null }
    if (isSpent(sent.status)) return RETRY
    return { done: false, reason: `deregister: ${sent.status}` }
  })
}
