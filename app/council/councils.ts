// The councils owners formed, served from their stored records: one CouncilService per council, built
// on first use from its record (seats, threshold, the owner's signed delegation) and the chain edge.
// A member's request finds its council by the proposal it names, by the council it names, or by the one
// council its Golem sits on.
import type { Delegation } from '@metamask/smart-accounts-kit'
import { getAddress, type Account, type Address, type Chain, type Hex, type PublicClient, type Transport, type WalletClient } from 'viem'
import {
  councilGas,
  findCouncilExecution,
  findCouncilSignatureFaults,
  precheckCouncilAction,
  readCouncilStandings,
  submitCouncilProposal,
  type CustodyStanding,
} from '../../adapters/chain/council.ts'
import { CouncilError, CouncilRefusal } from '../../core/council/errors.ts'
import { fromCouncilJson } from '../../core/council/serialize.ts'
import type { CouncilRecord, CouncilStore } from '../../core/council/store.ts'
import type { BardoDeployment } from '../../core/deployment.ts'
import { parseGolemProfile } from '../../core/lifecycle/profile.ts'
import type { Store } from '../../core/store/index.ts'
import { CouncilService, type CouncilServiceDeps } from './councilService.ts'

/** The council's chain edge on one chain: what a CouncilService needs besides its council, store and clock. */
export function councilChainDeps(p: {
  publicClient: PublicClient
  vitalityOracle: Address
  /** Sends the council's handleOps (and pays its gas up front; the EntryPoint repays it from the council). */
  submitter: WalletClient<Transport, Chain, Account>
  custody: CustodyStanding
}): Omit<CouncilServiceDeps, 'store' | 'clockMs' | 'config' | 'members' | 'threshold' | 'delegation'> {
  const { publicClient } = p
  return {
    standings: (members) => readCouncilStandings({ publicClient, vitalityOracle: p.vitalityOracle, members, custody: p.custody }),
    chainNow: async () => (await publicClient.getBlock({ blockTag: 'latest' })).timestamp,
    gas: () => councilGas(publicClient),
    precheck: (proposal) => precheckCouncilAction(publicClient, proposal),
    submit: (proposal, signature, onSent) => submitCouncilProposal({ publicClient, submitter: p.submitter, proposal, signature, onSent }),
    signatureFaults: (proposal, signatures) => findCouncilSignatureFaults({ publicClient, proposal, signatures }),
    blockNumber: () => publicClient.getBlockNumber({ cacheTime: 0 }),
    findExecution: (proposal, fromBlock, txHash) => findCouncilExecution({ publicClient, proposal, fromBlock, txHash }),
  }
}

/** Custody's view of a seat's Golem from the store: its lifecycle and current session key. */
export function storeCustody(store: Pick<Store, 'getGolem'>): CustodyStanding {
  return async (golemId) => {
    const record = await store.getGolem(golemId)
    if (!record?.profile) return undefined
    return { lifecycle: record.status, currentKey: parseGolemProfile(record.profile).golemKey }
  }
}

export type CouncilsDeps = {
  store: CouncilStore
  golems: Pick<Store, 'getGolem' | 'findGolems'>
  publicClient: PublicClient
  deployment: BardoDeployment
  submitter: WalletClient<Transport, Chain, Account>
  clockMs(): number
  /** Custody's view of a seat's Golem; default the store's (storeCustody). */
  custody?: CustodyStanding
}

export class Councils {
  readonly #d: CouncilsDeps
  readonly #services = new Map<string, CouncilService>()
  readonly #chain: ReturnType<typeof councilChainDeps>

  constructor(deps: CouncilsDeps) {
    this.#d = deps
    this.#chain = councilChainDeps({
      publicClient: deps.publicClient,
      vitalityOracle: deps.deployment.vitalityOracle,
      submitter: deps.submitter,
      custody: deps.custody ?? storeCustody(deps.golems),
    })
  }

  /** A formed council's record; COUNCIL_NOT_FOUND otherwise. */
  async record(council: Address): Promise<CouncilRecord> {
    const record = await this.#d.store.getCouncil(council)
    if (!record) throw new CouncilRefusal('COUNCIL_NOT_FOUND', `council: no council was formed at ${council}`)
    return record
  }

  /** The council at this address. */
  async service(council: Address): Promise<CouncilService> {
    const key = council.toLowerCase()
    const known = this.#services.get(key)
    if (known) return known
    const service = this.#serviceOf(await this.record(council))
    this.#services.set(key, service)
    return service
  }

  /** The council a proposal belongs to; COUNCIL_PROPOSAL_NOT_FOUND for an id no council proposed. */
  async ofProposal(id: Hex): Promise<CouncilService> {
    const proposal = /^0x[0-9a-fA-F]{32}$/.test(id) ? await this.#d.store.getCouncilProposal(id.toLowerCase() as Hex) : null
    if (!proposal) throw new CouncilRefusal('COUNCIL_PROPOSAL_NOT_FOUND', `id: no council proposal ${id}`)
    return this.service(proposal.council)
  }

  /**
   * The council a member proposes to: the one it names, or else the one council its Golem (found by the
   * caller's current session key) sits on. A Golem on several councils names one; on none it is no member.
   */
  async forMember(caller: Address, named: Address | undefined): Promise<CouncilService> {
    if (named) return this.service(named)
    const [golem] = await this.#d.golems.findGolems({ sessionKey: caller.toLowerCase() as Address })
    const seats = golem ? await this.#d.store.listCouncilsOfGolem(golem.golemId) : []
    if (seats.length === 0) throw new CouncilRefusal('COUNCIL_NOT_MEMBER', `caller: ${caller} holds no seat on any council`)
    if (seats.length > 1)
      throw new CouncilError(
        'council',
        `must name the council: Golem ${golem!.golemId} sits on ${seats.length} (${seats.map((s) => s.council).join(', ')})`,
      )
    return this.service(seats[0]!.council)
  }

  /** The owner's councils, newest first. */
  ofOwner(owner: Address): Promise<CouncilRecord[]> {
    return this.#d.store.listCouncilsByOwner(owner)
  }

  #serviceOf(record: CouncilRecord): CouncilService {
    const { environment } = this.#d.deployment
    const members = record.members.map((m) => ({ golemId: m.golemId, signer: getAddress(m.signer) }))
    return new CouncilService({
      ...this.#chain,
      store: this.#d.store,
      clockMs: () => this.#d.clockMs(),
      config: {
        council: getAddress(record.council),
        chainId: record.chainId,
        entryPoint: environment.EntryPoint,
        delegationManager: environment.DelegationManager,
      },
      // The seats as formed: a signer the council later replaces on-chain stops counting (it is no
      // signer there), and the owner forms a new council to change the membership.
      members: async () => members,
      threshold: record.threshold,
      delegation: fromCouncilJson<Delegation>(record.delegation),
    })
  }
}
