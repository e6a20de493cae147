// A tick worker that dies mid-tick, for test/heartbeat/crash.test.ts and the soak: runs one Golem's tick
// against the test's anvil and dynalite and SIGKILLs itself right after broadcasting the step it is told
// to (`runway`, `phase`, `deregister`, a death return: `return-token`, `return-native`, or `any`: the
// first step it broadcasts): no receipt, no completeSlot, no events, no finally blocks. With `none` it
// never kills itself: the soak kills it from outside at a random moment.
// Input: BARDO_CRASH_ARGS (JSON, public data only) and BARDO_TEST_SESSION_KEY (the Golem's key, hex:
// a memory key lives in one process, so the test hands it over; test-only, read once, never printed).
import { hexToBytes, type Hex, type LocalAccount, type PublicClient } from 'viem'
import { SessionKey } from '../../core/custody/index.ts'
import { MemoryKey } from '../../core/custody/memoryKey.ts'
import type { BardoDeployment } from '../../core/deployment.ts'
import { parseGolemProfile } from '../../core/lifecycle/profile.ts'
import { DynamoStore } from '../../adapters/store/index.ts'
import { MemorySignerResolver } from '../../adapters/signers/memorySignerResolver.ts'
import { runTick } from '../../app/tick/runTick.ts'
import { devnetClients } from '../../local/devnet.ts'
import { documentClient, localDynamoClient } from '../../local/dynalite.ts'

export type CrashArgs = {
  rpcUrl: string
  chainId: number
  dynamoEndpoint: string
  tableName: string
  /** BardoDeployment as JSON (bigints as decimal strings). */
  deployment: unknown
  golemId: string
  invocationId: string
  crashAfter: 'runway' | 'phase' | 'deregister' | 'return-token' | 'return-native' | 'any' | 'none'
  leaseMs: number
  /** The tick's settings where the caller runs others than the defaults (the soak's). */
  confirmations?: number
  tickIntervalSeconds?: number
}

const args = JSON.parse(process.env.BARDO_CRASH_ARGS ?? 'null') as CrashArgs | null
const keyHex = process.env.BARDO_TEST_SESSION_KEY as Hex | undefined
delete process.env.BARDO_TEST_SESSION_KEY
if (!args || !keyHex) {
  process.stderr.write('crashWorker: BARDO_CRASH_ARGS and BARDO_TEST_SESSION_KEY must be set\n')
  process.exit(2)
}

const deployment = args.deployment as BardoDeployment
const clients = devnetClients(args.rpcUrl, args.chainId)
const store = new DynamoStore({ client: documentClient(localDynamoClient(args.dynamoEndpoint)), tableName: args.tableName })
const record = await store.getGolem(args.golemId)
if (!record) {
  process.stderr.write(`crashWorker: no Golem ${args.golemId}\n`)
  process.exit(2)
}
const profile = parseGolemProfile(record.profile)
if (profile.signer.kind !== 'memory') {
  process.stderr.write(`crashWorker: ${args.golemId} does not keep its key in memory\n`)
  process.exit(2)
}
const signers = new MemorySignerResolver(deployment)
const bytes = hexToBytes(keyHex)
const key = MemoryKey.fromBytes(bytes)
bytes.fill(0)
signers.hold(
  profile.signer.ref,
  SessionKey.fromMemoryKey(key, { expiresAt: Number(profile.runway.expiresAt), initialBudget: 0n, now: Number(profile.life.bornAt) }),
)

await runTick(
  {
    store,
    client: clients.publicClient as PublicClient,
    deployment,
    signers,
    operator: clients.operator.account as LocalAccount,
    invocationId: args.invocationId,
    leaseMs: args.leaseMs,
    vitalityParameters: { shockProbabilityPerDay: 0 },
    ...(args.confirmations === undefined ? {} : { confirmations: { [args.chainId]: args.confirmations } }),
    ...(args.tickIntervalSeconds === undefined ? {} : { tickIntervalSeconds: args.tickIntervalSeconds }),
    afterBroadcast: (step) => {
      if (step === args.crashAfter || args.crashAfter === 'any') process.kill(process.pid, 'SIGKILL')
    },
  },
  { golemId: args.golemId },
)
process.stdout.write(`crashWorker: the tick finished without reaching ${args.crashAfter}\n`)
process.exit(3)
