// The `npm start` stack survives a SIGKILL of its parts: with the demo Golem alive, dynalite, the
// indexer, the heartbeat scheduler and the API are each killed with SIGKILL at a seeded-random moment of its life, and the runner starts them
// again. The scheduler dies in the middle of a tick, and its successor takes the Golem over once the
// local lease lapses. At the end the Golem died of its own life's end, each runway period was redeemed at most once
// (the period enforcer allows one per period; a redemption sent twice would show as two transfers in one
// period), the owner's and the key's USDC add up to the owner's starting balance less what left for the
// world (x402 payments, swaps), the key holds nothing, and the indexer shows the death and every runway
// redemption the chain holds. The API is killed with a payer's x402 extend in flight (the stock
// @x402/fetch client, its paid request sent): the client asks again under the same payment identifier
// once the API is back, and the payment is settled once and credited once.
import { execFile, execFileSync } from 'node:child_process'
import { promisify } from 'node:util'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { wrapFetchWithPayment, x402Client } from '@x402/fetch'
import { registerExactEvmScheme } from '@x402/evm/exact/client'
import { appendPaymentIdentifierToExtensions, generatePaymentId } from '@x402/extensions/payment-identifier'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createPublicClient, erc20Abi, getAddress, http, type Address } from 'viem'
import { DynamoStore } from '../../adapters/store/index.ts'
import { parseGolemProfile } from '../../core/lifecycle/profile.ts'
import { documentClient, localDynamoClient } from '../../local/dynalite.ts'
import { alive, descendants, polite, root, startStack, waitFor, type StartedStack } from './stackProcess.ts'

const SEED = Number(process.env.BARDO_CRASH_SEED ?? 20261129)
const LIFE_SECONDS = 80

/** mulberry32: the kill moments come from the seed alone. */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The stack's process whose command line contains `marker`. */
function processOf(root: number, marker: string): number | undefined {
  for (const pid of descendants(root)) {
    try {
      const args = execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' })
      if (args.includes(marker)) return pid
    } catch {
      // gone meanwhile
    }
  }
  return undefined
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('npm start: SIGKILL of each part of the stack while the Golem lives', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'bardo-crash-'))
  let stack: StartedStack | undefined

  afterAll(() => {
    stack?.stop()
    rmSync(stateDir, { recursive: true, force: true })
  })

  it('the Golem lives on and dies once, each period redeemed once, the money adds up, the index catches up', async () => {
    stack = startStack({
      ...process.env,
      BARDO_STATE_DIR: stateDir,
      BARDO_LIFE_SECONDS: String(LIFE_SECONDS),
      BARDO_PERIOD_SECONDS: '5',
      BARDO_TICK_SECONDS: '1',
      BARDO_BEAT_MS: '250',
      DO_NOT_TRACK: '1',
      PONDER_TELEMETRY_DISABLED: 'true',
    })
    const s = stack
    const opts = { output: s.output, timeoutMs: 150_000, everyMs: 250 }
    await waitFor('ready', async () => (s.output().includes('ready in') ? true : undefined), opts)
    const readyAt = Date.now()
    const info = JSON.parse(readFileSync(join(stateDir, 'stack.json'), 'utf8')) as {
      rpcUrl: string
      usdc: Address
      apiUrl: string
      network: `${string}:${string}`
      store: { endpoint: string; tableName: string }
    }
    const key = getAddress(/'demo' key (0x[0-9a-fA-F]{40})/.exec(s.output())![1]!)
    const owner = getAddress(/owner smart account (0x[0-9a-fA-F]{40})/.exec(s.output())![1]!)
    const graphql = /GraphQL\s+(http:\/\/127\.0\.0\.1:\d+)\/graphql/.exec(s.output())![1]!

    // A payer with test USDC from the faucet, and the stock x402 client, as README "Paying locally" sets it up.
    const payer = privateKeyToAccount(generatePrivateKey())
    await promisify(execFile)('npm', ['run', '-s', 'faucet', '--', payer.address, '30', '0'], {
      cwd: root,
      env: { ...process.env, BARDO_STATE_DIR: stateDir },
    })
    const client = createPublicClient({ transport: http(info.rpcUrl) })
    const payerUsdc = () => client.readContract({ address: info.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [payer.address] })
    expect(await payerUsdc()).toBe(30_000_000n)
    const paymentId = generatePaymentId()
    const stockClient = () => {
      const x402 = new x402Client()
      registerExactEvmScheme(x402, { signer: payer })
      x402.setSpendControls({ allowedAssets: [{ network: info.network, asset: info.usdc, maxAmountPerPayment: '20000000' }] })
      x402.onBeforePaymentCreation(async ({ paymentRequired }) => {
        paymentRequired.extensions ??= {}
        appendPaymentIdentifierToExtensions(paymentRequired.extensions, paymentId)
      })
      return x402
    }
    const extendInit = {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ golemId: 'demo', hours: 1 }),
    }
    let firstAnswer: Promise<number | string> | undefined

    // The extend in flight at the API's kill: answered or lost, the client asks again under the same
    // payment identifier once the API is back; one settlement moved the payer's USDC, and the Golem's
    // payments hold it once.
    const extendAgain = async () => {
      expect(firstAnswer, 'the extend in flight at the kill').toBeDefined()
      await firstAnswer
      const retried = await polite(() => wrapFetchWithPayment(fetch, stockClient())(`${info.apiUrl}/api/v1/extend`, extendInit))
      expect(retried.status, `${await retried.clone().text()}\n--- output ---\n${s.output().slice(-2000)}`).toBe(200)
      expect(await payerUsdc()).toBe(29_500_000n)
      const settlements = await client.getContractEvents({
        address: info.usdc,
        abi: erc20Abi,
        eventName: 'Transfer',
        args: { from: payer.address },
        fromBlock: 0n,
      })
      expect(settlements).toHaveLength(1)
      // The Golem's credits (newest first): this payer's, once, naming the one settlement.
      const payments = (
        (await (await polite(() => fetch(`${info.apiUrl}/api/v1/golems/demo/payments?limit=100`))).json()) as {
          payments: { payer: string; txHash: string | null; kind: string; seconds: string }[]
        }
      ).payments.filter((p) => p.payer.toLowerCase() === payer.address.toLowerCase())
      expect(payments).toEqual([expect.objectContaining({ kind: 'extend', seconds: '3600', txHash: settlements[0]!.transactionHash })])
    }

    // The scheduler dies in the middle of a tick: the Golem's record says a tick holds its lease. The
    // restarted scheduler is the only one that ticks, so the Golem must not wait out a lease its dead
    // predecessor held.
    const store = new DynamoStore({ client: documentClient(localDynamoClient(info.store.endpoint)), tableName: info.store.tableName })
    const tickRunning = () =>
      waitFor(
        "a tick holding the Golem's lease",
        async () => ((await store.getGolem('demo'))?.lastTick?.outcome === 'running' ? true : undefined),
        {
          ...opts,
          timeoutMs: 30_000,
          everyMs: 5,
        },
      )

    const runwayRedemptions = () =>
      client.getContractEvents({ address: info.usdc, abi: erc20Abi, eventName: 'Transfer', args: { from: owner, to: key }, fromBlock: 0n })

    // Each part once, in its own window of the life, each after the one before is back: dynalite, then the
    // scheduler (whose restarted process must pick up the ticks, the strategy and the death from the
    // store), then the API with a paid extend in flight. The extend pays the runway past the life, so the
    // ticks redeem nothing after it: it waits for the runway's second redemption (below), and comes
    // early enough for the payer to ask again while the Golem lives. The indexer goes last:
    // Ponder's restart is the slowest (tens of seconds on a loaded machine), and nothing after it needs
    // the Golem alive.
    const rand = random(SEED)
    const restartedLine = {
      dynalite: 'dynalite restarted',
      indexer: 'indexer      restarted',
      scheduler: 'scheduler    restarted',
      api: 'API          restarted',
    }
    const plan = [
      { part: 'dynalite', marker: 'dynaliteServer.ts', atMs: 4_000 + Math.floor(rand() * 6_000) },
      { part: 'scheduler', marker: 'schedulerProcess.ts', atMs: 14_000 + Math.floor(rand() * 6_000) },
      { part: 'api', marker: 'apiProcess.ts', atMs: 24_000 + Math.floor(rand() * 8_000) },
      { part: 'indexer', marker: 'ponder', atMs: 36_000 + Math.floor(rand() * 6_000) },
    ] as const
    for (const { part, marker, atMs } of plan) {
      await sleep(Math.max(0, readyAt + atMs - Date.now()))
      expect(s.output(), `${part} killed while the Golem lives (seed ${SEED})`).not.toContain('the demo Golem died')
      const pid = processOf(s.child.pid!, marker)
      expect(pid, `${part}'s process`).toBeDefined()
      if (part === 'scheduler') await tickRunning()
      if (part === 'api') {
        // The runway must have been redeemed twice before the payer's extend pays it past the life. The
        // second redemption tops the key up after the Golem's own self-extension at Thriving -> Stable, about
        // 36 s into its life: later than the API's planned moment on a machine that keeps to the plan.
        await waitFor('a second runway redemption', async () => ((await runwayRedemptions()).length > 1 ? true : undefined), opts)
        // The paid request goes out, and the API is killed as it arrives: its answer may be lost.
        let paidSent: () => void = () => undefined
        const sent = new Promise<void>((r) => (paidSent = r))
        const killing: typeof fetch = (input, init) => {
          const paid = new Headers(input instanceof Request ? input.headers : init?.headers).has('payment-signature')
          const answer = fetch(input, init)
          if (paid) paidSent()
          return answer
        }
        firstAnswer = wrapFetchWithPayment(killing, stockClient())(`${info.apiUrl}/api/v1/extend`, extendInit).then(
          (r) => r.status,
          (e: unknown) => String(e),
        )
        await sent
      }
      process.kill(pid!, 'SIGKILL')
      await waitFor(
        `${part} restarted`,
        async () => {
          const next = processOf(s.child.pid!, marker)
          return next !== undefined && next !== pid && alive(next) && s.output().includes(restartedLine[part]) ? true : undefined
        },
        opts,
      )
      if (part === 'api') await extendAgain()
    }

    await waitFor('the death', async () => (s.output().includes('the demo Golem died') ? true : undefined), opts)
    expect(s.output()).toMatch(/the demo Golem died: DelegationExpiry/)
    expect(s.output().match(/the demo Golem died/g)).toHaveLength(1)

    // The store (through the restarted dynalite) still holds the Golem, dead.
    const record = await store.getGolem('demo')
    expect(record?.status).toBe('dead')
    const { runway } = parseGolemProfile(record!.profile ?? null)

    const transfers = async (args: { from?: Address; to?: Address }) =>
      client.getContractEvents({ address: info.usdc, abi: erc20Abi, eventName: 'Transfer', args, fromBlock: 0n })
    const runwayTransfers = await runwayRedemptions()
    expect(runwayTransfers.length).toBeGreaterThan(1)
    const periods = new Set<bigint>()
    for (const t of runwayTransfers) {
      // A period's redemption may be less than the allowance (the key's reserve is capped), never more.
      expect(t.args.value! > 0n && t.args.value! <= runway.periodAmount).toBe(true)
      const { timestamp } = await client.getBlock({ blockNumber: t.blockNumber })
      const period = (timestamp - runway.periodStart) / runway.periodDuration
      expect(periods.has(period), `period ${period} redeemed twice`).toBe(false)
      periods.add(period)
    }

    // Money: what the owner held before the first redemption equals what the owner and the key hold at
    // death plus what left the two of them for anyone else, less what came in from anyone else.
    const ours = new Set([owner, key])
    const all = [
      ...(await transfers({ from: owner })),
      ...(await transfers({ to: owner })),
      ...(await transfers({ from: key })),
      ...(await transfers({ to: key })),
    ]
    const seen = new Set<string>()
    const firstBlock = runwayTransfers[0]!.blockNumber
    let outflow = 0n
    for (const t of all) {
      const id = `${t.transactionHash}:${t.logIndex}`
      if (seen.has(id) || t.blockNumber < firstBlock) continue
      seen.add(id)
      const from = getAddress(t.args.from!)
      const to = getAddress(t.args.to!)
      if (ours.has(from) && !ours.has(to)) outflow += t.args.value!
      if (!ours.has(from) && ours.has(to)) outflow -= t.args.value!
    }
    const balance = (who: Address, blockNumber?: bigint) =>
      client.readContract({
        address: info.usdc,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [who],
        ...(blockNumber ? { blockNumber } : {}),
      })
    const ownerBefore = await balance(owner, firstBlock - 1n)
    const keyBefore = await balance(key, firstBlock - 1n)
    const [ownerAfter, keyAfter] = await Promise.all([balance(owner), balance(key)])
    expect(keyAfter).toBe(0n)
    expect(ownerAfter + keyAfter + outflow).toBe(ownerBefore + keyBefore)

    // The restarted indexer caught up: the death and every runway redemption are in its tables.
    const query = async <T>(q: string) => {
      const res = await fetch(`${graphql}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: q }),
      })
      return ((await res.json()) as { data?: T }).data
    }
    const k = key.toLowerCase()
    await waitFor(
      'the index caught up',
      async () => {
        const data = await query<{ golemDeaths: { items: unknown[] }; spendEvents: { items: unknown[] } }>(
          `{ golemDeaths(where: { firstKey: "${k}" }) { items { firstKey } } spendEvents(where: { source: "erc20-period", firstKey: "${k}" }, limit: 1000) { items { amount } } }`,
        )
        return data && data.golemDeaths.items.length === 1 && data.spendEvents.items.length === runwayTransfers.length ? true : undefined
      },
      opts,
    )
    for (const { part } of plan) expect(s.output(), part).toContain(restartedLine[part])
    // The restarted scheduler goes on printing the demo's ticks, and nothing failed for good.
    expect(s.output().slice(s.output().indexOf(restartedLine.scheduler))).toMatch(/\n\s*age\s/)
  }, 420_000)
})
