// The Store on one DynamoDB table through the DocumentClient. Conditional writes only: no
// TransactWrite and no TTL (dynalite supports neither), so every multi-step change is a sequence of
// single-item conditional writes that is safe to retry, and expiry is checked on read.
// Layout and state machines: docs/store.md.
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import * as budget from './dynamo/budget.ts'
import * as council from './dynamo/council.ts'
import * as golems from './dynamo/golems.ts'
import * as history from './dynamo/history.ts'
import * as logs from './dynamo/log.ts'
import * as nonces from './dynamo/nonces.ts'
import * as paymentIds from './dynamo/paymentIds.ts'
import * as payments from './dynamo/payments.ts'
import * as poolKeys from './dynamo/poolKeys.ts'
import * as slots from './dynamo/slots.ts'
import { DynamoTable } from './dynamo/table.ts'
import { DEFAULT_DUE_SHARDS } from './keys.ts'
import { DEFAULT_DUE_CADENCE_MS } from '../../core/store/dueEntry.ts'
import type {
  BudgetRecord,
  CounterValue,
  DeathSettlementRecord,
  GolemRecord,
  LogRecord,
  NonceRecord,
  PaymentIdRecord,
  PaymentRecord,
  SlotRef,
  SnapTokenRecord,
  TickSlot,
} from '../../core/store/records.ts'
import type * as S from '../../core/store/store.ts'
import type * as C from '../../core/council/store.ts'
import type { Address, Hex } from 'viem'
import * as v from '../../core/store/validate.ts'

export type DynamoStoreOptions = {
  /** A DocumentClient; build it with `DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } })`. */
  client: DynamoDBDocumentClient
  tableName: string
  /** Partitions of the due index (default 64). See docs/store.md before changing it on a live table. */
  dueShards?: number
  /** How far ahead a next tick may move without rewriting its due entry (default one minute). */
  dueCadenceMs?: number
  /** Compare-and-swap retries for budget updates under contention. */
  cas?: Partial<budget.CasOptions>
}

export class DynamoTickStore implements S.TickStore {
  protected readonly table: DynamoTable
  readonly #shards: number
  readonly #cadenceMs: number
  readonly #cas: budget.CasOptions
  readonly #budgets = new budget.BudgetGuesses()

  constructor(options: DynamoStoreOptions) {
    this.table = new DynamoTable(options.client, options.tableName)
    this.#shards = options.dueShards === undefined ? DEFAULT_DUE_SHARDS : v.positiveInt(options.dueShards, 'dueShards', 1000)
    this.#cadenceMs =
      options.dueCadenceMs === undefined ? DEFAULT_DUE_CADENCE_MS : v.positiveInt(options.dueCadenceMs, 'dueCadenceMs', 86_400_000)
    this.#cas = { ...budget.DEFAULT_CAS, ...options.cas }
  }

  get dueShards(): number {
    return this.#shards
  }
  createGolem(input: S.CreateGolemInput): Promise<S.CreateGolemResult> {
    return golems.createGolem(this.table, this.#shards, input)
  }
  getGolem(golemId: string): Promise<GolemRecord | null> {
    return golems.getGolem(this.table, golemId)
  }
  getGolems(golemIds: readonly string[]): Promise<GolemRecord[]> {
    return golems.getGolems(this.table, golemIds)
  }
  updateGolem(input: S.UpdateGolemInput): Promise<S.UpdateGolemResult> {
    return golems.updateGolem(this.table, { shards: this.#shards, cadenceMs: this.#cadenceMs }, input)
  }
  listDueGolems(input: S.ListDueInput): Promise<S.ListDueResult> {
    return golems.listDueGolems(this.table, this.#shards, input)
  }
  findGolems(input: S.FindGolemsInput): Promise<GolemRecord[]> {
    return golems.findGolems(this.table, input)
  }
  recordShardWalks(input: S.RecordShardWalksInput): Promise<void> {
    return golems.recordShardWalks(this.table, this.#shards, input)
  }
  lastWalkOf(golemId: string): Promise<number | null> {
    return golems.lastWalkOf(this.table, this.#shards, golemId)
  }

  claimSlot(input: S.ClaimSlotInput): Promise<S.ClaimSlotResult> {
    return slots.claimSlot(this.table, input)
  }
  claimSlotWithTx(input: S.ClaimSlotWithTxInput): Promise<S.ClaimSlotResult> {
    return slots.claimSlotWithTx(this.table, input)
  }
  recordSlotTx(input: S.RecordSlotTxInput): Promise<S.RecordSlotTxResult> {
    return slots.recordSlotTx(this.table, input)
  }
  completeSlot(input: S.CompleteSlotInput): Promise<S.CompleteSlotResult> {
    return slots.completeSlot(this.table, input)
  }
  releaseSlot(input: S.ReleaseSlotInput): Promise<S.ReleaseSlotResult> {
    return slots.releaseSlot(this.table, input)
  }
  getSlot(ref: SlotRef): Promise<TickSlot | null> {
    return slots.getSlot(this.table, ref)
  }

  reserveBudget(input: S.ReserveBudgetInput): Promise<S.ReserveBudgetResult> {
    return budget.reserveBudget(this.table, this.#cas, this.#budgets, input)
  }
  commitReservation(input: S.CommitReservationInput): Promise<S.CommitReservationResult> {
    return budget.commitReservation(this.table, this.#cas, this.#budgets, input)
  }
  releaseReservation(input: S.ReservationRef): Promise<S.ReleaseReservationResult> {
    return budget.releaseReservation(this.table, this.#cas, this.#budgets, input)
  }
  getBudget(golemId: string, period: bigint): Promise<BudgetRecord | null> {
    return budget.getBudget(this.table, golemId, period)
  }

  claimPayment(input: S.ClaimPaymentInput): Promise<S.ClaimPaymentResult> {
    return payments.claimPayment(this.table, input)
  }
  creditPaymentOnce(input: S.CreditPaymentInput): Promise<S.CreditPaymentResult> {
    return payments.creditPaymentOnce(this.table, input)
  }
  releasePayment(input: S.ReleasePaymentInput): Promise<S.ReleasePaymentResult> {
    return payments.releasePayment(this.table, input)
  }
  getPayment(ref: S.PaymentRef): Promise<PaymentRecord | null> {
    return payments.getPayment(this.table, ref)
  }

  claimPoolKey(input: S.ClaimPoolKeyInput): Promise<S.ClaimPoolKeyResult> {
    return poolKeys.claimPoolKey(this.table, input)
  }
  getPoolKeyClaim(keyId: string): Promise<S.PoolKeyClaim | null> {
    return poolKeys.getPoolKeyClaim(this.table, keyId)
  }
  findPoolKeyClaim(claimant: string): Promise<S.PoolKeyClaim | null> {
    return poolKeys.findPoolKeyClaim(this.table, claimant)
  }

  appendEvent(input: S.AppendEventInput): Promise<S.AppendEventResult> {
    return history.appendEvent(this.table, input)
  }
  listEvents(input: S.ListEventsInput): Promise<S.ListEventsResult> {
    return history.listEvents(this.table, input)
  }
  recordDeathSettlement(input: S.RecordDeathInput): Promise<S.RecordDeathResult> {
    return history.recordDeathSettlement(this.table, input)
  }
  getDeathSettlement(golemId: string): Promise<DeathSettlementRecord | null> {
    return history.getDeathSettlement(this.table, golemId)
  }
  appendLog(input: S.AppendLogInput): Promise<S.AppendLogResult> {
    return logs.appendLog(this.table, input)
  }
  readLog(input: S.ReadLogInput): Promise<LogRecord[]> {
    return logs.readLog(this.table, input)
  }
  lastLogRecord(log: string): Promise<LogRecord | null> {
    return logs.lastLogRecord(this.table, log)
  }
}

/**
 * The whole Store: the tick's items and the API's (payment identifiers, nonces, counters, Snap tokens),
 * on the same table. The tick's Lambda builds a DynamoTickStore, so it bundles none of the rest.
 */
export class DynamoStore extends DynamoTickStore implements S.Store {
  bindPaymentId(input: S.BindPaymentIdInput): Promise<S.BindPaymentIdResult> {
    return paymentIds.bindPaymentId(this.table, input)
  }
  answerPaymentId(input: S.AnswerPaymentIdInput): Promise<S.AnswerPaymentIdResult> {
    return paymentIds.answerPaymentId(this.table, input)
  }
  releasePaymentId(input: S.ReleasePaymentIdInput): Promise<S.ReleasePaymentIdResult> {
    return paymentIds.releasePaymentId(this.table, input)
  }
  getPaymentId(input: S.PaymentIdRef & { now: number }): Promise<PaymentIdRecord | null> {
    return paymentIds.getPaymentId(this.table, input)
  }
  issueNonce(input: S.IssueNonceInput): Promise<NonceRecord> {
    return nonces.issueNonce(this.table, input)
  }
  consumeNonce(input: { nonce: string; now: number }): Promise<S.ConsumeNonceResult> {
    return nonces.consumeNonce(this.table, input)
  }
  incrementCounter(input: S.CounterInput): Promise<CounterValue> {
    return nonces.incrementCounter(this.table, input)
  }
  getCounter(input: S.CounterInput): Promise<CounterValue> {
    return nonces.getCounter(this.table, input)
  }
  getSnapToken(input: { scope?: string; now: number }): Promise<SnapTokenRecord | null> {
    return history.getSnapToken(this.table, input)
  }
  rotateSnapToken(input: S.RotateSnapTokenInput): Promise<S.RotateSnapTokenResult> {
    return history.rotateSnapToken(this.table, input)
  }
}

/**
 * The Store and the council's items on the same table. Apart from the Store so that what needs no council
 * (the tick's Lambda above all) bundles none of it.
 */
export class DynamoCouncilStore extends DynamoStore implements C.CouncilStore {
  createCouncil(record: C.CouncilRecord): Promise<C.CreateCouncilResult> {
    return council.createCouncil(this.table, record)
  }
  getCouncil(address: Address): Promise<C.CouncilRecord | null> {
    return council.getCouncil(this.table, address)
  }
  listCouncilsByOwner(owner: Address): Promise<C.CouncilRecord[]> {
    return council.listCouncilsByOwner(this.table, owner)
  }
  listCouncilsOfGolem(golemId: string): Promise<C.CouncilRecord[]> {
    return council.listCouncilsOfGolem(this.table, golemId)
  }
  createCouncilProposal(record: C.CouncilProposalRecord): Promise<C.CreateCouncilProposalResult> {
    return council.createCouncilProposal(this.table, record)
  }
  getCouncilProposal(id: Hex): Promise<C.CouncilProposalRecord | null> {
    return council.getCouncilProposal(this.table, id)
  }
  addCouncilSignature(record: C.CouncilSignatureRecord): Promise<C.AddCouncilSignatureResult> {
    return council.addCouncilSignature(this.table, record)
  }
  listCouncilSignatures(proposalId: Hex): Promise<C.CouncilSignatureRecord[]> {
    return council.listCouncilSignatures(this.table, proposalId)
  }
  claimCouncilExecution(input: C.ClaimCouncilExecutionInput): Promise<C.ClaimCouncilExecutionResult> {
    return council.claimCouncilExecution(this.table, input)
  }
  reclaimCouncilExecution(input: C.ReclaimCouncilExecutionInput): Promise<C.ClaimCouncilExecutionResult> {
    return council.reclaimCouncilExecution(this.table, input)
  }
  listCouncilProposals(input: C.ListCouncilProposalsInput): Promise<C.CouncilProposalPage> {
    return council.listCouncilProposals(this.table, input)
  }
  noteCouncilExecution(input: C.NoteCouncilExecutionInput): Promise<C.CouncilProposalRecord | null> {
    return council.noteCouncilExecution(this.table, input)
  }
  finishCouncilExecution(input: C.FinishCouncilExecutionInput & { now: number }): Promise<C.CouncilProposalRecord | null> {
    return council.finishCouncilExecution(this.table, input)
  }
}
