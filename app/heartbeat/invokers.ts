// Ticks run in this process (local stack, tests), through the same payload the deployed heartbeat sends
// the tick function (functions/heartbeat/lambdaInvoker.ts), so a tick sees the same thing either way.
import { DEFAULT_ROTATION_POLICY } from '../../core/custody/rotation.ts'
import type { TickNeedParameters } from '../../core/lifecycle/tickNeed.ts'
import type { TickDeps, TickResult } from '../tick/types.ts'
import { runTick } from '../tick/runTick.ts'
import type { TickInvoker, TickRequest } from './handOver.ts'
import { decodeTickPayload, encodeTickPayload } from './tickPayload.ts'
import { Limiter } from '../concurrency.ts'

/**
 * Runs ticks in this process, a few at a time across every hand-over in flight (walkers hand over
 * several batches at once); errors are reported, never thrown past the heartbeat.
 */
export class LocalInvoker implements TickInvoker {
  readonly results: TickResult[] = []
  readonly #limiter: Limiter
  constructor(
    private readonly deps: (requestId: string) => TickDeps,
    private readonly options: {
      concurrency?: number
      onResult?: (r: TickResult) => void
      onError?: (golemId: string, e: unknown) => void
    } = {},
  ) {
    this.#limiter = new Limiter(options.concurrency ?? 4)
  }

  /** Its ticks' configuration, so a walk in this process hands over exactly the Golems they would act on. */
  tickNeedParameters(): TickNeedParameters {
    return tickNeedParametersOf(this.deps('tick-need'))
  }

  async invoke(requests: readonly TickRequest[]): Promise<void> {
    // Round-trip through the wire format so local runs exercise exactly what Lambda receives.
    const decoded = decodeTickPayload(encodeTickPayload(requests))
    await Promise.all(
      decoded.map((request) =>
        this.#limiter.run(async () => {
          try {
            const result = await runTick(
              this.deps(`local-${request.golemId}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`),
              request,
            )
            this.results.push(result)
            this.options.onResult?.(result)
          } catch (error) {
            this.options.onError?.(request.golemId, error)
          }
        }),
      ),
    )
  }
}

/** What a tick with these dependencies acts on beyond the chain and the record: its beat, vitality, payments, rotation. */
export function tickNeedParametersOf(deps: TickDeps): TickNeedParameters {
  const extension = deps.selfExtension
  return {
    beatSeconds: BigInt(deps.tickIntervalSeconds ?? 60),
    ...(deps.vitalityParameters ? { vitalityParameters: deps.vitalityParameters } : {}),
    ...(extension
      ? {
          selfExtension: {
            runtimeCostPerHour: extension.runtimeCostPerHour,
            ...(extension.marginSeconds === undefined ? {} : { marginSeconds: extension.marginSeconds }),
          },
        }
      : {}),
    ...(deps.rotation ? { rotationMaxAgeSeconds: DEFAULT_ROTATION_POLICY.maxAgeSeconds } : {}),
  }
}
