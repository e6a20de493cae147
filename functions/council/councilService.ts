// The council's flow: a counting member proposes (pre-checked against the council's caveats, then
// stored), members sign (each signature judged against fresh standings, stored once), and the request
// that completes the threshold claims the proposal and submits it, so it runs exactly once; a claim a
// crash left behind is settled from the chain by the next read or signature.
import type { Delegation } from '@metamask/smart-accounts-kit'
import { bytesToHex, isAddressEqual, type Address, type Hex } from 'viem'
import { randomBytes } from 'node:crypto'
import type { CouncilSubmission } from '../../adapters/chain/council.ts'
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
import { judgeCouncilSignature, tallyCouncilSignatures, type SignatureRefusal } from '../../core/council/signatures.ts'
import {
  COUNCIL_EXECUTION_LEASE_MS,
  isStaleCouncilExecution,
  settlementOf,
  type CouncilExecutionFinding,
} from '../../core/council/reconcile.ts'
import type { CouncilExecution, CouncilProposalRecord, CouncilSignatureRecord, CouncilStore } from '../../core/council/store.ts'

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
  submit(proposal: CouncilProposal, signature: Hex): Promise<CouncilSubmission>
  /** Milliseconds since the epoch (record times, and the claim's lease). */
  clockMs(): number
  /** The chain's block number, recorded with a claim: the user operation, if it runs, is at or after it. */
  blockNumber(): Promise<bigint>
  /** Whether a proposal's user operation ran (the chain's answer, for a claim whose claimant died). */
  findExecution(proposal: CouncilProposal, fromBlock: bigint | undefined): Promise<CouncilExecutionFinding>
  /** How long a claim is trusted before a read or a signature settles it; default COUNCIL_EXECUTION_LEASE_MS. */
  leaseMs?: number
  /**
   * Called after the claim and after the submission, before the outcome is recorded; a throw here stops
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
    const { items, next } = await this.#d.store.listCouncilProposals(page)
    const [seats, now] = await Promise.all([this.#seats(), this.#d.chainNow()])
    const proposals = await Promise.all(
      items.map(async (item) => {
        const record = await this.#settled(item)
        return this.#view(record, await this.#d.store.listCouncilSignatures(record.id), seats, now)
      }),
    )
    return { proposals, next }
  }

  async get(id: Hex): Promise<CouncilProposalView> {
    const record = await this.#settled(await this.#record(id))
    return this.#view(record, await this.#d.store.listCouncilSignatures(record.id), await this.#seats(), await this.#d.chainNow())
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
    return this.#submitClaimed(record, proposal, claimant, tally.aggregate)
  }

  /** Submits a claimed proposal and records the outcome; only the claimant gets here. */
  async #submitClaimed(record: CouncilProposalRecord, proposal: CouncilProposal, claimant: string, aggregate: Hex) {
    await this.#d.afterClaim?.('claimed')
    let outcome: CouncilSubmission
    try {
      outcome = await this.#d.submit(proposal, aggregate)
    } catch (error) {
      // Nothing was mined that we know of; the EntryPoint's nonce key keeps a later retry from running twice.
      outcome = { status: 'rejected', reason: `submission failed: ${(error as Error).message.split('\n')[0]}` }
    }
    await this.#d.afterClaim?.('submitted')
    const execution: Omit<CouncilExecution, 'claimant' | 'claimedAt'> =
      outcome.status === 'rejected'
        ? { reason: outcome.reason }
        : {
            txHash: outcome.txHash,
            userOpHash: outcome.userOpHash,
            blockNumber: outcome.blockNumber.toString(),
            ...(outcome.status === 'reverted' && outcome.refusal
              ? { refusal: { name: outcome.refusal.name, args: outcome.refusal.args.map(String) } }
              : {}),
          }
    const finished = await this.#d.store.finishCouncilExecution({
      id: proposal.id,
      claimant,
      status: outcome.status,
      execution,
      now: this.#d.clockMs(),
    })
    return finished ?? record
  }

  /**
   * A proposal whose claimant stopped between its claim and the outcome (it has been `executing` past
   * the lease) is settled here, once: one request takes the claim over, asks the chain whether the user
   * operation ran and records what it finds; if it never ran, it is submitted now (its nonce key runs
   * once), or released to be claimed again when its signatures no longer reach the threshold.
   */
  async #settled(record: CouncilProposalRecord): Promise<CouncilProposalRecord> {
    if (!isStaleCouncilExecution(record, this.#d.clockMs(), this.#d.leaseMs ?? COUNCIL_EXECUTION_LEASE_MS)) return record
    const claimant = bytesToHex(randomBytes(8))
    const taken = await this.#d.store.reclaimCouncilExecution({
      id: record.id,
      from: record.execution!.claimant,
      claimant,
      now: this.#d.clockMs(),
    })
    if (!taken.claimed) return taken.current ?? record
    const proposal = parseCouncilProposal(record.proposal)
    const fromBlock = taken.record.execution?.fromBlock
    const finding = await this.#d.findExecution(proposal, fromBlock === undefined ? undefined : BigInt(fromBlock))
    const settlement = settlementOf(finding)
    const finish = (s: NonNullable<typeof settlement>) =>
      this.#d.store.finishCouncilExecution({ id: record.id, claimant, ...s, now: this.#d.clockMs() })
    if (settlement) return (await finish(settlement)) ?? taken.record
    // Its nonce key is used but the event was not found: keep the claim and look again after the lease.
    if (finding.status === 'unknown') return taken.record
    const seats = await this.#seats()
    const tally = tallyCouncilSignatures({
      signatures: await this.#d.store.listCouncilSignatures(record.id),
      counting: seats.counting,
      threshold: this.#d.threshold,
      deadline: proposal.deadline,
      now: await this.#d.chainNow(),
    })
    if (tally.ready) return this.#submitClaimed(taken.record, proposal, claimant, tally.aggregate)
    const reason = `released: it never ran, and its signatures no longer make the threshold (${tally.reason})`
    return (await finish({ status: 'rejected', execution: { reason } })) ?? taken.record
  }

  #view(
    record: CouncilProposalRecord,
    signatures: readonly CouncilSignatureRecord[],
    seats: { members: readonly CouncilMember[]; counting: readonly Address[] },
    now: bigint,
  ): CouncilProposalView {
    const proposal = parseCouncilProposal(record.proposal)
    const views = signatures.map((s) => ({ signer: s.signer, at: s.at, counts: seats.counting.some((c) => isAddressEqual(c, s.signer)) }))
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

/** The typed data a member signs for a stored proposal (what the API hands out with a proposal). */
export const typedDataOf = (view: CouncilProposalView) => councilProposalTypedData(parseCouncilProposal(view.proposal))
