// VitalityOracle, DreamOracle and DaimonOracle: the Golem row, its phase history and its dreams.
import { ponder, type Context } from 'ponder:registry'
import { dreamCycle, golem, golemDeath, phaseTransition } from 'ponder:schema'
import type { Address } from 'viem'
import { newGolemRow } from '../lib/golemRow.ts'
import { firstKeyOf } from './firstKey.ts'

type GolemPatch = Partial<typeof golem.$inferInsert>

/** Creates the Golem's row with `patch` applied, or applies `patch` to the row it already has. */
function upsertGolem(context: Context, address: Address, blockNumber: bigint, patch: GolemPatch) {
  return context.db
    .insert(golem)
    .values({ ...newGolemRow(address, blockNumber), ...patch })
    .onConflictDoUpdate(patch)
}

ponder.on('VitalityOracle:GolemRegistered', async ({ event, context }) => {
  const registration = {
    registered: true,
    dead: false,
    registrar: event.args.registrar,
    registeredAt: event.block.timestamp,
    registeredBlock: event.block.number,
    phase: 0,
    survivalScore: 10_000,
    updatedBlock: event.block.number,
  }
  await upsertGolem(context, event.args.golem, event.block.number, registration)
})

// Emitted on every heartbeat; PhaseTransition follows it in the same transaction when the phase moved.
ponder.on('VitalityOracle:VitalityReported', async ({ event, context }) => {
  const { golem: address, phase, survivalScore } = event.args
  const report = { phase, survivalScore, lastReportAt: event.block.timestamp, lastReportBlock: event.block.number }
  await context.db
    .insert(golem)
    .values({ ...newGolemRow(address, event.block.number), ...report, reportCount: 1 })
    .onConflictDoUpdate((row) => ({ ...report, reportCount: row.reportCount + 1, updatedBlock: event.block.number }))
})

ponder.on('VitalityOracle:PhaseTransition', async ({ event, context }) => {
  const { golem: address, fromPhase, toPhase, survivalScore } = event.args
  await context.db.insert(phaseTransition).values({
    id: `${event.transaction.hash}-${event.log.logIndex}`,
    golem: address,
    firstKey: await firstKeyOf(context, address),
    kind: 'transition',
    fromPhase,
    toPhase,
    survivalScore,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    txHash: event.transaction.hash,
    logIndex: event.log.logIndex,
  })
  await context.db
    .insert(golem)
    .values({ ...newGolemRow(address, event.block.number), phase: toPhase, survivalScore, transitionCount: 1 })
    .onConflictDoUpdate((row) => ({ transitionCount: row.transitionCount + 1, updatedBlock: event.block.number }))
})

// The owner's audited exception to monotonic phases (Feed-the-Golem, operator correction).
ponder.on('VitalityOracle:PhaseReset', async ({ event, context }) => {
  const { golem: address, fromPhase, toPhase, by, reason } = event.args
  await context.db.insert(phaseTransition).values({
    id: `${event.transaction.hash}-${event.log.logIndex}`,
    golem: address,
    firstKey: await firstKeyOf(context, address),
    kind: 'reset',
    fromPhase,
    toPhase,
    by,
    reason,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    txHash: event.transaction.hash,
    logIndex: event.log.logIndex,
  })
  await context.db
    .insert(golem)
    .values({ ...newGolemRow(address, event.block.number), phase: toPhase, transitionCount: 1 })
    .onConflictDoUpdate((row) => ({ phase: toPhase, transitionCount: row.transitionCount + 1, updatedBlock: event.block.number }))
})

// The new key inherits the old key's state and its first key (one identity across rotations); the old key
// is dead for good (keys are single-life).
ponder.on('VitalityOracle:GolemKeyRotated', async ({ event, context }) => {
  const { from, to } = event.args
  const previous = await context.db.find(golem, { address: from })
  const inherited = previous ?? newGolemRow(from, event.block.number)
  await context.db
    .insert(golem)
    .values({
      ...newGolemRow(to, event.block.number),
      registered: true,
      registrar: previous?.registrar ?? null,
      registeredAt: previous?.registeredAt ?? event.block.timestamp,
      registeredBlock: previous?.registeredBlock ?? event.block.number,
      firstKey: inherited.firstKey,
      phase: inherited.phase,
      survivalScore: inherited.survivalScore,
      rotatedFrom: from,
    })
    .onConflictDoUpdate({
      registered: true,
      firstKey: inherited.firstKey,
      phase: inherited.phase,
      survivalScore: inherited.survivalScore,
      rotatedFrom: from,
    })
  const retired = {
    registered: false,
    dead: true,
    rotatedTo: to,
    deregisteredAt: event.block.timestamp,
    deregisteredBlock: event.block.number,
    finalPhase: inherited.phase,
    updatedBlock: event.block.number,
  }
  await upsertGolem(context, from, event.block.number, retired)
})

// Deregistration is the Golem's death (a rotation retires a key without one): one record per first key.
ponder.on('VitalityOracle:GolemDeregistered', async ({ event, context }) => {
  const { golem: address, finalPhase } = event.args
  const firstKey = await firstKeyOf(context, address)
  const bornAt = (await context.db.find(golem, { address: firstKey }))?.registeredAt ?? null
  const record = {
    key: address,
    finalPhase,
    bornAt,
    diedAt: event.block.timestamp,
    lifeSeconds: bornAt === null ? null : event.block.timestamp - bornAt,
    blockNumber: event.block.number,
    txHash: event.transaction.hash,
  }
  await context.db
    .insert(golemDeath)
    .values({ firstKey, ...record })
    .onConflictDoUpdate(record)
  const death = {
    registered: false,
    dead: true,
    phase: finalPhase,
    finalPhase,
    deregisteredAt: event.block.timestamp,
    deregisteredBlock: event.block.number,
    updatedBlock: event.block.number,
  }
  await upsertGolem(context, address, event.block.number, death)
})

// Cycles are numbered per Golem (`<golem>-<n>`): a start, end and restart can share one block and time.
ponder.on('DreamOracle:DreamStarted', async ({ event, context }) => {
  const { golem: address, at } = event.args
  const row = await context.db.find(golem, { address })
  const number = (row?.dreamCount ?? 0) + 1
  await context.db.insert(dreamCycle).values({
    id: `${address}-${number}`,
    golem: address,
    number,
    startedAt: at,
    startBlock: event.block.number,
    startTx: event.transaction.hash,
  })
  const dreaming = { dreaming: true, dreamingSince: at, dreamCount: number, updatedBlock: event.block.number }
  await upsertGolem(context, address, event.block.number, dreaming)
})

ponder.on('DreamOracle:DreamEnded', async ({ event, context }) => {
  const { golem: address, at, duration } = event.args
  const row = await context.db.find(golem, { address })
  const end = { endedAt: at, duration, endBlock: event.block.number, endTx: event.transaction.hash }
  // A dream whose start predates the indexer's start block is recorded from its end alone.
  const number = row?.dreaming === true ? row.dreamCount : (row?.dreamCount ?? 0) + 1
  await context.db
    .insert(dreamCycle)
    .values({ id: `${address}-${number}`, golem: address, number, startedAt: at - duration, startBlock: null, startTx: null, ...end })
    .onConflictDoUpdate(end)
  const awake = {
    dreaming: false,
    dreamingSince: null,
    dreamCount: number,
    dreamSeconds: (row?.dreamSeconds ?? 0n) + duration,
    updatedBlock: event.block.number,
  }
  await upsertGolem(context, address, event.block.number, awake)
})

ponder.on('DaimonOracle:PADUpdated', async ({ event, context }) => {
  const { golem: address, pleasure, arousal, dominance } = event.args
  const pad = { pleasure, arousal, dominance, updatedBlock: event.block.number }
  await upsertGolem(context, address, event.block.number, pad)
})
