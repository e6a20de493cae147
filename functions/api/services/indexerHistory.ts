// History from the indexer (Ponder /v1 routes), asked for with the Golem's current key. The indexer
// answers for the whole Golem (its id across key rotations): phases, redemptions and spend of every key.
import type { GolemHistoryService } from '../deps.ts'
import type { IndexerClient } from '../indexerClient.ts'
import { IndexerUnavailableError } from '../errors.ts'

export function indexerHistory(client: IndexerClient): GolemHistoryService {
  return {
    phaseTransitions: (golem, page) => client.phaseTransitions(golem.address, page),
    redemptions: (golem, page) => client.redemptions(golem.address, page),
    spendByPeriod: (golem, page) => client.spendPeriods(golem.address, page),
  }
}

/** When no indexer is configured (a local run with BARDO_INDEXER=0): history answers 503, state still works. */
export const noIndexerHistory: GolemHistoryService = {
  phaseTransitions: () => Promise.reject(new IndexerUnavailableError('indexer: not configured')),
  redemptions: () => Promise.reject(new IndexerUnavailableError('indexer: not configured')),
  spendByPeriod: () => Promise.reject(new IndexerUnavailableError('indexer: not configured')),
}
