// Runs one tick in a worker process (crashWorker.ts) that is SIGKILLed mid-tick: by itself right after
// broadcasting the step it is told to, or from here after `killAfterMs` (a random moment: mid-request,
// between store writes, anywhere). The Golem's key is handed to the worker only, never printed.
import { spawn } from 'node:child_process'
import type { Hex } from 'viem'
import type { CrashArgs } from './crashWorker.ts'
import type { HeartbeatEnv } from './harness.ts'

export type CrashExit = { code: number | null; signal: NodeJS.Signals | null; output: string }

export function crashingTick(args: CrashArgs, keyHex: Hex, options: { killAfterMs?: number } = {}): Promise<CrashExit> {
  const worker = new URL('./crashWorker.ts', import.meta.url).pathname
  const child = spawn(process.execPath, ['--import', 'tsx', worker], {
    env: { ...process.env, BARDO_CRASH_ARGS: JSON.stringify(args), BARDO_TEST_SESSION_KEY: keyHex },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr.on('data', (d: Buffer) => (output += d.toString()))
  const timer = options.killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.killAfterMs)
  return new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, output })
    }),
  )
}

/** The deployment as the worker reads it from JSON (bigints as decimal strings). */
const deploymentJson = (deployment: unknown): unknown =>
  JSON.parse(JSON.stringify(deployment, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)))

/** The worker's arguments for one Golem's tick on a test environment's chain and store. */
export function crashArgsOn(
  env: Pick<HeartbeatEnv, 'devnet' | 'dynalite' | 'tableName'>,
  tick: Omit<CrashArgs, 'rpcUrl' | 'chainId' | 'dynamoEndpoint' | 'tableName' | 'deployment'>,
): CrashArgs {
  return {
    rpcUrl: env.devnet.rpcUrl,
    chainId: env.devnet.deployment.chainId,
    dynamoEndpoint: env.dynalite.endpoint,
    tableName: env.tableName,
    deployment: deploymentJson(env.devnet.deployment),
    ...tick,
  }
}
