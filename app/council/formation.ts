// The owner forms a council through the API. The draft answers the council's MultiSig DeleGator (its
// counterfactual address: the seats' current keys, the threshold and a fresh salt) and the owner's
// bounded delegation to it as EIP-712 typed data to sign; it writes nothing. The formation takes the
// same request back with the signed delegation, drafts it again from the store and the chain as they are
// now, and checks it in full (the seats are the owner's own living Golems, 1 <= k <= n, the delegation is
// exactly the drafted one, the signature is the owner smart account's by ERC-1271) before anything is
// written; then the council is deployed through the kit's factory (unless it is already) and stored.
import type { Delegation } from '@metamask/smart-accounts-kit'
import { hashDelegation } from '@metamask/smart-accounts-kit/utils'
import { bytesToHex, getAddress, type Address, type Hex, type PublicClient } from 'viem'
import { randomBytes } from 'node:crypto'
import { councilAccountOf, readCouncilStandings } from '../../adapters/chain/council.ts'
import { hasCode, type TransactionSender } from '../../adapters/chain/serialSender.ts'
import type { TokenFeed } from '../../core/caveats/types.ts'
import { buildCouncilDelegation } from '../../core/council/buildCouncilDelegation.ts'
import { CouncilError, CouncilRefusal, formationRefused } from '../../core/council/errors.ts'
import {
  checkCouncilSeats,
  checkCouncilWindow,
  councilBoundsOf,
  councilDelegationDifference,
  type CouncilScope,
  type SeatCandidate,
} from '../../core/council/formation.ts'
import { judgeMember } from '../../core/council/membership.ts'
import { toCouncilJson } from '../../core/council/serialize.ts'
import type { CouncilMember } from '../../core/council/membership.ts'
import type { CouncilRecord, CouncilStore } from '../../core/council/store.ts'
import type { BardoDeployment } from '../../core/deployment.ts'
import { DelegationTree } from '../../core/delegations/tree.ts'
import { delegationDomainOf, delegationTypedData } from '../../core/delegations/typedData.ts'
import { parseGolemProfile } from '../../core/lifecycle/profile.ts'
import type { Store } from '../../core/store/index.ts'
import { storeCustody } from './councils.ts'

export type CouncilFormationDeps = {
  store: CouncilStore
  golems: Pick<Store, 'getGolem'>
  client: PublicClient
  deployment: BardoDeployment
  /** Deploys the council (and fronts its first gas): the API's own account, never the owner's. */
  sender: TransactionSender
  /** The price feeds and their freshness for a scope that names none (the deployment's known assets). */
  defaultFeeds?: () => Promise<{ feeds: TokenFeed[]; maxPriceAge: number }>
  /** ETH sent to a council this formation deployed, for its first user operations (the local stack's); default 0. */
  gasBootstrap?: bigint
  clockMs(): number
  newSalt?: () => Hex
}

/** A scope as the owner asks for it: anything left out takes the deployment's default. */
export type CouncilScopeRequest = Omit<CouncilScope, 'feeds' | 'maxPriceAge' | 'startsAt' | 'endsAt'> & {
  feeds?: TokenFeed[] | undefined
  maxPriceAge?: number | undefined
  startsAt?: bigint | undefined
  endsAt?: bigint | undefined
}

export type CouncilFormationRequest = { golems: readonly string[]; threshold: number; scope: CouncilScopeRequest }

/** What the owner signs, with everything the formation is asked again with. */
export type CouncilDraft = {
  council: Address
  owner: Address
  members: CouncilMember[]
  threshold: number
  scope: CouncilScope
  salt: Hex
  /** The unsigned delegation (signature 0x) and the EIP-712 payload the wallet signs. */
  delegation: Delegation
  typedData: ReturnType<typeof delegationTypedData>
  delegationHash: Hex
  /** Whether the council's MultiSig DeleGator is on the chain already. */
  deployed: boolean
}

export type FormCouncilRequest = Omit<CouncilFormationRequest, 'scope'> & { scope: CouncilScope; salt: Hex; delegation: Delegation }

export type Formed = { record: CouncilRecord; created: boolean; txHashes: Hex[] }

/** A council's default life when the scope names no end: 30 days. */
export const DEFAULT_COUNCIL_SECONDS = 30n * 86_400n

export class CouncilFormation {
  readonly #d: CouncilFormationDeps
  /** Formations in flight, per council: one at a time, so a double click deploys and stores once. */
  readonly #forming = new Map<string, Promise<unknown>>()

  constructor(deps: CouncilFormationDeps) {
    this.#d = deps
  }

  async draft(request: CouncilFormationRequest): Promise<CouncilDraft> {
    const now = await this.#now()
    const scope = await this.#scopeOf(request.scope, now)
    const salt = this.#d.newSalt?.() ?? bytesToHex(randomBytes(32))
    return this.#plan({ ...request, scope }, salt, now)
  }

  async form(request: FormCouncilRequest): Promise<Formed> {
    const now = await this.#now()
    const plan = await this.#plan(request, request.salt, now)
    const difference = councilDelegationDifference(plan.delegation, request.delegation)
    if (difference)
      throw formationRefused(
        difference,
        `must be exactly the drafted delegation to the council ${plan.council}: ask for a draft and sign it unchanged`,
      )
    const signed = { ...plan.delegation, signature: request.delegation.signature }
    const valid = await this.#d.client
      .verifyTypedData({ address: plan.owner, ...plan.typedData, signature: signed.signature } as never)
      .catch(() => false)
    if (!valid)
      throw formationRefused(
        'delegation.signature',
        `must be the owner's signature over the council delegation, valid for ${plan.owner} (ERC-1271)`,
      )
    const key = plan.council.toLowerCase()
    const previous = this.#forming.get(key) ?? Promise.resolve()
    const run = previous.then(
      () => this.#store(plan, signed),
      () => this.#store(plan, signed),
    )
    this.#forming.set(
      key,
      run.catch(() => undefined),
    )
    return run
  }

  /** Everything checked: the council goes on the chain (unless it is), then into the store. */
  async #store(plan: CouncilDraft & { factory: Address; factoryData: Hex }, delegation: Delegation): Promise<Formed> {
    const existing = await this.#d.store.getCouncil(plan.council)
    if (existing) return this.#formedBefore(existing, plan)
    const txHashes: Hex[] = []
    if (!(await hasCode(this.#d.client, plan.council))) {
      txHashes.push(await this.#d.sender.send({ to: plan.factory, data: plan.factoryData }))
      const bootstrap = this.#d.gasBootstrap ?? 0n
      if (bootstrap > 0n) txHashes.push(await this.#d.sender.send({ to: plan.council, value: bootstrap }))
    }
    const record: CouncilRecord = {
      council: plan.council,
      owner: plan.owner,
      chainId: this.#d.deployment.chainId,
      members: plan.members,
      threshold: plan.threshold,
      salt: plan.salt,
      scope: toCouncilJson(plan.scope),
      delegation: toCouncilJson(delegation),
      delegationHash: plan.delegationHash,
      formedAt: this.#d.clockMs(),
      ...(txHashes[0] ? { deployTxHash: txHashes[0] } : {}),
    }
    const created = await this.#d.store.createCouncil(record)
    if (!created.created) return this.#formedBefore(created.existing, plan)
    return { record, created: true, txHashes }
  }

  /** The same formation again changes nothing; another delegation to a formed council is refused. */
  #formedBefore(existing: CouncilRecord, plan: CouncilDraft): Formed {
    if (existing.delegationHash.toLowerCase() !== plan.delegationHash.toLowerCase())
      throw new CouncilRefusal('COUNCIL_EXISTS', `council: ${plan.council} was formed already, with another delegation`, {
        field: 'salt',
      })
    return { record: existing, created: false, txHashes: [] }
  }

  /** The draft, as the store and the chain are now: the seats checked, the council's address, the delegation. */
  async #plan(
    request: Omit<FormCouncilRequest, 'delegation' | 'salt'>,
    salt: Hex,
    now: bigint,
  ): Promise<CouncilDraft & { factory: Address; factoryData: Hex }> {
    const { deployment, client } = this.#d
    if (!/^0x[0-9a-fA-F]{64}$/.test(salt)) throw formationRefused('salt', 'must be the 32-byte hex salt of the draft')
    checkCouncilWindow(request.scope, now)
    const { owner, members } = checkCouncilSeats({ candidates: await this.#candidates(request.golems), threshold: request.threshold })
    const account = await councilAccountOf({
      environment: deployment.environment,
      signers: members.map((m) => m.signer),
      threshold: request.threshold,
      salt,
    })
    const tree = new DelegationTree({ environment: deployment.environment, deployment, now: () => now })
    let delegation: Delegation
    try {
      delegation = buildCouncilDelegation({
        tree,
        owner,
        council: account.address,
        bounds: councilBoundsOf(request.scope),
        salt,
      }).delegation
    } catch (error) {
      // The builder names the bounds; the request calls them the scope.
      if (error instanceof CouncilError)
        throw formationRefused(error.field.replace(/^bounds\.(dailySpendLimit\.)?/, 'scope.'), error.message.slice(error.field.length + 1))
      throw error
    }
    return {
      council: account.address,
      owner: getAddress(owner),
      members,
      threshold: request.threshold,
      scope: request.scope,
      salt,
      delegation: { ...delegation, signature: '0x' },
      typedData: delegationTypedData(delegation, delegationDomainOf(deployment)),
      delegationHash: hashDelegation(delegation),
      deployed: await hasCode(client, account.address),
      factory: account.factory,
      factoryData: account.factoryData,
    }
  }

  /** Each Golem named, as custody knows it, and whether the seat its current key would hold counts now. */
  async #candidates(golemIds: readonly string[]): Promise<SeatCandidate[]> {
    const custody = storeCustody(this.#d.golems)
    const found = await Promise.all(
      golemIds.map(async (golemId) => {
        const record = await this.#d.golems.getGolem(golemId)
        const golem = record?.profile ? { owner: getAddress(record.owner), currentKey: parseGolemProfile(record.profile).golemKey } : null
        return { golemId, golem }
      }),
    )
    const seats = found.filter((c) => c.golem).map((c) => ({ golemId: c.golemId, signer: c.golem!.currentKey }))
    const standings = await readCouncilStandings({
      publicClient: this.#d.client,
      vitalityOracle: this.#d.deployment.vitalityOracle,
      members: seats,
      custody,
    })
    return found.map((c) => ({
      ...c,
      verdict: c.golem
        ? judgeMember({ golemId: c.golemId, signer: c.golem.currentKey }, standings.get(c.golem.currentKey.toLowerCase()))
        : undefined,
    }))
  }

  async #scopeOf(request: CouncilScopeRequest, now: bigint): Promise<CouncilScope> {
    let { feeds, maxPriceAge } = request
    if (feeds === undefined || maxPriceAge === undefined) {
      const defaults = await this.#d.defaultFeeds?.()
      feeds ??= defaults?.feeds
      maxPriceAge ??= defaults?.maxPriceAge ?? 86_400
    }
    if (!feeds || feeds.length === 0)
      throw formationRefused('scope.feeds', 'must name the price feed of every token the council moves: this deployment knows none')
    const startsAt = request.startsAt ?? now
    return { ...request, feeds, maxPriceAge, startsAt, endsAt: request.endsAt ?? startsAt + DEFAULT_COUNCIL_SECONDS }
  }

  async #now(): Promise<bigint> {
    return (await this.#d.client.getBlock({ blockTag: 'latest' })).timestamp
  }
}
