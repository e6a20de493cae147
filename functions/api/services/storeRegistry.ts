// The Golem registry from core/store: a Golem by id is one GetItem; by session key or owner it is the
// store's lookup entries (findGolems: one Query plus a GetItem per Golem, dead Golems included), so a
// Golem is findable the moment it is provisioned and after it dies.
import { isAddress, type Address } from 'viem'
import { phaseNames } from '../../../core/lifecycle/phase.ts'
import { parseGolemProfile, type GolemProfile } from '../../../core/lifecycle/profile.ts'
import { computeVitality } from '../../../core/lifecycle/vitality.ts'
import { lastHeartbeatAt } from '../../../core/lifecycle/lastHeartbeat.ts'
import type { GolemRecord as StoredGolem, GolemStore } from '../../../core/store/index.ts'
import type { GolemView, GolemRegistry } from '../deps.ts'

export type StoreGolemRegistryOptions = {
  store: GolemStore
  /** Views kept for records read again at the same version (10,000 by default); the oldest is dropped first. */
  maxViews?: number
}

const STORE_ID = /^[A-Za-z0-9_.:-]{1,128}$/

/**
 * Vitality as the last tick saw it: the score it kept (what its console line printed), else, for a record
 * written before ticks kept it, computed at the tick's time from the stored profile (pure, no clock).
 */
function vitalityOf(record: StoredGolem, profile: GolemProfile | undefined): number {
  const kept = record.lastTick?.survivalScoreBps
  if (kept !== undefined) return kept / 10_000
  if (!profile) return 0
  const at = BigInt(Math.floor((record.lastTick?.at ?? record.createdAt) / 1000))
  try {
    return computeVitality({ now: at, ...profile.life, seed: record.golemId }).vitality
  } catch {
    return 0
  }
}

/**
 * The API's view of a stored Golem. The profile and the version ride along so that neither the health
 * check nor a paid credit reads it again. `shardWalkedAt`: when the heartbeat last walked the Golem's due
 * shard, so a Golem observed with nothing to do (not ticked) still shows a recent heartbeat.
 */
export function golemViewOf(record: StoredGolem, shardWalkedAt: number | null = null): GolemView {
  let profile: GolemProfile | undefined
  try {
    profile = record.profile === null ? undefined : parseGolemProfile(record.profile)
  } catch {
    profile = undefined
  }
  return {
    id: record.golemId,
    // The store keeps no display name; the id is the name users chose at provisioning.
    name: record.golemId,
    address: (profile?.golemKey ?? record.sessionKeyAddress) as Address,
    owner: record.owner,
    phase: record.phase ?? phaseNames[0],
    vitality: vitalityOf(record, profile),
    lifecycle: record.status,
    lastHeartbeatAt: heartbeatSeconds(record, shardWalkedAt),
    ...(profile ? { profile } : {}),
    version: record.version,
    // Only the last tick is kept: a later tick that did not redeem hides it (the indexer has the rest).
    ...(record.lastTick?.outcome === 'confirmed' && record.lastTick.txHash !== null
      ? { lastRedeemedAt: Math.floor(record.lastTick.at / 1000) }
      : {}),
  }
}

function heartbeatSeconds(record: StoredGolem, shardWalkedAt: number | null): number | null {
  const at = lastHeartbeatAt(record, shardWalkedAt)
  return at === null ? null : Math.floor(at / 1000)
}

export class StoreGolemRegistry implements GolemRegistry {
  readonly #store: GolemStore
  readonly #maxViews: number
  // A stored record never changes at a version (every write bumps it), so its view (the profile parsed,
  // the vitality hashed) is computed once per version, however often the Golem is asked for.
  readonly #views = new Map<string, GolemView>()

  constructor(options: StoreGolemRegistryOptions) {
    this.#store = options.store
    this.#maxViews = options.maxViews ?? 10_000
    if (!Number.isInteger(this.#maxViews) || this.#maxViews < 1) throw new RangeError('maxViews: must be a positive integer')
  }

  async getGolem(idOrAddress: string): Promise<GolemView | undefined> {
    const address = isAddress(idOrAddress, { strict: false })
    if (STORE_ID.test(idOrAddress)) {
      // The shard's last walk depends on the id alone, so it is read beside the record: one round trip, not
      // two. An address is rarely an id (it is looked up by key next): its walk is read once a record is found.
      const [byId, walked] = await Promise.all([
        this.#store.getGolem(idOrAddress),
        address ? undefined : this.#store.lastWalkOf(idOrAddress),
      ])
      if (byId) return this.#withHeartbeat(byId, walked)
    }
    if (!address) return undefined
    // The store answers for the current key only: a rotated-away key finds nothing.
    const [record] = await this.#store.findGolems({ sessionKey: idOrAddress.toLowerCase() as Address })
    return record ? this.#withHeartbeat(record) : undefined
  }

  async listGolemsByOwner(owner: Address): Promise<GolemView[]> {
    const records = await this.#store.findGolems({ owner: owner.toLowerCase() as Address })
    return Promise.all(records.map((r) => this.#withHeartbeat(r)))
  }

  /**
   * The view of the record's version, with the heartbeat's last walk of its shard (which moves without a
   * write to the record): `walked` when it was read already, else read now.
   */
  async #withHeartbeat(record: StoredGolem, walked?: number | null): Promise<GolemView> {
    const view = this.#viewOf(record)
    if (record.status === 'dead') return view
    const lastHeartbeat = heartbeatSeconds(record, walked === undefined ? await this.#store.lastWalkOf(record.golemId) : walked)
    return lastHeartbeat === view.lastHeartbeatAt ? view : { ...view, lastHeartbeatAt: lastHeartbeat }
  }

  #viewOf(record: StoredGolem): GolemView {
    const key = `${record.golemId}\u0000${record.version}`
    const cached = this.#views.get(key)
    if (cached) return cached
    const view = golemViewOf(record)
    this.#views.set(key, view)
    if (this.#views.size > this.#maxViews) this.#views.delete(this.#views.keys().next().value!)
    return view
  }
}
