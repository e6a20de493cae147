// What the runner hands its heartbeat scheduler process (local/schedulerProcess.ts): a JSON file in the
// state directory (mode 0600) with the chain, the deployment file, the store, the API, the demo Golem's
// plan and the beat settings. No secret goes in it: the stack keys' secret and the demo owner's key reach
// the process in its environment. Amounts keep their bigint type through the file.
import { writeFileSync } from 'node:fs'
import type { Address, Hex } from 'viem'
import { RotationRequestError, type RotationRequestCode } from '../app/tick/rotateOnRequest.ts'
import type { PermissionPlan } from '../core/permissions/index.ts'
import { LocalStackError } from './errors.ts'
import { LocalRotationError, type LocalRotation } from './rotationRequest.ts'
import type { SchedulerSettings } from './scheduler.ts'

export type SchedulerConfig = {
  stateDir: string
  rpcUrl: string
  chainId: number
  /** True when the chain is this stack's own anvil. */
  devnet: boolean
  deploymentFile: string | undefined
  /** dynalite's endpoint and table; absent for a DynamoDB table from the environment (BARDO_TABLE_NAME). */
  store: { endpoint: string; tableName: string } | undefined
  usdc: Address
  settlement: Address
  apiUrl: string
  controlPort: number
  settings: SchedulerSettings
  demo: { owner: Address; plan: PermissionPlan; bornAt: bigint; sliceUsdc: bigint } | undefined
}

const BIG = '$bigint'

export function writeSchedulerConfig(path: string, config: SchedulerConfig): void {
  const json = JSON.stringify(config, (_k, v: unknown) => (typeof v === 'bigint' ? { [BIG]: v.toString() } : v), 2)
  writeFileSync(path, `${json}\n`, { mode: 0o600 })
}

export function parseSchedulerConfig(text: string): SchedulerConfig {
  try {
    return JSON.parse(text, (_k, v: unknown) =>
      v !== null && typeof v === 'object' && BIG in v ? BigInt((v as Record<string, string>)[BIG]!) : v,
    ) as SchedulerConfig
  } catch (error) {
    throw new LocalStackError('LOCAL_CONFIG', `BARDO_SCHEDULER_CONFIG: must be the JSON the runner wrote (${String(error)})`)
  }
}

/**
 * The dashboard's side of the owner's rotation: the request goes to the scheduler process, which runs it
 * between two of its heartbeats; its refusals come back as the same errors.
 */
export function forwardedRotation(controlUrl: string): Pick<LocalRotation, 'rotate'> {
  return {
    async rotate(golemId: string, signature: Hex) {
      const res = await fetch(`${controlUrl}/rotate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ golemId, signature }),
      }).catch((e: unknown) => {
        throw new LocalStackError(
          'SCHEDULER_UNAVAILABLE',
          `scheduler: did not answer (${e instanceof Error ? e.message : String(e)}); it restarts after a crash, try again`,
        )
      })
      const body = (await res.json()) as Record<string, string>
      if (res.ok) return body as unknown as Awaited<ReturnType<LocalRotation['rotate']>>
      if (body.error === 'rotation') throw new LocalRotationError(body.field!, body.rule!, res.status as 403 | 409)
      if (body.error === 'request') throw new RotationRequestError(body.code as RotationRequestCode, body.field!, body.rule!)
      throw new LocalStackError('SCHEDULER_FAILED', `scheduler: the rotation failed (${body.message ?? res.status})`)
    },
  }
}
