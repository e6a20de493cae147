// `npm start` as a new user runs it: a child process with fresh state and the default honest clock
// (chain time is the wall clock), the demo Golem's first redemption and phase change seen through the
// API, a payer with a fresh key funded by `npm run faucet` paying extend and feed with the stock x402
// client (@x402/fetch + @x402/evm, unmodified), the demo Golem dying by delegation expiry with clean
// beats, then SIGTERM to the npm process alone (what a process manager sends) and nothing left behind.
import { spawn, execFile, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPublicClient, erc20Abi, http, parseUnits, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client, x402HTTPClient } from '@x402/fetch'
import { registerExactEvmScheme } from '@x402/evm/exact/client'

import { LOCAL_READ_LIMIT } from '../../local/readKey.ts'
import { alive, descendants, polite, portOpen, root, waitFor as waitUntil } from './stackProcess.ts'

let output = ''

const waitFor = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 90_000) =>
  waitUntil(what, probe, { timeoutMs, output: () => output })
const get = (url: string) => polite(() => fetch(url))

type Health = {
  health: string
  reason: string
  runway_ends_at: number
  grant_ends_at: number
  renewal: { reason: string; days_left: number; seconds_left: number } | null
}

describe('npm start', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'bardo-start-'))
  let child: ChildProcess
  let api: string
  let stack: { rpcUrl: string; chainId: number; usdc: Address; apiUrl: string; network: `${string}:${string}` }
  const health = async () => (await (await get(`${api}/api/v1/golems/demo/permission-health`)).json()) as Health

  beforeAll(async () => {
    child = spawn('npm', ['start'], {
      cwd: root,
      // The demo's own life is short (75 s, 5 s periods); the chain clock is left alone (the default).
      // The phase change comes before the payments below: a paid TTL keeps the Golem Thriving.
      env: {
        ...process.env,
        BARDO_STATE_DIR: stateDir,
        BARDO_LIFE_SECONDS: '75',
        BARDO_PERIOD_SECONDS: '5',
        BARDO_TICK_SECONDS: '1',
        BARDO_BEAT_MS: '250',
        DO_NOT_TRACK: '1',
        PONDER_TELEMETRY_DISABLED: 'true',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, as under a process manager; only the npm process is signalled below.
      detached: true,
    })
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()))
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()))
    api = await waitFor('the API URL', async () => /API\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1], 120_000)
    await waitFor('ready', async () => (output.includes('ready in') ? true : undefined))
    stack = JSON.parse(readFileSync(join(stateDir, 'stack.json'), 'utf8')) as typeof stack
  }, 180_000)

  afterAll(() => {
    // Only if the last test did not get that far: never leave a stack running.
    if (child.exitCode === null && child.pid)
      for (const p of [child.pid, ...descendants(child.pid)]) if (alive(p)) process.kill(p, 'SIGKILL')
    rmSync(stateDir, { recursive: true, force: true })
  })

  it('keeps the chain clock with the wall clock and prints how to pay locally', async () => {
    expect(output).toContain('chain time follows the wall clock')
    expect(output).toMatch(/pay locally\s+npm run faucet -- <your address>/)
    expect(output).toMatch(/OpenAPI\s+http:\/\/127\.0\.0\.1:\d+\/openapi\.json/)
    expect(output).toMatch(/GraphQL\s+http:\/\/127\.0\.0\.1:\d+\/graphql/)
    const client = createPublicClient({ transport: http(stack.rpcUrl) })
    const block = await client.getBlock()
    // Within a minute of the wall clock (anvil mines a block per beat); an accelerated run is days off.
    expect(Math.abs(Number(block.timestamp) - Date.now() / 1000)).toBeLessThan(60)
  })

  it('runs the demo life: redemptions and a phase change through the API', async () => {
    const redemption = await waitFor('the first redemption', async () => {
      const res = await get(`${api}/api/v1/golems/demo/redemptions`)
      if (res.status !== 200) return undefined
      return ((await res.json()) as { redemptions: { txHash: Hex }[] }).redemptions[0]
    })
    expect(redemption.txHash).toMatch(/^0x[0-9a-f]{64}$/)
    const phase = await waitFor('the first phase change', async () => {
      const res = await get(`${api}/api/v1/golems/demo/phases`)
      if (res.status !== 200) return undefined
      const body = (await res.json()) as { transitions: { from: string; to: string; kind: string }[] }
      return body.transitions.find((t) => t.kind === 'transition' && t.from === 'Thriving')
    })
    expect(phase).toMatchObject({ from: 'Thriving', to: 'Stable' })
  }, 120_000)

  it("indexes the runway's spend with its USD value and lifts the read tier for the printed read key", async () => {
    // The indexer npm start runs records the runway's spend with its USD value (its own configuration,
    // toIndexerDeployment, includes the framework's period enforcers and the devnet's price feeds).
    const graphql = /GraphQL\s+(http:\/\/127\.0\.0\.1:\d+)\/graphql/.exec(output)![1]!
    const spend = await waitFor('a spend row with a USD value', async () => {
      const res = await fetch(`${graphql}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: '{ spendEvents(where: { source: "erc20-period" }, limit: 1) { items { source amount usd6 firstKey } } }',
        }),
      })
      const body = (await res.json()) as {
        data?: { spendEvents: { items: { source: string; amount: string; usd6: string | null; firstKey: string }[] } }
      }
      return body.data?.spendEvents.items[0]
    })
    expect(spend).toMatchObject({ source: 'erc20-period', usd6: spend.amount })
    // The strategy's approvals through the action path are indexed with the USD DailySpendLimit counted.
    const approval = await waitFor('an approval spend row', async () => {
      const res = await fetch(`${graphql}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ spendEvents(where: { source: "daily-spend-limit" }, limit: 1) { items { usd6 firstKey } } }' }),
      })
      const body = (await res.json()) as { data?: { spendEvents: { items: { usd6: string | null; firstKey: string }[] } } }
      return body.data?.spendEvents.items[0]
    })
    // One slice of the demo's strategy, as the console prints it at the start.
    const slice = /its strategy swaps ([\d.]+) USDC a tick/.exec(output)![1]!
    expect(approval).toMatchObject({ usd6: String(parseUnits(slice, 6)), firstKey: spend.firstKey })

    const readKey = /read key\s+(bardo_read_[A-Za-z0-9_-]+)/.exec(output)?.[1]
    expect(readKey).toBeDefined()
    const keyed = await fetch(`${api}/api/v1/golems/demo/permission-health`, { headers: { 'x-api-key': readKey! } })
    expect(keyed.status).toBe(200)
    expect(keyed.headers.get('x-ratelimit-limit')).toBe(String(LOCAL_READ_LIMIT))
  }, 120_000)

  it('pays extend and feed with the stock x402 client from a fresh address funded by the faucet', async () => {
    const payer = privateKeyToAccount(generatePrivateKey())
    await promisify(execFile)('npm', ['run', '-s', 'faucet', '--', payer.address, '30', '0'], {
      cwd: root,
      env: { ...process.env, BARDO_STATE_DIR: stateDir },
    })
    const chain = createPublicClient({ transport: http(stack.rpcUrl) })
    const balance = () => chain.readContract({ address: stack.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [payer.address] })
    expect(await balance()).toBe(30_000_000n)

    // The stock client, as README "Paying locally" sets it up: the local TestUSDC is not one of the
    // client's default assets, so it is allowed explicitly, with a per-payment cap.
    const client = new x402Client()
    registerExactEvmScheme(client, { signer: payer })
    client.setSpendControls({ allowedAssets: [{ network: stack.network, asset: stack.usdc, maxAmountPerPayment: '20000000' }] })
    const sent: Headers[] = []
    const recording: typeof fetch = (input, init) => {
      sent.push(new Headers(input instanceof Request ? input.headers : init?.headers))
      return fetch(input, init)
    }
    const pay = wrapFetchWithPayment(recording, client)
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      polite(() =>
        fetch(`${api}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }),
      )

    const before = await health()
    const extend = await polite(() =>
      pay(`${api}/api/v1/extend`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ golemId: 'demo', hours: 1 }),
      }),
    )
    expect(extend.status).toBe(200)
    const extended = (await extend.json()) as {
      credit: { kind: string; seconds: string; amount: string }
      profile: { applied: boolean; runwayEndsAt: string }
    }
    expect(extended.credit).toEqual({ kind: 'extend', seconds: '3600', amount: '500000' })
    expect(decodePaymentResponseHeader(extend.headers.get('payment-response')!)).toMatchObject({
      success: true,
      network: stack.network,
      payer: payer.address,
    })
    expect(await balance()).toBe(29_500_000n)
    const afterExtend = await health()
    expect(afterExtend.runway_ends_at).toBe(before.runway_ends_at + 3600)
    expect(Number(extended.profile.runwayEndsAt)).toBe(afterExtend.runway_ends_at)
    // The paid TTL now outlives the owner's grant: the Golem asks its owner to renew.
    expect(afterExtend.grant_ends_at).toBe(before.grant_ends_at)
    expect(afterExtend.renewal).toMatchObject({ reason: 'grant-ends-before-runway' })

    // Replay: the very same PAYMENT-SIGNATURE again is refused, nothing moves.
    const signature = sent.map((h) => h.get('payment-signature')).find((v): v is string => Boolean(v))!
    const replay = await post('/api/v1/extend', { golemId: 'demo', hours: 1 }, { 'payment-signature': signature })
    expect(replay.status).toBe(409)
    expect(await replay.json()).toMatchObject({ code: 'PAYMENT_REPLAYED' })

    // Underpayment and expiry: the stock client signs what it is told; the server refuses both.
    const httpClient = new x402HTTPClient(client)
    const offer = await post('/api/v1/extend', { golemId: 'demo', hours: 2 })
    expect(offer.status).toBe(402)
    const required = httpClient.getPaymentRequiredResponse((n) => offer.headers.get(n), await offer.json())
    const signed = async (change: (a: (typeof required.accepts)[number]) => (typeof required.accepts)[number]) =>
      httpClient.encodePaymentSignatureHeader(await httpClient.createPaymentPayload({ ...required, accepts: required.accepts.map(change) }))
    const under = await post('/api/v1/extend', { golemId: 'demo', hours: 2 }, await signed((a) => ({ ...a, amount: '999999' })))
    expect(under.status).toBe(402)
    expect(await under.json()).toMatchObject({ code: 'PAYMENT_UNDERPAID' })
    const expiring = await post('/api/v1/extend', { golemId: 'demo', hours: 2 }, await signed((a) => ({ ...a, maxTimeoutSeconds: 1 })))
    expect(expiring.status).toBe(402)
    expect(await expiring.json()).toMatchObject({ code: 'PAYMENT_EXPIRED' })
    expect(await balance()).toBe(29_500_000n)
    expect((await health()).runway_ends_at).toBe(afterExtend.runway_ends_at)

    // Feed: the death reserve (12 USDC) buys 24 hours of runway at $0.50/h.
    const feed = await polite(() =>
      pay(`${api}/api/v1/feed`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ golemId: 'demo' }),
      }),
    )
    expect(feed.status).toBe(200)
    expect(((await feed.json()) as { credit: { kind: string } }).credit).toMatchObject({ kind: 'feed' })
    expect(await balance()).toBe(17_500_000n)
    expect((await health()).runway_ends_at).toBe(afterExtend.runway_ends_at + 86_400)
  }, 120_000)

  it('dies by delegation expiry when the grant ends unrenewed, every beat clean', async () => {
    const dead = await waitFor('the death', async () => ((await health()).health === 'dead' ? true : undefined), 120_000)
    expect(dead).toBe(true)
    expect(output).toMatch(/the demo Golem died: DelegationExpiry/)
    expect(output).not.toMatch(/tick demo failed|heartbeat failed/)
    // The money loop as the console shows it: runtime bought with its runway, the rest sent home.
    expect(output).toMatch(/bought \d+h of its own runtime for [\d.]+ USDC \(x402 POST \/api\/v1\/extend, signed by its session key\)/)
    expect(output).toMatch(/returned [\d.]+ USDC to the owner/)
    // The strategy lived through custody's action path: swaps carried out, the one past the slippage bound refused in words.
    expect(output).not.toMatch(/strategy beat failed/)
    // Its slice fits its life: every swap within the slippage bound is accepted from birth to death.
    const slice = /its strategy swaps ([\d.]+) USDC a tick/.exec(output)![1]!.replace('.', '\\.')
    expect(output).toMatch(
      new RegExp(`strategy: swap ${slice} USDC -> WETH \\(min out 50 bps under the feed\\): executed in 0x[0-9a-f]{64}`),
    )
    expect(output).toMatch(
      new RegExp(
        `strategy: swap ${slice} USDC -> WETH \\(min out 300 bps under the feed\\): refused by custody before sending: maxSlippage`,
      ),
    )
    expect(output.split('\n').filter((l) => /refused by/.test(l) && !/maxSlippage/.test(l))).toEqual([])
  }, 150_000)

  it('stops every process and frees every port on SIGTERM to the npm process alone', async () => {
    const started = [child.pid!, ...descendants(child.pid!)]
    expect(started.length).toBeGreaterThan(2)
    const urls = [
      api,
      stack.rpcUrl,
      /dynalite (http:\/\/127\.0\.0\.1:\d+)/.exec(output)![1]!,
      /GraphQL\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(output)![1]!,
    ]
    for (const url of urls) expect(await portOpen(url)).toBe(true)
    process.kill(child.pid!, 'SIGTERM')
    await waitFor('every started process to exit', async () => (started.every((p) => !alive(p)) ? true : undefined), 30_000)
    for (const url of urls) expect(await portOpen(url)).toBe(false)
    // Processes can be gone while their last lines are still in the pipe: read to the end of the stream.
    if (!child.stdout!.readableEnded)
      await Promise.race([new Promise((r) => child.stdout!.once('end', r)), new Promise((r) => setTimeout(r, 10_000))])
    expect(output).toContain('stopped')
    // Nothing of the run is left in the state directory: no index of a chain that is gone, no stack file, no key.
    expect(readdirSync(stateDir)).toEqual([])
  }, 60_000)
})
