// Tables the Bardo indexer writes. Names follow docs/glossary.md; amounts
// are bigint (USD6 or token base units), block numbers and unix-second times are bigint as Ponder reads
// them. docs/indexer.md describes every column.
import { index, onchainTable, primaryKey, relations } from 'ponder'
import type { ActionKind } from './lib/actions.ts'

/** One row per Golem key seen by the VitalityOracle (or the Dream/Daimon oracles). */
export const golem = onchainTable(
  'golem',
  (t) => ({
    address: t.hex().primaryKey(),
    /** The address of the Golem's first key: its identity across key rotations. */
    firstKey: t.hex().notNull(),
    registered: t.boolean().notNull(),
    dead: t.boolean().notNull(),
    registrar: t.hex(),
    registeredAt: t.bigint(),
    registeredBlock: t.bigint(),
    phase: t.integer().notNull(),
    survivalScore: t.integer().notNull(),
    lastReportAt: t.bigint(),
    lastReportBlock: t.bigint(),
    reportCount: t.integer().notNull(),
    transitionCount: t.integer().notNull(),
    dreaming: t.boolean().notNull(),
    dreamingSince: t.bigint(),
    dreamCount: t.integer().notNull(),
    dreamSeconds: t.bigint().notNull(),
    pleasure: t.integer(),
    arousal: t.integer(),
    dominance: t.integer(),
    deregisteredAt: t.bigint(),
    deregisteredBlock: t.bigint(),
    finalPhase: t.integer(),
    rotatedFrom: t.hex(),
    rotatedTo: t.hex(),
    updatedBlock: t.bigint().notNull(),
  }),
  (table) => ({ phaseIdx: index().on(table.phase), firstKeyIdx: index().on(table.firstKey) }),
)

/** Every phase move: the Golem's own forward reports and the owner's audited resets. */
export const phaseTransition = onchainTable(
  'phase_transition',
  (t) => ({
    id: t.text().primaryKey(),
    golem: t.hex().notNull(),
    firstKey: t.hex().notNull(),
    kind: t.text().$type<'transition' | 'reset'>().notNull(),
    fromPhase: t.integer().notNull(),
    toPhase: t.integer().notNull(),
    /** Null for resets: the oracle keeps the last reported score. */
    survivalScore: t.integer(),
    by: t.hex(),
    reason: t.text(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    txHash: t.hex().notNull(),
    logIndex: t.integer().notNull(),
  }),
  (table) => ({ golemIdx: index().on(table.golem, table.blockNumber), firstKeyIdx: index().on(table.firstKey, table.blockNumber) }),
)

/** A dream from DreamStarted to DreamEnded (open while `endedAt` is null); id `<golem>-<number>`. */
export const dreamCycle = onchainTable(
  'dream_cycle',
  (t) => ({
    id: t.text().primaryKey(),
    golem: t.hex().notNull(),
    /** 1 for the Golem's first dream, then 2, 3, ... */
    number: t.integer().notNull(),
    startedAt: t.bigint().notNull(),
    endedAt: t.bigint(),
    duration: t.bigint(),
    /** Null when the dream started before the indexer's start block. */
    startBlock: t.bigint(),
    endBlock: t.bigint(),
    startTx: t.hex(),
    endTx: t.hex(),
  }),
  (table) => ({ golemIdx: index().on(table.golem, table.startedAt) }),
)

/** A delegation the DelegationManager has seen (redeemed, enabled or disabled). */
export const delegation = onchainTable(
  'delegation',
  (t) => ({
    hash: t.hex().primaryKey(),
    delegator: t.hex().notNull(),
    delegate: t.hex().notNull(),
    /** The delegate's first key when the delegate is a known Golem key (a grant to the Golem), else null. */
    firstKey: t.hex(),
    authority: t.hex().notNull(),
    salt: t.bigint().notNull(),
    caveats: t.json().$type<{ enforcer: string; terms: string; args: string }[]>().notNull(),
    /** False after DisabledDelegation, true again after EnabledDelegation. */
    enabled: t.boolean().notNull(),
    /** Block of the last enable/disable, null if it never changed. */
    statusBlock: t.bigint(),
    statusTx: t.hex(),
    firstSeenBlock: t.bigint().notNull(),
    redemptionCount: t.integer().notNull(),
    lastRedeemedBlock: t.bigint(),
  }),
  (table) => ({
    delegatorIdx: index().on(table.delegator),
    delegateIdx: index().on(table.delegate),
    firstKeyIdx: index().on(table.firstKey),
  }),
)

/** A Golem's death (deregistration by the operator), one per first key; key rotations are not deaths. */
export const golemDeath = onchainTable('golem_death', (t) => ({
  firstKey: t.hex().primaryKey(),
  /** The key that was current when the Golem died. */
  key: t.hex().notNull(),
  finalPhase: t.integer().notNull(),
  /** Registration of the Golem's first key (null if it predates the start block). */
  bornAt: t.bigint(),
  diedAt: t.bigint().notNull(),
  /** diedAt - bornAt, in seconds (null when bornAt is unknown). */
  lifeSeconds: t.bigint(),
  blockNumber: t.bigint().notNull(),
  txHash: t.hex().notNull(),
}))

/** Every EnabledDelegation / DisabledDelegation, in order. */
export const delegationStatusChange = onchainTable(
  'delegation_status_change',
  (t) => ({
    id: t.text().primaryKey(),
    delegationHash: t.hex().notNull(),
    enabled: t.boolean().notNull(),
    delegator: t.hex().notNull(),
    delegate: t.hex().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    txHash: t.hex().notNull(),
  }),
  (table) => ({ hashIdx: index().on(table.delegationHash) }),
)

/** One RedeemedDelegation: one delegation of a redeemed chain (a [child, parent] chain gives two rows). */
export const redemption = onchainTable(
  'redemption',
  (t) => ({
    id: t.text().primaryKey(),
    rootDelegator: t.hex().notNull(),
    redeemer: t.hex().notNull(),
    /** The redeemer's first key; a key the oracle never registered (a Replicant) is its own first key. */
    firstKey: t.hex().notNull(),
    delegationHash: t.hex().notNull(),
    delegator: t.hex().notNull(),
    delegate: t.hex().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    txHash: t.hex().notNull(),
    logIndex: t.integer().notNull(),
  }),
  (table) => ({
    redeemerIdx: index().on(table.redeemer, table.blockNumber),
    firstKeyIdx: index().on(table.firstKey, table.blockNumber),
    rootIdx: index().on(table.rootDelegator),
    hashIdx: index().on(table.delegationHash),
  }),
)

export type SpendSource = 'daily-spend-limit' | 'replicant-budget' | 'erc20-period' | 'native-period'

/** Each spend an enforcer recorded, attributed to the redeemer (the Golem or Replicant key that acted). */
export const spendEvent = onchainTable(
  'spend_event',
  (t) => ({
    id: t.text().primaryKey(),
    golem: t.hex().notNull(),
    firstKey: t.hex().notNull(),
    source: t.text().$type<SpendSource>().notNull(),
    enforcer: t.hex().notNull(),
    delegationHash: t.hex().notNull(),
    /** 'usd' for USD6 amounts, else the token address (0x000...0 for native ETH). */
    asset: t.text().notNull(),
    amount: t.bigint().notNull(),
    /** The amount in USD6: itself for USD sources, the token priced at the block, null if unpriced. */
    usd6: t.bigint(),
    periodStart: t.bigint().notNull(),
    periodEnd: t.bigint(),
    spentInPeriod: t.bigint().notNull(),
    periodLimit: t.bigint().notNull(),
    /** UTC day number (unix seconds / 86400) of the block. */
    day: t.integer().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    txHash: t.hex().notNull(),
    logIndex: t.integer().notNull(),
  }),
  (table) => ({
    golemDayIdx: index().on(table.golem, table.day),
    firstKeyDayIdx: index().on(table.firstKey, table.day),
    hashIdx: index().on(table.delegationHash),
  }),
)

/** Spend per Golem per enforcer period (UTC day, replicant lifetime, or the period enforcer's window). */
export const golemSpend = onchainTable(
  'golem_spend',
  (t) => ({
    golem: t.hex().notNull(),
    firstKey: t.hex().notNull(),
    source: t.text().$type<SpendSource>().notNull(),
    asset: t.text().notNull(),
    periodStart: t.bigint().notNull(),
    periodEnd: t.bigint(),
    amount: t.bigint().notNull(),
    /** Sum of the events' USD6 values; null while none of them could be priced. */
    usd6: t.bigint(),
    eventCount: t.integer().notNull(),
    lastBlock: t.bigint().notNull(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.golem, table.source, table.asset, table.periodStart] }),
    firstKeyIdx: index().on(table.firstKey),
  }),
)

/** The enforcer's own per-delegation counter for a period (mirrors its on-chain state). */
export const delegationSpend = onchainTable(
  'delegation_spend',
  (t) => ({
    enforcer: t.hex().notNull(),
    delegationHash: t.hex().notNull(),
    periodStart: t.bigint().notNull(),
    source: t.text().$type<SpendSource>().notNull(),
    asset: t.text().notNull(),
    periodEnd: t.bigint(),
    spent: t.bigint().notNull(),
    periodLimit: t.bigint().notNull(),
    lastBlock: t.bigint().notNull(),
  }),
  (table) => ({ pk: primaryKey({ columns: [table.enforcer, table.delegationHash, table.periodStart] }) }),
)

/** ReplicantBudget lifetimes, from the first redemption (ReplicantActivated). */
export const replicant = onchainTable(
  'replicant',
  (t) => ({
    enforcer: t.hex().notNull(),
    delegationHash: t.hex().notNull(),
    activatedAt: t.bigint().notNull(),
    expiresAt: t.bigint().notNull(),
    spentUsd: t.bigint().notNull(),
    maxBudgetUsd: t.bigint(),
    activatedBlock: t.bigint().notNull(),
  }),
  (table) => ({ pk: primaryKey({ columns: [table.enforcer, table.delegationHash] }) }),
)

/**
 * Spend events wait here until the RedeemedDelegation of the same transaction (emitted after every
 * hook) says who redeemed; keyed by delegation hash, `items` is empty between transactions. (Ponder's
 * delete always goes to the database, so resolved rows are emptied, not deleted: one row per delegation.)
 */
export const pendingSpend = onchainTable('pending_spend', (t) => ({
  delegationHash: t.hex().primaryKey(),
  items: t.json().$type<PendingSpendItem[]>().notNull(),
}))

export type PendingSpendItem = {
  txHash: string
  source: SpendSource
  enforcer: string
  delegationHash: string
  asset: string
  /** Null for the period-transfer enforcers: the step is derived from their running total on resolution. */
  amount: string | null
  periodStart: string
  periodEnd: string | null
  spentInPeriod: string
  periodLimit: string
  logIndex: number
}

/** The kinds the decoder names (indexer/lib/actions.ts). */
export type GolemActionKind = ActionKind

/**
 * One call a Golem made through an actions or approvals delegation (never the runway or the gas),
 * decoded from the redemption's calldata: one row per call, in the order the transaction carried them.
 */
export const golemAction = onchainTable(
  'golem_action',
  (t) => ({
    /** `<tx>-<context index>-<call index>`. */
    id: t.text().primaryKey(),
    golem: t.hex().notNull(),
    firstKey: t.hex().notNull(),
    kind: t.text().$type<GolemActionKind>().notNull(),
    /** The 4-byte selector called (null for a call without one). */
    selector: t.hex(),
    target: t.hex().notNull(),
    /** Who receives the output or the allowance (swap recipient, vault receiver, approved spender). */
    counterparty: t.hex(),
    /** Token addresses, paired with `amounts` (swap: in, out; vault calls: the vault's asset; redeem: the vault's shares). */
    tokens: t.json().$type<string[]>().notNull(),
    /** Base-unit amounts as decimal strings (swap: amount in, minimum out). */
    amounts: t.json().$type<string[]>().notNull(),
    /** Native value sent with the call. */
    value: t.bigint().notNull(),
    /** USD6 of what leaves the owner's account (or what an approval allows); null when the token has no price. */
    usd6: t.bigint(),
    /** The leaf delegation redeemed. */
    delegationHash: t.hex().notNull(),
    /** The chain's caveats that bound the call, leaf first: enforcer and its name (null when the deployment does not name it). */
    caveats: t.json().$type<{ enforcer: string; name: string | null }[]>().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    txHash: t.hex().notNull(),
    contextIndex: t.integer().notNull(),
    callIndex: t.integer().notNull(),
  }),
  (table) => ({
    firstKeyIdx: index().on(table.firstKey, table.blockNumber),
    golemIdx: index().on(table.golem, table.blockNumber),
    hashIdx: index().on(table.delegationHash),
  }),
)

/**
 * One row per user operation of a named Coordination Council at the EntryPoint: the proposal it carried
 * (its nonce key is `deadline << 128 | id`), whether its call ran, and the delegation it redeemed.
 */
export const councilExecution = onchainTable(
  'council_execution',
  (t) => ({
    userOpHash: t.hex().primaryKey(),
    council: t.hex().notNull(),
    /** The council proposal's id: the nonce key's low 128 bits, 0x and 32 hex digits. */
    proposalId: t.hex().notNull(),
    /** The proposal's deadline, unix seconds: the nonce key's next 64 bits. */
    deadline: t.bigint().notNull(),
    nonce: t.bigint().notNull(),
    /** Whether the council's call ran (false: a caveat or the call refused it; `revertReason` says why). */
    success: t.boolean().notNull(),
    /** The raw revert data from UserOperationRevertReason, when the call reverted. */
    revertReason: t.hex(),
    /** The delegation the council redeemed (the DelegationManager's RedeemedDelegation with the council as redeemer); null when it reverted. */
    delegationHash: t.hex(),
    rootDelegator: t.hex(),
    actualGasCost: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    txHash: t.hex().notNull(),
    logIndex: t.integer().notNull(),
  }),
  (table) => ({
    councilIdx: index().on(table.council, table.blockNumber),
    proposalIdx: index().on(table.proposalId),
    blockIdx: index().on(table.blockNumber),
  }),
)

/**
 * What a council's user operation left before its UserOperationEvent in the same transaction (its
 * redemption, or its revert reason), keyed `<tx>-<council>`; the event consumes it.
 */
export const councilPending = onchainTable('council_pending', (t) => ({
  id: t.text().primaryKey(),
  delegationHash: t.hex(),
  rootDelegator: t.hex(),
  revertReason: t.hex(),
}))

/** GolemPhaseEnforcer's selector -> action-class table (ActionClassSet). */
export const actionClass = onchainTable(
  'action_class',
  (t) => ({
    enforcer: t.hex().notNull(),
    selector: t.hex().notNull(),
    classMask: t.integer().notNull(),
    blockNumber: t.bigint().notNull(),
  }),
  (table) => ({ pk: primaryKey({ columns: [table.enforcer, table.selector] }) }),
)

export const golemRelations = relations(golem, ({ many }) => ({
  phaseTransitions: many(phaseTransition),
  dreamCycles: many(dreamCycle),
  redemptions: many(redemption),
  spendEvents: many(spendEvent),
  spend: many(golemSpend),
  actions: many(golemAction),
}))
export const golemActionRelations = relations(golemAction, ({ one }) => ({
  golem: one(golem, { fields: [golemAction.golem], references: [golem.address] }),
  delegation: one(delegation, { fields: [golemAction.delegationHash], references: [delegation.hash] }),
}))
export const phaseTransitionRelations = relations(phaseTransition, ({ one }) => ({
  golem: one(golem, { fields: [phaseTransition.golem], references: [golem.address] }),
}))
export const dreamCycleRelations = relations(dreamCycle, ({ one }) => ({
  golem: one(golem, { fields: [dreamCycle.golem], references: [golem.address] }),
}))
export const delegationRelations = relations(delegation, ({ many }) => ({
  redemptions: many(redemption),
  statusChanges: many(delegationStatusChange),
}))
export const delegationStatusChangeRelations = relations(delegationStatusChange, ({ one }) => ({
  delegation: one(delegation, { fields: [delegationStatusChange.delegationHash], references: [delegation.hash] }),
}))
export const redemptionRelations = relations(redemption, ({ one }) => ({
  delegation: one(delegation, { fields: [redemption.delegationHash], references: [delegation.hash] }),
  golem: one(golem, { fields: [redemption.redeemer], references: [golem.address] }),
}))
export const spendEventRelations = relations(spendEvent, ({ one }) => ({
  golem: one(golem, { fields: [spendEvent.golem], references: [golem.address] }),
  delegation: one(delegation, { fields: [spendEvent.delegationHash], references: [delegation.hash] }),
}))
export const golemSpendRelations = relations(golemSpend, ({ one }) => ({
  golem: one(golem, { fields: [golemSpend.golem], references: [golem.address] }),
}))
