// Current state of Golems from the chain: permission health (core/health over facts from the profile
// and one batched read), the oracle phase, and the runway period's spend. The read is the tick's own
// (adapters/chain/readGolems: one deployless multicall at a block), so the API classifies a permission
// from exactly the facts the heartbeat sees. Reads are shared per block: each request learns the head
// block, its number and timestamp in one read (shared by concurrent requests, sent at most
// `headMaxAgeMs` before the request arrived: see headBlock.ts), and every request at that head gets the
// same read of the Golem, so a Golem costs one multicall per block however many ask, and no answer is
// older than the head its request found. Read ahead: a head read that finds a new block reads, in one
// multicall at that block, the Golems asked about at the head before it, so that the requests that follow
// find their Golem already read.
import { permissionFactsOf } from '../../../core/lifecycle/permissionFacts.ts'
import type { Address, PublicClient } from 'viem'
import type { BardoDeployment } from '../../../core/deployment.ts'
import { golemHealth, phaseOfName, rotationWaitOf, type GolemHealth } from '../../../core/health/golemHealth.ts'
import { vitalsOf } from '../vitals.ts'
import { parseGolemProfile, type GolemProfile } from '../../../core/lifecycle/profile.ts'
import { adjustmentInForce } from '../../../core/lifecycle/adjustmentInForce.ts'
import { readRequestOf } from '../../../core/lifecycle/observation.ts'
import type { GolemStore } from '../../../core/store/index.ts'
import { readGolems, type GolemChainState, type GolemReadRequest } from '../../../adapters/chain/readGolems.ts'
import { findRevocation, type GrantRevocation } from '../../../adapters/chain/revocation.ts'
import { BlockSnapshots } from './blockSnapshots.ts'
import { HeadBlock } from './headBlock.ts'
import type { ChainPhaseState, ChainSpendState, GolemChainService, GolemView, PermissionHealthService } from '../deps.ts'

export type ChainGolemStateOptions = {
  client: PublicClient
  deployment: BardoDeployment
  /** Reads the profile when the registry did not attach it. */
  store: Pick<GolemStore, 'getGolem'>
  /** The newest redemption's time (unix s), e.g. from the indexer; failures fall back to the store. */
  lastRedemptionAt?: (golem: GolemView) => Promise<bigint | undefined>
  /** Told when the lastRedemptionAt source or a revocation's lookup failed (the answer still comes, without it). */
  onUnexpectedError?: (error: unknown) => void
  /** Golem reads kept (one per Golem and grant; 10,000 by default); the oldest is dropped first. */
  maxSnapshots?: number
  /** How long a head read answers later requests (ms; HeadBlock's freshness rule). Default 0. */
  headMaxAgeMs?: number
}

type Observed = GolemChainState & { timestamp: bigint; blockNumber: bigint }
/** One lookup of a grant's revoking transaction: the read it was for, the block it was asked at, its answer, and what it found once found. */
type RevocationLookup = { key: string; askedAt: bigint; answer: Promise<GrantRevocation | null>; found?: GrantRevocation }
type Block = { number: bigint; timestamp: bigint }

/** The most Golems read ahead at a new block, in one multicall: as many as the heartbeat reads in one. */
const MAX_READ_AHEAD = 200

type Verdict = {
  read: Observed
  profile: GolemProfile
  lifecycle: GolemView['lifecycle']
  phase: GolemView['phase']
  last: bigint | undefined
  revocation: GrantRevocation | null
  health: GolemHealth
}

/** The same facts the tick decides from (core/lifecycle/permissionFacts.ts). */
export { permissionFactsOf }

export class ChainGolemState implements PermissionHealthService, GolemChainService {
  readonly #o: ChainGolemStateOptions
  readonly #head: HeadBlock<Block>
  /** Each Golem read's request and the head it was last asked at, newest last (as many as reads are kept). */
  readonly #asked = new Map<string, { request: GolemReadRequest; at: bigint }>()
  /** The newest head a head read found. */
  #lastHead: bigint | undefined
  readonly #golems: BlockSnapshots<Observed>
  /** The last verdict per Golem with what it was computed from (as many Golems as reads are kept). */
  readonly #verdicts = new Map<string, Verdict>()
  readonly #maxVerdicts: number
  /**
   * Per Golem, the last lookup of its grant's revoking transaction: what it found never moves while the grant
   * stays disabled; one that found nothing is good for the block it was asked at. As many as reads are kept.
   */
  readonly #revocations = new Map<string, RevocationLookup>()

  constructor(options: ChainGolemStateOptions) {
    this.#o = options
    const client = options.client
    // The latest block itself, not viem's getBlockNumber (which caches the number for the client's polling
    // interval and lets a caller join a request sent before it arrived, either of which could miss a
    // block): its timestamp comes with its number, so a new block costs no second read before the Golem's.
    this.#head = new HeadBlock(
      async () => {
        const b = await client.getBlock({ blockTag: 'latest' })
        const block = { number: b.number, timestamp: b.timestamp }
        await this.#readAhead(block)
        return block
      },
      { maxAgeMs: options.headMaxAgeMs ?? 0 },
    )
    this.#maxVerdicts = options.maxSnapshots ?? 10_000
    this.#golems = new BlockSnapshots({ maxEntries: this.#maxVerdicts })
  }

  /**
   * The verdict, computed once per Golem from the same inputs: the chain read (one object per Golem and
   * block, so a new block is a new read), the profile in force, the lifecycle and phase the store holds,
   * and the newest redemption. Any of them changing (a new block, a store write) gives a fresh verdict;
   * otherwise the one already computed is returned, the same object.
   */
  async check(golem: GolemView): Promise<GolemHealth> {
    const [{ profile, read }, indexed] = await Promise.all([this.#observe(golem), this.#indexedRedemption(golem)])
    const hint = golem.lastRedeemedAt === undefined ? undefined : BigInt(golem.lastRedeemedAt)
    // The indexer may lag a block or two behind a redemption the store already saw, and vice versa.
    const last = indexed === undefined ? hint : hint === undefined || indexed > hint ? indexed : hint
    // Nothing to ask on the common path: a grant enabled, and no revocation kept to forget.
    const revocation = read.disabled || this.#revocations.has(golem.id) ? await this.#revocation(golem, profile, read) : null
    const kept = this.#verdicts.get(golem.id)
    if (
      kept &&
      kept.read === read &&
      kept.profile === profile &&
      kept.lifecycle === golem.lifecycle &&
      kept.phase === golem.phase &&
      kept.last === last &&
      kept.revocation === revocation
    ) {
      return kept.health
    }
    // The tick's own verdict (core/health/golemHealth.ts) from the same facts: the phase and the
    // lifecycle the last tick stored, the TTL the payments moved; a revoked grant dated by the owner's
    // transaction.
    const facts = permissionFactsOf(profile, read, last)
    const health = golemHealth({
      facts: revocation ? { ...facts, disabledAt: revocation.at, disabledTxHash: revocation.txHash } : facts,
      lifecycle: golem.lifecycle,
      phase: phaseOfName(golem.phase),
      runwayEndsAt: profile.life.runwayEndsAt,
      rotation: rotationWaitOf(profile),
    })
    // Only an answer at least as fresh as the one kept replaces it: a request that found an older head
    // does not push a newer verdict out.
    if (!kept || kept.read.blockNumber <= read.blockNumber) {
      this.#verdicts.delete(golem.id)
      this.#verdicts.set(golem.id, { read, profile, lifecycle: golem.lifecycle, phase: golem.phase, last, revocation, health })
      if (this.#verdicts.size > this.#maxVerdicts) this.#verdicts.delete(this.#verdicts.keys().next().value!)
    }
    return health
  }

  async currentPhase(golem: GolemView): Promise<ChainPhaseState> {
    const { profile, read } = await this.#observe(golem)
    const vitals = vitalsOf({ ...golem, profile }, Number(read.timestamp), read.phase)!
    return {
      registered: read.registered,
      phase: vitals.phase,
      survivalScore: read.survivalScoreBps,
      blockNumber: read.blockNumber,
      vitals,
    }
  }

  async currentSpend(golem: GolemView): Promise<ChainSpendState> {
    const { profile, read } = await this.#observe(golem)
    const facts = permissionFactsOf(profile, read)
    const limit = profile.runway.periodAmount
    const remaining = read.availableInPeriod
    return {
      token: profile.runway.token as Address,
      periodStart: Number(facts.currentPeriodStart),
      periodSeconds: Number(profile.runway.periodDuration),
      spent: limit > remaining ? limit - remaining : 0n,
      limit,
      remaining,
      blockNumber: read.blockNumber,
    }
  }

  /**
   * The grant in force and its read, as the tick sees it: once the grant an owner's adjustment supersedes
   * reads disabled, the adjustment is the grant (read once more), not a revocation.
   */
  async #observe(golem: GolemView): Promise<{ profile: GolemProfile; read: Observed }> {
    const stored = await this.#profile(golem)
    const read = await this.#read(golem, stored)
    const profile = adjustmentInForce(stored, read)
    return profile === stored ? { profile, read } : { profile, read: await this.#read(golem, profile) }
  }

  async #profile(golem: GolemView): Promise<GolemProfile> {
    if (golem.profile) return golem.profile
    const record = await this.#o.store.getGolem(golem.id)
    return parseGolemProfile(record?.profile ?? null)
  }

  /**
   * What the API reads of a Golem: the tick's own read request (readRequestOf), so every fact that revokes
   * a grant for the tick (a disabled delegation, the owner's nonce) revokes it here too, without the reads
   * only the tick acts on (the key's runway balance, the gas grant).
   */
  #request(golem: GolemView, profile: GolemProfile): { request: GolemReadRequest; key: string } {
    const { runwayToken: _runwayToken, gas: _gas, ...request } = readRequestOf(golem.id, profile)
    // Keyed by everything the read depends on: a renewal or a key rotation (a new profile) is a new read
    // even within the same block.
    const nonce = request.nonce ? [request.nonce.enforcer, request.nonce.delegator, request.nonce.value] : []
    const key = [golem.id, request.golemKey, request.periodDelegationHash, request.periodTerms, ...request.chainHashes, ...nonce].join(':')
    return { request, key }
  }

  /**
   * The owner's revoking transaction of a grant the read found disabled, looked up once and kept until a
   * read finds the grant enabled again. A lookup that finds nothing (a node still indexing the logs) or
   * fails (a node refusing the block range) is asked again at the next block, not at every request; the
   * answer meanwhile says revoked, without a time.
   */
  async #revocation(golem: GolemView, profile: GolemProfile, read: Observed): Promise<GrantRevocation | null> {
    if (!read.disabled) {
      this.#revocations.delete(golem.id)
      return null
    }
    const { request, key } = this.#request(golem, profile)
    // Requests at one block share one lookup, as they share one read.
    const kept = this.#revocations.get(golem.id)
    if (kept && kept.key === key && (kept.askedAt >= read.blockNumber || (kept.found && kept.found.blockNumber <= read.blockNumber)))
      return kept.answer
    const { deployment, client } = this.#o
    const lookup: RevocationLookup = {
      key,
      askedAt: read.blockNumber,
      answer: findRevocation(client, deployment.environment.DelegationManager, request, {
        fromBlock: deployment.startBlock,
        toBlock: read.blockNumber,
      }).then(
        (found) => {
          if (found) lookup.found = found
          return found
        },
        (error: unknown) => {
          this.#o.onUnexpectedError?.(error)
          return null
        },
      ),
    }
    this.#revocations.delete(golem.id)
    this.#revocations.set(golem.id, lookup)
    if (this.#revocations.size > this.#maxVerdicts) this.#revocations.delete(this.#revocations.keys().next().value!)
    return lookup.answer
  }

  async #read(golem: GolemView, profile: GolemProfile): Promise<Observed> {
    const { request, key } = this.#request(golem, profile)
    const block = await this.#head.latest()
    const asked = { request, at: block.number }
    this.#asked.delete(key)
    this.#asked.set(key, asked)
    if (this.#asked.size > this.#maxVerdicts) this.#asked.delete(this.#asked.keys().next().value!)
    const read = this.#golems.at(key, block.number, async () => (await this.#readAt(block, [request]))[0]!)
    // A Golem whose own read fails is not read ahead (until it is asked for again): one read that keeps
    // failing would fail every block's batch, and every other Golem's request would read on its own.
    read.catch(() => {
      if (this.#asked.get(key) === asked) this.#asked.delete(key)
    })
    return read
  }

  async #readAt(block: Block, requests: readonly GolemReadRequest[]): Promise<Observed[]> {
    const batch = await readGolems(this.#o.client, this.#o.deployment, requests, block)
    return batch.golems.map((g) => ({ ...g, timestamp: batch.timestamp, blockNumber: batch.blockNumber }))
  }

  /**
   * At a new head: the Golems asked about at the head before it (the newest first, at most MAX_READ_AHEAD)
   * read in one multicall at the new block, before the head answers anyone. A read that fails is
   * forgotten (BlockSnapshots), and each request then reads its own Golem as it would have.
   */
  async #readAhead(block: Block): Promise<void> {
    const previous = this.#lastHead
    if (previous !== undefined && block.number <= previous) return
    this.#lastHead = block.number
    if (previous === undefined) return
    const due: [string, GolemReadRequest][] = []
    for (const [key, asked] of [...this.#asked].reverse()) {
      if (due.length === MAX_READ_AHEAD) break
      if (asked.at >= previous) due.push([key, asked.request])
    }
    if (due.length === 0) return
    const batch = this.#readAt(
      block,
      due.map(([, r]) => r),
    )
    // Its failure reaches the requests through their entries; a batch no entry took is dropped quietly.
    batch.catch(() => undefined)
    const reads = due.map(([key], i) => this.#golems.at(key, block.number, async () => (await batch)[i]!))
    await Promise.allSettled(reads)
  }

  async #indexedRedemption(golem: GolemView): Promise<bigint | undefined> {
    if (!this.#o.lastRedemptionAt) return undefined
    try {
      return await this.#o.lastRedemptionAt(golem)
    } catch (error) {
      this.#o.onUnexpectedError?.(error)
      return undefined
    }
  }
}
