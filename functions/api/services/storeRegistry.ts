// The Golem registry from core/store: a Golem by id is one GetItem. The store has no index by
// address or owner (one table, no GSI), so those lookups go through a directory built by walking the
// due list, rebuilt at most once per `directoryTtlMs` whatever the traffic. Fine for hundreds of
// Golems; a store-side owner/address index is the fix beyond that (see docs/api.md).
import { isAddress, type Address } from 'viem'
import { phaseNames } from '../../../core/lifecycle/phase.ts'
import { parseGolemProfile, type GolemProfile } from '../../../core/lifecycle/profile.ts'
import { computeVitality } from '../../../core/lifecycle/vitality.ts'
import type { GolemRecord as StoredGolem, GolemStore } from '../../../core/store/index.ts'
import type { GolemRecord, GolemRegistry } from '../deps.ts'

export type StoreGolemRegistryOptions = {
  store: GolemStore
  /** Unix ms; the directory's age is measured with it. */
  now: () => number
  /** How long the address/owner directory is reused. Default 60 s. */
  directoryTtlMs?: number
}

type Directory = { byAddress: Map<string, string>; byOwner: Map<string, string[]> }

const STORE_ID = /^[A-Za-z0-9_.:-]{1,128}$/
const PAGE = 1000

/** Vitality as the last tick saw it: computed at the tick's time from the stored profile (pure, no clock). */
function vitalityOf(record: StoredGolem, profile: GolemProfile | undefined): number {
  if (!profile) return 0
  const at = BigInt(Math.floor((record.lastTick?.at ?? record.createdAt) / 1000))
  try {
    return computeVitality({ now: at, ...profile.life, seed: record.golemId }).vitality
  } catch {
    return 0
  }
}

/** The API's view of a stored Golem. The profile rides along so the health check need not read it again. */
export function golemRecordOf(record: StoredGolem): GolemRecord {
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
    lastHeartbeatAt: record.lastTick === null ? null : Math.floor(record.lastTick.at / 1000),
    ...(profile ? { profile } : {}),
    // Only the last tick is kept: a later tick that did not redeem hides it (the indexer has the rest).
    ...(record.lastTick?.outcome === 'confirmed' && record.lastTick.txHash !== null ? { lastRedeemedAt: Math.floor(record.lastTick.at / 1000) } : {}),
  }
}

export class StoreGolemRegistry implements GolemRegistry {
  readonly #store: GolemStore
  readonly #now: () => number
  readonly #ttlMs: number
  #directory: { promise: Promise<Directory>; startedAt: number } | undefined

  constructor(options: StoreGolemRegistryOptions) {
    this.#store = options.store
    this.#now = options.now
    this.#ttlMs = options.directoryTtlMs ?? 60_000
  }

  async getGolem(idOrAddress: string): Promise<GolemRecord | undefined> {
    if (STORE_ID.test(idOrAddress)) {
      const byId = await this.#store.getGolem(idOrAddress)
      if (byId) return golemRecordOf(byId)
    }
    if (!isAddress(idOrAddress, { strict: false })) return undefined
    const id = (await this.#currentDirectory()).byAddress.get(idOrAddress.toLowerCase())
    if (id === undefined) return undefined
    const record = await this.#store.getGolem(id)
    // The key may have rotated since the directory was built: answer only for the current key.
    return record && record.sessionKeyAddress.toLowerCase() === idOrAddress.toLowerCase() ? golemRecordOf(record) : undefined
  }

  async listGolemsByOwner(owner: Address): Promise<GolemRecord[]> {
    const ids = (await this.#currentDirectory()).byOwner.get(owner.toLowerCase()) ?? []
    const records = await Promise.all(ids.map((id) => this.#store.getGolem(id)))
    return records.filter((r): r is StoredGolem => r !== null && r.owner.toLowerCase() === owner.toLowerCase()).map(golemRecordOf)
  }

  /** Drops the cached directory (tests; or after provisioning a Golem in-process). */
  invalidate(): void {
    this.#directory = undefined
  }

  #currentDirectory(): Promise<Directory> {
    const now = this.#now()
    const cached = this.#directory
    if (cached && now - cached.startedAt < this.#ttlMs) return cached.promise
    // One build at a time; concurrent callers share it. A failed build is not cached.
    const promise = this.#build()
    const entry = { promise, startedAt: now }
    this.#directory = entry
    promise.catch(() => {
      if (this.#directory === entry) this.#directory = undefined
    })
    return promise
  }

  async #build(): Promise<Directory> {
    const byAddress = new Map<string, string>()
    const byOwner = new Map<string, string[]>()
    let cursor: string | null = null
    do {
      // Every Golem that is not dead has a due entry; "due by the end of time" lists them all.
      const page = await this.#store.listDueGolems({ now: Number.MAX_SAFE_INTEGER, limit: PAGE, cursor })
      const records = await Promise.all(page.golems.map((g) => this.#store.getGolem(g.golemId)))
      for (const r of records) {
        if (!r) continue
        byAddress.set(r.sessionKeyAddress.toLowerCase(), r.golemId)
        const list = byOwner.get(r.owner.toLowerCase()) ?? []
        list.push(r.golemId)
        byOwner.set(r.owner.toLowerCase(), list)
      }
      cursor = page.cursor
    } while (cursor !== null)
    return { byAddress, byOwner }
  }
}
