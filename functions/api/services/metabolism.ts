// The Golem's metabolism from its journal in the store (core/lifecycle/metabolism.ts): the tick writes
// RunwayRedeemed, GasRedeemed and RuntimeBought events once each, and this folds them on read, so the
// view can never drift from the journal it summarises.
import { metabolismOf, type JournalEntry, type Metabolism } from '../../../core/lifecycle/metabolism.ts'
import { parseGolemProfile } from '../../../core/lifecycle/profile.ts'
import type { Store } from '../../../core/store/index.ts'
import type { GolemView, MetabolismService } from '../deps.ts'
import { ApiError } from '../errors.ts'

export class StoreMetabolism implements MetabolismService {
  constructor(
    private readonly o: {
      store: Pick<Store, 'listEvents' | 'getGolem'>
      runtimeCostPerHour: bigint
      /** Chain time, unix seconds. */
      now: () => Promise<bigint>
      /** Events read per store call, and store calls per request at most. */
      scan?: { pageSize: number; maxPages: number }
    },
  ) {}

  async metabolism(golem: GolemView): Promise<Metabolism> {
    const record = golem.profile ? undefined : await this.o.store.getGolem(golem.id)
    const profile = golem.profile ?? (record?.profile ? parseGolemProfile(record.profile) : undefined)
    if (!profile) throw new ApiError('GOLEM_NOT_FOUND', `id: ${golem.id} has no custody profile`, { golemId: golem.id })
    const { pageSize, maxPages } = this.o.scan ?? { pageSize: 500, maxPages: 40 }
    const entries: JournalEntry[] = []
    let cursor: string | null = null
    for (let read = 0; read < maxPages; read++) {
      const page = await this.o.store.listEvents({ golemId: golem.id, limit: pageSize, cursor, order: 'asc' })
      entries.push(...page.events)
      cursor = page.cursor
      if (cursor === null) break
    }
    return metabolismOf(entries, {
      now: await this.o.now(),
      ttl: profile.life.runwayEndsAt,
      grantEndsAt: profile.runway.expiresAt,
      runtimeCostPerHour: this.o.runtimeCostPerHour,
      periodSeconds: profile.runway.periodDuration,
    })
  }
}
