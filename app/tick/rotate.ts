// Session-key rotation, as core/lifecycle/rotationPlan.ts decides it: generate a new key, get the
// delegator's grant to it, move the Golem's identity on the VitalityOracle (operator: rotateGolemKey
// keeps phase and score, marks the old key dead, so every grant naming the old key stops working),
// carry the constitution hash to the new key in the PolicyCage, swap the profile, zero the old key.
import { encodeFunctionData, isAddressEqual, type Address } from 'viem'
import { PolicyCageTickAbi, VitalityOracleTickAbi } from '../../adapters/chain/oracleAbi.ts'
import { withRenewalsFolded } from '../../core/lifecycle/grantInForce.ts'
import { parseGolemProfile, serializeGolemProfile, type GolemProfile } from '../../core/lifecycle/profile.ts'
import { GAS_BOOTSTRAP } from '../../core/lifecycle/gasPlan.ts'
import { tickEventTime } from '../../core/lifecycle/eventOrder.ts'
import {
  MAX_ROTATION_ATTEMPTS,
  profileAfterRotation,
  rotationGasStep,
  rotationReturnStep,
  rotationStepName,
} from '../../core/lifecycle/rotationPlan.ts'
import { type GolemRecord, isSpent } from '../../core/store/index.ts'
import { sendOnce } from '../../adapters/chain/sendOnce.ts'
import type { KeyRotation } from '../../core/custody/signerResolver.ts'
import { grantsOfProfile, recordOwnerGrants } from '../../core/custody/grantLedger.ts'
import { returnFunds } from './returnFunds.ts'
import { sentAtOf, slotBaseOf, type SlotBase } from './slots.ts'
import type { TickDeps } from './types.ts'

export async function rotateSessionKey(
  deps: TickDeps & { rotation: KeyRotation },
  golem: GolemRecord,
  profile: GolemProfile,
  input: { now: bigint; nowMs: number; reason: string; nextPeriodStart: bigint },
): Promise<{ from: Address; to: Address; reason: string } | null> {
  const step = await rotationStep(deps, golem.golemId, profile.golemKey)
  if (step === null) return null
  // The new key and the renewed grant are recorded before the oracle moves the identity, and reused by
  // every later attempt: a crash after the move finishes the swap to this key (see profile.ts).
  let current = golem
  let pending = profile.pendingRotation
  if (!pending) {
    const fresh = await deps.rotation.newKey(profile, input.now)
    // One grant to the newest end: renewals queued for the old key are signed over to the new one.
    const whole = withRenewalsFolded(profile)
    const renewed = await deps.rotation.renew(whole, fresh.address, input.nextPeriodStart)
    // Only the owner can sign this renewal: the key source recorded the request; rotate once it is answered.
    // The profile says so once, so the Golem's health can tell the owner that it keeps its old key.
    if (renewed === null) {
      if (profile.rotationAwaits && isAddressEqual(profile.rotationAwaits.to, fresh.address)) return null
      const rotationAwaits = { to: fresh.address, requestedAt: input.now }
      // A conflicting write (a credit, another tick) leaves it to the next tick, which asks again.
      await deps.store.updateGolem({
        golemId: golem.golemId,
        expectedVersion: golem.version,
        patch: { profile: serializeGolemProfile({ ...profile, rotationAwaits }) },
        now: input.nowMs,
      })
      return null
    }
    const gas =
      profile.gas && deps.rotation.renewGas ? await deps.rotation.renewGas(whole, fresh.address, input.nextPeriodStart) : undefined
    pending = { to: fresh.address, signer: fresh.signer, reason: input.reason, runway: renewed, at: input.now, ...(gas ? { gas } : {}) }
    // Kept before anything moves: the owner's revocation must reach the new key's grants too.
    await recordOwnerGrants(
      deps.store,
      golem.golemId,
      grantsOfProfile({ ...profile, pendingRotation: pending }).filter((g) => g.label.endsWith('rotated key')),
      input.nowMs,
    )
    const saved = await deps.store.updateGolem({
      golemId: golem.golemId,
      expectedVersion: golem.version,
      patch: { profile: serializeGolemProfile({ ...profile, pendingRotation: pending }) },
      now: input.nowMs,
    })
    if (!saved.updated) return null
    current = saved.golem
  }
  const to = pending.to
  // The old key's unspent funds go home to the owner before the identity moves: once the key is zeroed
  // nothing can move them. Each return is a slot of its own, so a crash settles it instead of resending.
  const slotBase = slotBaseOf(deps, input.nowMs)
  const returned = await returnFunds(
    deps,
    slotBase,
    golem.golemId,
    profile,
    () => deps.signers.resolve(profile).then((s) => s.signer),
    (asset, attempt) => rotationReturnStep(profile.golemKey, asset, attempt),
  )
  if (!returned.done) return null
  // The new key starts empty: the operator fronts its first gas, as at onboarding, so it can pay for its
  // first top-up from the gas grant it is handed. Only when it has one; a key funded already is left alone.
  if (pending.gas && !(await frontFirstGas(deps, slotBase, golem.golemId, to))) return null
  const rotationSlot = { golemId: golem.golemId, period: 0n, step }
  const sent = await sendOnce({
    ...slotBase,
    slot: rotationSlot,
    build: async () => ({
      sender: deps.operator.address,
      to: deps.deployment.vitalityOracle,
      data: encodeFunctionData({ abi: VitalityOracleTickAbi, functionName: 'rotateGolemKey', args: [profile.golemKey, to] }),
      sign: (tx) => deps.operator.signTransaction(tx),
    }),
  })
  if (!(await landed(deps, sent, rotationSlot))) return null
  // The PolicyCage keeps the constitution hash per key: the new key takes the old one's, unchanged,
  // before the profile switches, or custody would refuse its every action.
  if (profile.constitution && deps.deployment.policyCage) {
    const cageSlot = { golemId: golem.golemId, period: 0n, step: `cage-${to.slice(2).toLowerCase()}` }
    const cage = deps.deployment.policyCage
    const carried = await sendOnce({
      ...slotBase,
      slot: cageSlot,
      build: async () => ({
        sender: deps.operator.address,
        to: cage,
        data: encodeFunctionData({ abi: PolicyCageTickAbi, functionName: 'carryConstitution', args: [profile.golemKey, to] }),
        sign: (tx) => deps.operator.signTransaction(tx),
      }),
    })
    if (!(await landed(deps, carried, cageSlot))) return null
  }
  const next = profileAfterRotation(profile, pending)
  let updated = await deps.store.updateGolem({
    golemId: golem.golemId,
    expectedVersion: current.version,
    patch: { sessionKeyAddress: to, profile: serializeGolemProfile(next) },
    now: input.nowMs,
  })
  // A credit may have landed meanwhile: the conflict answer carries the record to switch instead. When
  // that record is switched to this key already, another attempt of this rotation (a tick, the operator's
  // request) won the switch: it is not written again, or whatever landed on the record after that switch
  // (an owner's renewal for the new key, a credit) would be overwritten by this attempt's grant.
  if (!updated.updated && updated.reason === 'version' && updated.current?.status === 'alive') {
    const latest = updated.current
    const latestProfile = parseGolemProfile(latest.profile)
    updated = isAddressEqual(latestProfile.golemKey, to)
      ? { updated: true, golem: latest }
      : await deps.store.updateGolem({
          golemId: golem.golemId,
          expectedVersion: latest.version,
          patch: { sessionKeyAddress: to, profile: serializeGolemProfile(profileAfterRotation(latestProfile, pending)) },
          now: input.nowMs,
        })
  }
  if (!updated.updated) return null
  await deps.signers.retire(profile)
  await deps.store.appendEvent({
    golemId: golem.golemId,
    type: 'SessionKeyRotated',
    // Timed by the rotation's send: a tick that lost it to another writes the same event, recorded once.
    at: tickEventTime(await sentAtOf(deps.store, sent, rotationSlot, input.nowMs), 'SessionKeyRotated'),
    eventId: `SessionKeyRotated:${to.toLowerCase()}`,
    data: { oldAddress: profile.golemKey, newAddress: to, reason: pending.reason, returned: returned.lines },
  })
  return { from: profile.golemKey, to, reason: pending.reason }
}

/**
 * The slot step for this rotation attempt (rotationStepName), skipping attempts that ended without
 * rotating. Null once MAX_ROTATION_ATTEMPTS have ended that way.
 */
export async function rotationStep(deps: Pick<TickDeps, 'store'>, golemId: string, oldKey: Address): Promise<string | null> {
  for (let attempt = 0; attempt < MAX_ROTATION_ATTEMPTS; attempt++) {
    const step = rotationStepName(oldKey, attempt)
    const slot = await deps.store.getSlot({ golemId, period: 0n, step })
    if (isSpent(slot?.status)) continue
    return step
  }
  return null
}

type Sent = Awaited<ReturnType<typeof sendOnce>>

/** Confirmed now, or by an earlier attempt that crashed before the step after it. */
async function landed(
  deps: Pick<TickDeps, 'store'>,
  sent: Sent,
  slot: { golemId: string; period: bigint; step: string },
): Promise<boolean> {
  if (sent.status === 'confirmed') return true
  return sent.status === 'busy' && sent.reason === 'completed' && (await deps.store.getSlot(slot))?.status === 'confirmed'
}

/** The operator's first gas to the new key, once (its own slot); true once the key holds it. */
async function frontFirstGas(deps: TickDeps, slotBase: SlotBase, golemId: string, key: Address): Promise<boolean> {
  const slot = { golemId, period: 0n, step: rotationGasStep(key) }
  if (!(await deps.store.getSlot(slot)) && (await deps.client.getBalance({ address: key })) >= GAS_BOOTSTRAP) return true
  const sent = await sendOnce({
    ...slotBase,
    slot,
    build: async () => ({
      sender: deps.operator.address,
      to: key,
      data: '0x',
      valueAfterGas: () => GAS_BOOTSTRAP,
      sign: (tx) => deps.operator.signTransaction(tx),
    }),
  })
  return landed(deps, sent, slot)
}
