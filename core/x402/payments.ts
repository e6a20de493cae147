// The x402 extend/feed service as the API uses it: configuration, ledger, facilitator and clock
// bound once; one call per request. Framework-free: it returns an outcome, and the API turns it into
// an HTTP answer (functions/api/paymentResponse.ts).
import type { PaymentRequirements } from '@x402/core/types'
import type { PaymentFacilitator } from './facilitator.ts'
import type { PaymentLedger } from './ledger.ts'
import type { PaymentKind } from './pricing.ts'
import {
  checkPayment,
  processPayment,
  type CheckedPayment,
  type PayableGolem,
  type PaymentOutcome,
  type PaymentRefused,
} from './processPayment.ts'
import { requirementsFor, resolveX402Config, type ResolvedX402Config, type X402Config } from './requirements.ts'

export type X402PaymentsOptions = {
  config: X402Config
  ledger: PaymentLedger
  facilitator: PaymentFacilitator
  /** Unix ms; defaults to Date.now. */
  now?: () => number
  leaseMs?: number
  onUnexpectedError?: (error: unknown) => void
}

export type PayRequest = {
  header: string | null | undefined
  golemId: string
  golem: PayableGolem | undefined
}

export type X402Payments = {
  readonly config: ResolvedX402Config
  requirements(kind: PaymentKind, hours?: number): PaymentRequirements
  /** POST /api/v1/extend: at least `hours` (default 1) hours of runtime cost. */
  extend(request: PayRequest & { hours?: number }): Promise<PaymentOutcome>
  /** POST /api/v1/feed: at least the death reserve. */
  feed(request: PayRequest): Promise<PaymentOutcome>
  /** The checks `extend` and `feed` make before touching the ledger or the chain, alone. */
  check(kind: PaymentKind, request: PayRequest & { hours?: number }): CheckedPayment | PaymentRefused
}

export function createX402Payments(options: X402PaymentsOptions): X402Payments {
  const config = resolveX402Config(options.config)
  const now = options.now ?? Date.now
  const input = (kind: PaymentKind, request: PayRequest, hours = 1) => ({
    header: request.header,
    golemId: request.golemId,
    golem: request.golem,
    kind,
    requirements: requirementsFor(config, kind, hours),
    pricing: config.pricing,
    ledger: options.ledger,
    ledgerId: config.ledgerId,
    erc7710: config.erc7710,
    facilitator: options.facilitator,
    now: now(),
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
    ...(options.onUnexpectedError === undefined ? {} : { onUnexpectedError: options.onUnexpectedError }),
  })
  const pay = (kind: PaymentKind, request: PayRequest, hours = 1) => processPayment(input(kind, request, hours))
  return {
    config,
    requirements: (kind, hours = 1) => requirementsFor(config, kind, hours),
    extend: (request) => pay('extend', request, request.hours ?? 1),
    feed: (request) => pay('feed', request),
    check: (kind, request) => checkPayment(input(kind, request, kind === 'extend' ? (request.hours ?? 1) : 1)),
  }
}
