// One conformance suite for every Store implementation: the same calls, the same answers.
import { budgetSuite } from './budget.ts'
import { councilSuite } from './council.ts'
import type { Backend } from './fixtures.ts'
import { golemSuite } from './golems.ts'
import { logSuite } from './log.ts'
import { paymentIdSuite } from './paymentIds.ts'
import { paymentSuite } from './payments.ts'
import { poolKeySuite } from './poolKeys.ts'
import { counterSuite, historySuite, nonceSuite } from './records.ts'
import { slotSuite } from './slots.ts'

export type { Backend } from './fixtures.ts'

export function storeConformance(backend: Backend): void {
  golemSuite(backend)
  slotSuite(backend)
  budgetSuite(backend)
  paymentSuite(backend)
  paymentIdSuite(backend)
  nonceSuite(backend)
  counterSuite(backend)
  historySuite(backend)
  logSuite(backend)
  poolKeySuite(backend)
  councilSuite(backend)
}
