// The death protocol (seed 001 §7, seed 002 "Death Protocol integration"), run once a Golem is Terminal.
// Irreversible and resumable: every step is a store slot, so a crashed or retried tick continues where
// the last one stopped. Order: settlement-only actions -> disable the Golem's own sub-delegations ->
// zero the key -> deregister with the operator key -> write the DeathSettlement record -> dead.
import { encodeFunctionData, type Hex } from 'viem'
import { contracts } from '@metamask/smart-accounts-kit'
import { VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import type { GolemProfile } from '../../core/lifecycle/profile.ts'
import { phaseNames } from '../../core/lifecycle/phase.ts'
import type { GolemRecord } from '../../core/store/index.ts'
import { sendOnce, type SendOnceParams, type SlotSendOutcome } from '../../adapters/chain/sendOnce.ts'
import type { ObservedGolem, TickDeps, TickResult } from './types.ts'

const done = (s: SlotSendOutcome) => s.status === 'confirmed' || s.status === 'reconciled' || (s.status === 'busy' && s.reason === 'completed')

export async function runDeathProtocol(deps: TickDeps, golem: GolemRecord, profile: GolemProfile, read: ObservedGolem, nowMs: number): Promise<TickResult> {
  const { store } = deps
  const golemId = golem.golemId
  const slotBase = { store, client: deps.client, chainId: deps.deployment.chainId, owner: deps.invocationId, now: nowMs, leaseMs: deps.leaseMs ?? 120_000 }

  // 1. Settlement-only actions. The runway grant moves USDC to the Golem's key and opens no position in
  //    the owner's account, so there is nothing to unwind; action grants with open positions would settle
  //    here (GolemPhase allows only the SETTLEMENT class in Terminal).
  const positionsSettled: string[] = []

  // 2. Disable every sub-delegation this Golem signed (its Replicants die with it).
  const disabled: Hex[] = []
  const keyRetired = await store.getSlot({ golemId, period: 0n, step: 'death-key-zeroed' })
  if (!keyRetired && profile.replicants.length > 0) {
    const { signer } = await deps.signers.resolve(profile)
    for (const [index, r] of profile.replicants.entries()) {
      const sent = await sendOnce({
        ...slotBase,
        slot: { golemId, period: 0n, step: `death-disable-${index}` },
        afterBroadcast: () => deps.afterBroadcast?.('disable'),
        build: async () => ({
          sender: signer.address,
          to: deps.deployment.environment.DelegationManager,
          data: contracts.DelegationManager.encode.disableDelegation({ delegation: { ...r.delegation } }),
          sign: (tx) => signer.signDisableDelegation(tx),
        }),
      })
      // Already disabled (e.g. by an earlier attempt whose record was lost) counts as done.
      if (!done(sent) && !(sent.status === 'refused' && sent.reason === 'AlreadyDisabled')) {
        return { golemId, outcome: 'busy', redemption: { status: 'death-pending', reason: `disable ${r.hash}: ${sent.status}` } }
      }
      disabled.push(r.hash)
    }
  }

  // Step 3 is reached only once every sub-delegation is disabled, so a resumed protocol lists them all.
  if (keyRetired) disabled.push(...profile.replicants.map((r) => r.hash))

  // 3. Zero the key: after this nothing can be signed for the Golem, ever. Retiring is idempotent and
  //    runs on every attempt: a process that still holds a copy of a memory key zeroes it too.
  await deps.signers.retire(profile)
  if (!keyRetired) {
    await store.claimSlot({ golemId, period: 0n, step: 'death-key-zeroed', owner: deps.invocationId, now: nowMs, leaseMs: 1 })
    await store.completeSlot({ golemId, period: 0n, step: 'death-key-zeroed', owner: deps.invocationId, outcome: 'reconciled', now: nowMs })
  }

  // 4. Deregister on the VitalityOracle with the operator key (its owner). After this every Bardo
  //    delegation of the Golem refuses everything (GolemPhase: GolemNotRegistered).
  const deregistration = await deregister(deps, slotBase, golemId, profile, read.registered)
  if (!deregistration.done) return { golemId, outcome: 'busy', redemption: { status: 'death-pending', reason: deregistration.reason } }
  const deregisterTx = deregistration.txHash

  // 5. The DeathSettlement record (write-once), then the Golem is dead.
  const cause = read.disabled ? 'OwnerRevocation' : 'NaturalExpiry'
  await store.recordDeathSettlement({
    golemId,
    kind: 'DelegationExpiry',
    settledAt: nowMs,
    settlement: {
      delegationHash: profile.runway.chainHashes[0] as string,
      expiryCause: cause,
      positionsSettled,
      subDelegationsDisabled: disabled,
      deregisterTx,
      sessionKeyZeroed: true,
      finalPhase: phaseNames[read.phase > 4 ? 4 : read.phase] ?? 'Terminal',
      sessionKey: profile.golemKey,
    },
  })
  await store.appendEvent({ golemId, type: 'DeathCompleted', at: nowMs, eventId: 'DeathCompleted', data: { delegationHash: profile.runway.chainHashes[0] as string, cause } })
  const latest = await store.getGolem(golemId)
  if (latest && latest.status !== 'dead') {
    await store.updateGolem({ golemId, expectedVersion: latest.version, patch: { status: 'dead', phase: 'Terminal', lastTick: { at: nowMs, period: read.currentPeriod, outcome: 'dead', txHash: deregisterTx } }, now: nowMs })
  }
  return { golemId, outcome: 'died', phase: { from: read.phase, to: 4, posted: false }, redemption: { status: 'revoke' } }
}

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
  slotBase: Omit<SendOnceParams, 'slot' | 'build'>,
  golemId: string,
  profile: GolemProfile,
  registeredAtRead: boolean,
): Promise<{ done: true; txHash: Hex | null } | { done: false; reason: string }> {
  const oracle = deps.deployment.vitalityOracle
  for (let attempt = 0; attempt < 5; attempt++) {
    const slot = { golemId, period: 0n, step: attempt === 0 ? 'death-deregister' : `death-deregister-${attempt}` }
    const existing = await deps.store.getSlot(slot)
    if (existing?.status === 'confirmed') return { done: true, txHash: existing.txHash }
    if (existing?.status === 'failed' || existing?.status === 'reconciled') continue
    if (existing?.status !== 'sent') {
      const registered = attempt === 0 ? registeredAtRead : (await deps.client.readContract({ address: oracle, abi: VitalityOracleAbi, functionName: 'getState', args: [profile.golemKey] })).registered
      if (!registered) return { done: true, txHash: null }
    }
    const sent = await sendOnce({
      ...slotBase,
      slot,
      afterBroadcast: () => deps.afterBroadcast?.('deregister'),
      build: async () => ({
        sender: deps.operator.address,
        to: oracle,
        data: encodeFunctionData({ abi: VitalityOracleAbi, functionName: 'deregisterGolem', args: [profile.golemKey] }),
        sign: (tx) => deps.operator.signTransaction(tx),
      }),
    })
    if (sent.status === 'confirmed') return { done: true, txHash: sent.txHash }
    if (sent.status === 'refused' && sent.reason === 'GolemNotRegistered') return { done: true, txHash: null }
    if (sent.status === 'reconciled' || sent.status === 'failed') continue
    return { done: false, reason: `deregister: ${sent.status}` }
  }
  return { done: false, reason: 'deregister: no attempt confirmed' }
}
