// Current state of Golems from the chain: permission health (core/health over facts from the profile
// and one batched read), the oracle phase, and the runway period's spend. The read is the tick's own
// (adapters/chain/readGolems: one block read and one deployless multicall), so the API classifies
// a permission from exactly the facts the heartbeat sees.
import { permissionFactsOf } from '../../../core/lifecycle/permissionFacts.ts'
import type { Address, PublicClient } from 'viem'
import type { BardoDeployment } from '../../../core/deployment.ts'
import { golemHealth, phaseOfName, type GolemHealth } from '../../../core/health/golemHealth.ts'
import { phaseNames } from '../../../core/lifecycle/phase.ts'
import { parseGolemProfile, type GolemProfile } from '../../../core/lifecycle/profile.ts'
import type { GolemStore } from '../../../core/store/index.ts'
import { readGolems, type GolemChainState } from '../../../adapters/chain/readGolems.ts'
import type { ChainPhaseState, ChainSpendState, GolemChainService, GolemView, PermissionHealthService } from '../deps.ts'

export type ChainGolemStateOptions = {
  client: PublicClient
  deployment: BardoDeployment
  /** Reads the profile when the registry did not attach it. */
  store: Pick<GolemStore, 'getGolem'>
  /** The newest redemption's time (unix s), e.g. from the indexer; failures fall back to the store. */
  lastRedemptionAt?: (golem: GolemView) => Promise<bigint | undefined>
  /** Told when the lastRedemptionAt source failed (the answer still comes, from the store). */
  onUnexpectedError?: (error: unknown) => void
}

type Observed = GolemChainState & { timestamp: bigint; blockNumber: bigint }

/** The same facts the tick decides from (core/lifecycle/permissionFacts.ts). */
export { permissionFactsOf }

export class ChainGolemState implements PermissionHealthService, GolemChainService {
  readonly #o: ChainGolemStateOptions

  constructor(options: ChainGolemStateOptions) {
    this.#o = options
  }

  async check(golem: GolemView): Promise<GolemHealth> {
    const profile = await this.#profile(golem)
    const [read, indexed] = await Promise.all([this.#read(golem, profile), this.#indexedRedemption(golem)])
    const hint = golem.lastRedeemedAt === undefined ? undefined : BigInt(golem.lastRedeemedAt)
    // The indexer may lag a block or two behind a redemption the store already saw, and vice versa.
    const last = indexed === undefined ? hint : hint === undefined || indexed > hint ? indexed : hint
    // The tick's own verdict (core/health/golemHealth.ts) from the same facts: the phase and the
    // lifecycle the last tick stored, the TTL the payments moved.
    return golemHealth({
      facts: permissionFactsOf(profile, read, last),
      lifecycle: golem.lifecycle,
      phase: phaseOfName(golem.phase),
      runwayEndsAt: profile.life.runwayEndsAt,
    })
  }

  async currentPhase(golem: GolemView): Promise<ChainPhaseState> {
    const read = await this.#read(golem, await this.#profile(golem))
    return {
      registered: read.registered,
      phase: phaseNames[read.phase],
      survivalScore: read.survivalScoreBps,
      blockNumber: read.blockNumber,
    }
  }

  async currentSpend(golem: GolemView): Promise<ChainSpendState> {
    const profile = await this.#profile(golem)
    const read = await this.#read(golem, profile)
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

  async #profile(golem: GolemView): Promise<GolemProfile> {
    if (golem.profile) return golem.profile
    const record = await this.#o.store.getGolem(golem.id)
    return parseGolemProfile(record?.profile ?? null)
  }

  async #read(golem: GolemView, profile: GolemProfile): Promise<Observed> {
    const r = profile.runway
    const batch = await readGolems(this.#o.client, this.#o.deployment, [
      {
        golemId: golem.id,
        golemKey: profile.golemKey,
        chainHashes: r.chainHashes,
        periodDelegationHash: r.periodDelegationHash,
        periodTerms: r.periodTerms,
      },
    ])
    return { ...batch.golems[0]!, timestamp: batch.timestamp, blockNumber: batch.blockNumber }
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
