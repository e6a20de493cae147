// The council's flow: a counting member proposes (pre-checked against the council's caveats, then
// stored), members sign (each signature judged against fresh standings, stored once), and the request
// that completes the threshold claims the proposal and submits it, so it runs exactly once; a signer
// the chain refuses is dropped and the rest tallied again; a proposal whose transaction is out, or a
// claim a crash left behind, is settled from the chain by the next read or signature.
import type { Delegation } from '@metamask/smart-accounts-kit'
import { bytesToHex, getAddress, isAddressEqual, type Address, type Hex } from 'viem'
import { randomBytes } from 'node:crypto'
import type { CouncilSent, CouncilSubmission } from '../../adapters/chain/council.ts'
import type { DecodedChainError } from '../../adapters/chain/decodeChainError.ts'
import { CouncilRefusal } from '../../core/council/errors.ts'
import { countingSigners, exclusionRule, judgeMembers, type CouncilMember, type MemberStanding } from '../../core/council/membership.ts'
import {
  buildCouncilProposal,
  councilProposalTypedData,
  type CouncilAction,
  type CouncilConfig,
  type CouncilGas,
  type CouncilProposal,
} from '../../core/council/proposal.ts'
import { parseCouncilProposal, serializeCouncilProposal } from '../../core/council/serialize.ts'
import {
  councilSignatureRule,
  judgeCouncilSignature,
  tallyCouncilSignatures,
  type CouncilSignature,
  type SignatureRefusal,
} from '../../core/council/signatures.ts'
import {
  COUNCIL_EXECUTION_LEASE_MS,
  isAwaitingChain,
  isStaleCouncilExecution,
  settlementOf,
  type CouncilExecutionFinding,
} from '../../core/council/reconcile.ts'
import type {
  CouncilExecution,
  CouncilProposalRecord,
  CouncilSignatureRecord,
  CouncilStore,
  FinishCouncilExecutionInput,
} from '../../core/council/store.ts'

export type CouncilServiceDeps = {
  store: CouncilStore
  config: CouncilConfig
  /** The seats as the council's multisig lists them (read each time: the council may change its signers). */
  members(): Promise<readonly CouncilMember[]>
  threshold: number
  /** The owner's signed delegation to the council. */
  delegation: Delegation
  /** Each seat's standing, keyed by lowercase signer (VitalityOracle and custody, read fresh). */
  standings(members: readonly CouncilMember[]): Promise<Map<string, MemberStanding>>
  /** Chain time, unix seconds. */
  chainNow(): Promise<bigint>
  gas(): Promise<CouncilGas>
  /** The redemption run as the council, without sending: a caveat's refusal, named, or undefined. */
  precheck(proposal: CouncilProposal): Promise<DecodedChainError | undefined>
  /** Sends the proposal (submitCouncilProposal); `onSent` is called with the transaction's hash before its receipt is awaited. */
  submit(proposal: CouncilProposal, signature: Hex, onSent: (sent: CouncilSent) => Promise<void>): Promise<CouncilSubmission>
  /** Which of these signatures the council's contract refuses, and why (findCouncilSignatureFaults). */
  signatureFaults(proposal: CouncilProposal, signatures: readonly CouncilSignature[]): Promise<{ signer: Address; rule: string }[]>
  /** Milliseconds since the epoch (record times, and the claim's lease). */
  clockMs(): number
  /** The chain's block number, recorded with a claim: the user operation, if it runs, is at or after it. */
  blockNumber(): Promise<bigint>
  /**
   * Whether a proposal's user operation ran (the chain's answer, for a claim whose claimant died or
   * whose receipt did not come): by the transaction's hash when one was sent, else by the operation's.
   */
  findExecution(proposal: CouncilProposal, fromBlock: bigint | undefined, txHash: Hex | undefined): Promise<CouncilExecutionFinding>
  /** How long a claim is trusted before a read or a signature settles it; default COUNCIL_EXECUTION_LEASE_MS. */
  leaseMs?: number
  /**
   * Called after the claim and after each submission, before the outcome is recorded; a throw here stops
   * the request as a crash would (tests inject crashes with it).
   */
  afterClaim?: (step: 'claimed' | 'submitted') => Promise<void> | void
  newId?: () => Hex
}

export type CouncilSignatureView = { signer: Address; at: number; counts: boolean }
export type CouncilProposalView = {
  id: Hex
  council: Address
  proposer: Address
  status: CouncilProposalRecord['status'] | 'expired'
  deadline: number
  action: CouncilAction
  threshold: number
  /** The council's seats now (n of "k of n"). */
  seats: number
  signatures: CouncilSignatureView[]
  counted: number
  execution: CouncilExecution | null
  /** The proposal as parseCouncilProposal reads it: a member checks it (checkCouncilProposal) and signs its typed data. */
  proposal: string
}

const refusalCode: Record<SignatureRefusal, ConstructorParameters<typeof CouncilRefusal>[0]> = {
  expired: 'COUNCIL_PROPOSAL_EXPIRED',
  closed: 'COUNCIL_PROPOSAL_CLOSED',
  'bad-signature': 'COUNCIL_BAD_SIGNATURE',
  'wrong-signer': 'COUNCIL_BAD_SIGNATURE',
  'not-member': 'COUNCIL_NOT_MEMBER',
  'not-counting': 'COUNCIL_MEMBER_NOT_COUNTING',
}

export class CouncilService {
  readonly #d: CouncilServiceDeps
  constructor(deps: CouncilServiceDeps) {
    this.#d = deps
  }

  async #seats() {
    const members = await this.#d.members()
    const verdicts = judgeMembers(members, await this.#d.standings(members))
    return { members, verdicts, counting: countingSigners(verdicts) }
  }

  /** Only a member that counts now may propose. */
  async propose(caller: Address, action: CouncilAction, deadline: bigint): Promise<CouncilProposalView> {
    const { verdicts } = await this.#seats()
    const seat = verdicts.find((v) => isAddressEqual(v.signer, caller))
    if (!seat) throw new CouncilRefusal('COUNCIL_NOT_MEMBER', `caller: ${caller} holds no seat on the council ${this.#d.config.council}`)
    if (!seat.counts)
      throw new CouncilRefusal('COUNCIL_MEMBER_NOT_COUNTING', `caller: ${caller} ${exclusionRule(seat.reason)}`, { reason: seat.reason })
    const proposal = buildCouncilProposal({
      config: this.#d.config,
      delegation: this.#d.delegation,
      action,
      id: this.#d.newId?.() ?? bytesToHex(randomBytes(16)),
      deadline,
      now: await this.#d.chainNow(),
      gas: await this.#d.gas(),
    })
    // An action beyond the council's caveats is refused now, by the caveat's own error, not after k signatures.
    const refusal = await this.#d.precheck(proposal)
    if (refusal)
      throw new CouncilRefusal(
        'COUNCIL_ACTION_REFUSED',
        `action: refused by the council's delegation: ${refusal.name}(${refusal.args.map(String).join(', ')})`,
        {
          refusal: { name: refusal.name, args: refusal.args.map(String) },
        },
      )
    const record: CouncilProposalRecord = {
      id: proposal.id,
      council: proposal.council,
      proposer: caller,
      status: 'open',
      deadline: Number(proposal.deadline),
      createdAt: this.#d.clockMs(),
      proposal: serializeCouncilProposal(proposal),
    }
    const created = await this.#d.store.createCouncilProposal(record)
    if (!created.created) throw new CouncilRefusal('COUNCIL_PROPOSAL_CLOSED', `id: ${proposal.id} is already taken`)
    return this.#view(created.record, [], await this.#seats(), await this.#d.chainNow())
  }

  /**
   * Adds the caller's signature. A duplicate changes nothing; the signature that completes the
   * threshold claims the proposal (one conditional write) and submits it.
   */
  async sign(caller: Address, id: Hex, signature: Hex): Promise<{ status: 'accepted' | 'duplicate'; proposal: CouncilProposalView }> {
    const record = await this.#settled(await this.#record(id))
    const proposal = parseCouncilProposal(record.proposal)
    const seats = await this.#seats()
    const existing = await this.#d.store.listCouncilSignatures(proposal.id)
    const now = await this.#d.chainNow()
    const verdict = await judgeCouncilSignature({
      proposal,
      open: record.status === 'open' || record.status === 'rejected',
      caller,
      signature,
      members: seats.members,
      counting: seats.counting,
      existing,
      now,
    })
    if (verdict.status === 'refused') throw new CouncilRefusal(refusalCode[verdict.reason], verdict.rule, { reason: verdict.reason })
    let signatures = existing
    let status: 'accepted' | 'duplicate' = verdict.status
    if (verdict.status === 'accepted') {
      const added = await this.#d.store.addCouncilSignature({
        proposalId: proposal.id,
        signer: verdict.signer,
        signature,
        at: this.#d.clockMs(),
      })
      if (added.added) signatures = [...existing, added.record]
      else status = 'duplicate'
    }
    const current = status === 'accepted' ? await this.#executeIfReady(record, proposal, signatures, seats.counting, now) : record
    return { status, proposal: await this.#view(current, signatures, seats, now) }
  }

  /** Every proposal, newest first, a page at a time (each settled first, as a read of one is). */
  async list(page: { limit: number; after?: string | null }): Promise<{ proposals: CouncilProposalView[]; next: string | null }> {
    const { items, next } = await this.#d.store.listCouncilProposals({ ...page, council: this.#d.config.council })
    const [seats, now] = await Promise.all([this.#seats(), this.#d.chainNow()])
    const proposals = await Promise.all(
      items.map(async (item) => {
        const record = await this.#settled(item)
        return this.#view(record, await this.#d.store.listCouncilSignatures(record.id), seats, now)
      }),
    )
    return { proposals, next }
  }

  /** One proposal, to a member of the council (a seat holder, counting or not). */
  async get(caller: Address, id: Hex): Promise<CouncilProposalView> {
    const seats = await this.#seats()
    if (!seats.members.some((m) => isAddressEqual(m.signer, caller)))
      throw new CouncilRefusal(
        'COUNCIL_NOT_MEMBER',
        `caller: ${caller} holds no seat on the council ${this.#d.config.council}; only its members and its owner read its proposals`,
      )
    const record = await this.#settled(await this.#record(id))
    return this.#view(record, await this.#d.store.listCouncilSignatures(record.id), seats, await this.#d.chainNow())
  }

  /** The owner whose delegation the council holds (the delegator): the one account that may list its proposals in full. */
  get owner(): Address {
    return getAddress(this.#d.delegation.delegator)
  }

  async #record(id: Hex): Promise<CouncilProposalRecord> {
    const record = /^0x[0-9a-fA-F]{32}$/.test(id) ? await this.#d.store.getCouncilProposal(id.toLowerCase() as Hex) : null
    if (!record) throw new CouncilRefusal('COUNCIL_PROPOSAL_NOT_FOUND', `id: no council proposal ${id}`)
    return record
  }

  async #executeIfReady(
    record: CouncilProposalRecord,
    proposal: CouncilProposal,
    signatures: readonly CouncilSignatureRecord[],
    counting: readonly Address[],
    now: bigint,
  ): Promise<CouncilProposalRecord> {
    const tally = tallyCouncilSignatures({ signatures, counting, threshold: this.#d.threshold, deadline: proposal.deadline, now })
    if (!tally.ready) return record
    const claimant = bytesToHex(randomBytes(8))
    const fromBlock = (await this.#d.blockNumber()).toString()
    const claim = await this.#d.store.claimCouncilExecution({ id: proposal.id, claimant, now: this.#d.clockMs(), fromBlock })
    if (!claim.claimed) return claim.current ?? record
    return this.#run(claim.record, proposal, claimant, { signatures, counting, now })
  }

  /**
   * Submits a claimed proposal and records the outcome; only the claimant gets here. When the EntryPoint
   * refuses a signature, the signers the council's contract refuses are dropped and the rest tallied
   * again, so one member's unusable signature cannot veto the others; each round drops at least one
   * signer, so this ends. Once the transaction is sent, only the chain's answer finishes the proposal:
   * without a receipt it stays executing, with its hash, for a later read to settle.
   */
  async #run(
    claimed: CouncilProposalRecord,
    proposal: CouncilProposal,
    claimant: string,
    tallied: { signatures: readonly CouncilSignatureRecord[]; counting: readonly Address[]; now: bigint },
  ): Promise<CouncilProposalRecord> {
    await this.#d.afterClaim?.('claimed')
    const dropped: { signer: Address; rule: string }[] = []
    const kept = () => (dropped.length === 0 ? {} : { dropped: [...dropped] })
    for (;;) {
      const tally = tallyCouncilSignatures({
        ...tallied,
        threshold: this.#d.threshold,
        deadline: proposal.deadline,
        dropped: dropped.map((d) => d.signer),
      })
      if (!tally.ready) {
        const refused = dropped.length === 0 ? '' : `the chain refused ${dropped.map((d) => d.signer).join(', ')}, and `
        const reason = `released: it never ran; ${refused}its signatures no longer make the threshold (${tally.reason})`
        return this.#finish(claimed, claimant, { status: 'rejected', execution: { reason, ...kept() } })
      }
      const outcome = await this.#submit(proposal, claimant, tally.aggregate)
      await this.#d.afterClaim?.('submitted')
      if (outcome.status === 'rejected' && outcome.cause === 'signature') {
        const faults = await this.#d.signatureFaults(proposal, tally.chosen)
        if (faults.length > 0) {
          dropped.push(...faults)
          continue
        }
      }
      if (outcome.status === 'rejected' && outcome.cause === 'nonce') return this.#ranBefore(claimed, proposal, claimant, outcome.reason)
      if (outcome.status === 'rejected')
        return this.#finish(claimed, claimant, { status: 'rejected', execution: { reason: outcome.reason, ...kept() } })
      if (outcome.status === 'pending') return this.#awaitChain(claimed, claimant, { reason: outcome.reason, ...kept() })
      return this.#finish(claimed, claimant, {
        status: outcome.status,
        execution: {
          txHash: outcome.txHash,
          userOpHash: outcome.userOpHash,
          blockNumber: outcome.blockNumber.toString(),
          ...(outcome.status === 'reverted' && outcome.refusal
            ? { refusal: { name: outcome.refusal.name, args: outcome.refusal.args.map(String) } }
            : {}),
          ...kept(),
        },
      })
    }
  }

  /** One submission; the transaction's hash is noted on the claim the moment it is sent. */
  async #submit(proposal: CouncilProposal, claimant: string, aggregate: Hex): Promise<CouncilSubmission> {
    try {
      return await this.#d.submit(proposal, aggregate, async (sent) => {
        await this.#d.store.noteCouncilExecution({ id: proposal.id, claimant, execution: { ...sent, sentAt: this.#d.clockMs() } })
      })
    } catch (error) {
      // The submission answers rather than throws; a throw (the store, the RPC) leaves it unknown
      // whether anything was sent, so the chain decides after the lease.
      return { status: 'pending', reason: `submission interrupted: ${(error as Error).message.split('\n')[0]}` }
    }
  }

  /**
   * The EntryPoint says the proposal's nonce key is used: its user operation ran already (a send whose
   * outcome was lost). It is found by its hash and recorded; until it is found the claim stays.
   */
  async #ranBefore(claimed: CouncilProposalRecord, proposal: CouncilProposal, claimant: string, reason: string) {
    const settlement = settlementOf(
      await this.#d.findExecution(proposal, undefined, undefined),
      `found on the chain: a new submission was refused (${reason}) because it had already run`,
    )
    if (settlement) return this.#finish(claimed, claimant, settlement)
    return this.#awaitChain(claimed, claimant, { reason })
  }

  /** The claimant stops waiting: the proposal stays executing, and the next read or signature asks the chain. */
  async #awaitChain(claimed: CouncilProposalRecord, claimant: string, note: Pick<CouncilExecution, 'reason' | 'dropped'>) {
    const execution = { ...note, awaitingChainSince: this.#d.clockMs() }
    const noted = await this.#d.store.noteCouncilExecution({ id: claimed.id, claimant, execution })
    return noted ?? (await this.#d.store.getCouncilProposal(claimed.id)) ?? claimed
  }

  /** Records the outcome; a claimant that was overtaken records nothing and answers what is stored. */
  /** Takes an execution's claim over from `from` under a fresh claimant (its lease ran out, or its settlement is to be recorded). */
  async #reclaim(id: Hex, from: string) {
    const claimant = bytesToHex(randomBytes(8))
    const taken = await this.#d.store.reclaimCouncilExecution({ id, from, claimant, now: this.#d.clockMs() })
    return { claimant, taken }
  }

  async #finish(
    fallback: CouncilProposalRecord,
    claimant: string,
    outcome: Pick<FinishCouncilExecutionInput, 'status' | 'execution'>,
  ): Promise<CouncilProposalRecord> {
    const finished = await this.#d.store.finishCouncilExecution({ id: fallback.id, claimant, ...outcome, now: this.#d.clockMs() })
    return finished ?? (await this.#d.store.getCouncilProposal(fallback.id)) ?? fallback
  }

  /**
   * A proposal left `executing` is settled here, once. When its claimant stopped waiting (no receipt in
   * time), the chain may already say how it ended (its receipt, by hash, or the user operation's event):
   * then it is recorded at once, and otherwise it stays executing. A claim past its lease (its
   * claimant stopped between its claim and the outcome) is taken over by one request, which asks the
   * chain whether the user operation ran and records what it finds; if it never ran, it is submitted now
   * (its nonce key runs once), or released to be claimed again when its signatures no longer reach the
   * threshold. A transaction still pending keeps the claim.
   */
  async #settled(record: CouncilProposalRecord): Promise<CouncilProposalRecord> {
    const stale = isStaleCouncilExecution(record, this.#d.clockMs(), this.#d.leaseMs ?? COUNCIL_EXECUTION_LEASE_MS)
    if (!stale && !isAwaitingChain(record)) return record
    const proposal = parseCouncilProposal(record.proposal)
    const execution = record.execution!
    const fromBlock = execution.fromBlock === undefined ? undefined : BigInt(execution.fromBlock)
    if (!stale) {
      const settlement = settlementOf(
        await this.#d.findExecution(proposal, fromBlock, execution.txHash),
        'settled from the chain: its receipt had not come when it was sent',
      )
      if (!settlement) return record
      const { claimant, taken } = await this.#reclaim(record.id, execution.claimant)
      if (!taken.claimed) return taken.current ?? record
      return this.#finish(taken.record, claimant, settlement)
    }
    const { claimant, taken } = await this.#reclaim(record.id, execution.claimant)
    if (!taken.claimed) return taken.current ?? record
    const finding = await this.#d.findExecution(proposal, fromBlock, taken.record.execution?.txHash)
    const settlement = settlementOf(finding)
    if (settlement) return this.#finish(taken.record, claimant, settlement)
    // Its transaction is still pending, or its nonce key is used but the event was not found: keep the
    // claim and look again after the lease.
    if (finding.status === 'unknown' || finding.status === 'pending') return taken.record
    const [seats, signatures, now] = await Promise.all([this.#seats(), this.#d.store.listCouncilSignatures(record.id), this.#d.chainNow()])
    return this.#run(taken.record, proposal, claimant, { signatures, counting: seats.counting, now })
  }

  #view(
    record: CouncilProposalRecord,
    signatures: readonly CouncilSignatureRecord[],
    seats: { members: readonly CouncilMember[]; counting: readonly Address[] },
    now: bigint,
  ): CouncilProposalView {
    const proposal = parseCouncilProposal(record.proposal)
    // A signature counts when its seat counts now, the chain would take it, and the chain did not refuse it for this proposal.
    const dropped = record.execution?.dropped ?? []
    const counts = (s: CouncilSignatureRecord) =>
      seats.counting.some((c) => isAddressEqual(c, s.signer)) &&
      councilSignatureRule(s.signature) === undefined &&
      !dropped.some((d) => isAddressEqual(d.signer, s.signer))
    const views = signatures.map((s) => ({ signer: s.signer, at: s.at, counts: counts(s) }))
    const open = record.status === 'open' || record.status === 'rejected'
    return {
      id: record.id,
      council: record.council,
      proposer: record.proposer,
      status: open && now > proposal.deadline ? 'expired' : record.status,
      deadline: record.deadline,
      action: proposal.action,
      threshold: this.#d.threshold,
      seats: seats.members.length,
      signatures: views,
      counted: views.filter((v) => v.counts).length,
      execution: record.execution ?? null,
      proposal: record.proposal,
    }
  }
}

/** A proposal as a read key sees it: its state, without its call data or the proposal text (which carries it). */
export type CouncilProposalSummary = Omit<CouncilProposalView, 'proposal' | 'action'> & { action: Omit<CouncilAction, 'callData'> }

export const councilSummaryOf = (view: CouncilProposalView): CouncilProposalSummary => {
  const { proposal: _proposal, action, ...rest } = view
  return { ...rest, action: { target: action.target, value: action.value } }
}

/** The typed data a member signs for a stored proposal (what the API hands out with a proposal). */
export const typedDataOf = (view: CouncilProposalView) => councilProposalTypedData(parseCouncilProposal(view.proposal))
