// The heartbeat scheduler as a process of its own, for the local stack's supervisor: it reads what the
// runner wrote for it (BARDO_SCHEDULER_CONFIG: the chain, the deployment file, the store, the API, the
// demo Golem's plan; no secret) and its secrets from its environment (the stack keys' secret, the demo
// owner's key), serves the owner's rotation requests on 127.0.0.1 at the port the config names, prints
// `scheduler ready` and beats until SIGTERM. Killed at any moment, it is started again by the runner
// and carries on from the store.
import { createServer } from 'node:http'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { RotationRequestError } from '../app/tick/rotateOnRequest.ts'
import { connectChain, readDeploymentFile } from './chain.ts'
import { attachDevnet, devnetAccount, ownerAccountOf } from './devnet.ts'
import { LocalStackError } from './errors.ts'
import { LocalRotationError } from './rotationRequest.ts'
import { runScheduler, schedulerParts } from './scheduler.ts'
import { openStackStore, stackSigners } from './stackChild.ts'
import { parseSchedulerConfig, type SchedulerConfig } from './schedulerConfig.ts'

const configPath = process.env.BARDO_SCHEDULER_CONFIG
if (!configPath) throw new LocalStackError('LOCAL_CONFIG', 'BARDO_SCHEDULER_CONFIG: must name the scheduler config the runner wrote')
const config: SchedulerConfig = parseSchedulerConfig(readFileSync(configPath, 'utf8'))
const env = process.env

const deployment = config.deploymentFile ? readDeploymentFile(config.deploymentFile, config.chainId) : undefined
const devnet = config.devnet && deployment?.assets ? attachDevnet(config.rpcUrl, { ...deployment, assets: deployment.assets }) : undefined
const chain = devnet
  ? { publicClient: devnet.publicClient, deployment: devnet.deployment, operator: devnetAccount(1) }
  : await connectChain(env)
const store = await openStackStore(config.store, env)
const { keys, signers } = stackSigners(env, config.stateDir, chain.deployment)
const ownerKey = env.BARDO_OWNER_KEY as Hex | undefined
const demo =
  config.demo && ownerKey && devnet
    ? await (async () => {
        const signer = privateKeyToAccount(ownerKey)
        const smartAccount = await ownerAccountOf(devnet.publicClient, devnet.deployment, signer)
        if (smartAccount.address !== config.demo!.owner)
          throw new LocalStackError(
            'LOCAL_CONFIG',
            `BARDO_OWNER_KEY: controls ${smartAccount.address}, not the demo owner ${config.demo!.owner}`,
          )
        return { ...config.demo!, owner: { smartAccount, address: smartAccount.address, signer } }
      })()
    : undefined

let stop: () => void = () => undefined
const until = new Promise<void>((resolve) => (stop = resolve))
process.on('SIGTERM', () => stop())
process.on('SIGINT', () => stop())
// Runs in its own process group: when the runner is gone (even by SIGKILL), this process goes too.
const parent = process.ppid
setInterval(() => {
  if (process.ppid !== parent) stop()
}, 500).unref()

const deps = {
  store,
  publicClient: chain.publicClient,
  deployment: chain.deployment,
  usdc: config.usdc,
  operator: chain.operator,
  settlement: config.settlement,
  signers,
  keys,
  apiUrl: config.apiUrl,
  settings: config.settings,
  ...(devnet ? { devnet } : {}),
  ...(demo ? { demo } : {}),
  statePath: join(config.stateDir, 'scheduler-console.json'),
  log: (line: string) => process.stdout.write(`${line}\n`),
  until,
}
const parts = schedulerParts(deps)

// The owner's rotation requests, forwarded by the dashboard: run between two heartbeats of this process.
const control = createServer((req, res) => {
  const answer = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body))
  }
  if (req.method !== 'POST' || req.url !== '/rotate') return answer(404, { error: 'not found' })
  let raw = ''
  req.on('data', (d: Buffer) => (raw += d.toString()))
  req.on('end', () => {
    void (async () => {
      const rotation = parts.ownerRotation
      if (!rotation) return answer(501, { error: 'unavailable' })
      const { golemId, signature } = JSON.parse(raw) as { golemId: string; signature: Hex }
      try {
        answer(200, await rotation.rotate(golemId, signature))
      } catch (e) {
        if (e instanceof LocalRotationError) return answer(e.status, { error: 'rotation', field: e.field, rule: e.rule })
        if (e instanceof RotationRequestError) return answer(409, { error: 'request', code: e.code, field: e.field, rule: e.rule })
        answer(500, { error: 'failed', message: e instanceof Error ? e.message : String(e) })
      }
    })()
  })
})
await new Promise<void>((resolve) => control.listen(config.controlPort, '127.0.0.1', resolve))
process.stdout.write('scheduler ready\n')
await runScheduler(deps, parts)
control.close()
control.closeAllConnections()
process.exit(0)
