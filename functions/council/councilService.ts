// The council's flow: a counting member proposes (pre-checked against the council's caveats, then
// stored), members sign (each signature judged against fresh standings, stored once), and the request
// that completes the threshold claims the proposal and submits it, so it runs exactly once.
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
  /** Milliseconds since the epoch (record times). */
  clockMs(): number
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
    const record = await this.#record(id)
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

  async get(id: Hex): Promise<CouncilProposalView> {
    const record = await this.#record(id)
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
    const claim = await this.#d.store.claimCouncilExecution({ id: proposal.id, claimant, now: this.#d.clockMs() })
    if (!claim.claimed) return claim.current ?? record
    let outcome: CouncilSubmission
    try {
      outcome = await this.#d.submit(proposal, tally.aggregate)
    } catch (error) {
      // Nothing was mined that we know of; the EntryPoint's nonce key keeps a later retry from running twice.
      outcome = { status: 'rejected', reason: `submission failed: ${(error as Error).message.split('\n')[0]}` }
    }
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

  #view(
    record: CouncilProposalRecord,
    signatures: readonly CouncilSignatureRecord[],
    seats: { counting: readonly Address[] },
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
      signatures: views,
      counted: views.filter((v) => v.counts).length,
      execution: record.execution ?? null,
      proposal: record.proposal,
    }
  }
}

/** The typed data a member signs for a stored proposal (what the API hands out with a proposal). */
export const typedDataOf = (view: CouncilProposalView) => councilProposalTypedData(parseCouncilProposal(view.proposal))
