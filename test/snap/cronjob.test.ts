// The Snap's cron job against the real local API: anvil with the MetaMask framework and the Bardo
// contracts, a demo Golem provisioned from examples/STRATEGY.md on a short runway, the heartbeat running
// real ticks every half day of chain time, and the API served over HTTP. The owner pairs by signing the challenge with the
// key that controls their smart account (checked on-chain through ERC-1271); then the Snap's cron code
// (snap/src/cronjob.ts, the function onCronjob runs) sees the Golem fall to Declining and die.
import { randomUUID } from 'node:crypto'
import type { LocalAccount, PublicClient } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import { serveApi, type RunningApi } from '../../functions/api/server.ts'
import { provisionGolem } from '../../local/provision.ts'
import { runCronjob } from '../../snap/src/cronjob.ts'
import type { Alert } from '../../snap/src/alerts.ts'
import { completePairing, requestPairingChallenge, type Fetch } from '../../snap/src/statusClient.ts'
import { emptyState, type SnapState } from '../../snap/src/types.ts'
import { startApiStack, STRATEGY, type ApiStack } from '../api/harness.ts'

/** Half a day of chain time per heartbeat: a six-day life passes through every phase in about a dozen beats. */
const BEAT_SECONDS = 43_200

let stack: ApiStack
let api: RunningApi
let chainMs = 0
/** What MetaMask's sandboxed Snap iframe sends: every request carries Origin: null. */
const snapFetch: Fetch = (input, init = {}) => fetch(input, { ...init, headers: { ...init.headers, origin: 'null' } })

beforeAll(async () => {
  stack = await startApiStack()
  chainMs = Number((await stack.devnet.publicClient.getBlock()).timestamp) * 1000
  // The API's clock is the chain's, as on a real chain where both follow the wall clock.
  api = await serveApi(
    stack.app({
      config: { allowedOrigins: ['null'], rateLimits: { public: 100_000, authenticated: 100_000 } },
      clock: { now: () => chainMs },
    }),
  )
})
afterAll(async () => {
  await api?.close()
  await stack?.stop()
})

describe('the Snap cron job on the real API', () => {
  it('pairs with a smart-account owner, then notifies when the demo Golem falls to Declining and when it dies', async () => {
    await provisionGolem({
      clients: stack.devnet,
      deployment: stack.devnet.deployment,
      store: stack.store,
      signers: stack.signers,
      owner: stack.owner,
      golemId: 'demo',
      strategy: STRATEGY.replace(/^runway_days: 30$/m, 'runway_days: 6'),
      runwayDays: 6,
    })
    let state: SnapState = emptyState()

    // Pairing: the challenge text signed by the owner's key, verified against the smart account.
    const pending = await requestPairingChallenge(snapFetch, api.url, stack.owner.address)
    expect(pending.message).toContain(`Owner: ${stack.owner.address}`)
    const paired = await completePairing(snapFetch, api.url, pending, await stack.owner.signer.signMessage({ message: pending.message }))
    expect(paired.owner).toBe(stack.owner.address)
    expect(paired.deployment).toMatchObject({ chainId: 31337, vitalityOracle: stack.devnet.deployment.vitalityOracle })
    state = { ...state, authToken: paired.token, owner: paired.owner, deployment: paired.deployment }
    // Single use: the same signed challenge is refused the second time.
    await expect(
      completePairing(snapFetch, api.url, pending, await stack.owner.signer.signMessage({ message: pending.message })),
    ).rejects.toMatchObject({ code: 'SNAP_PAIRING_REUSED' })

    const notified: { beat: number; alert: Alert }[] = []
    const phases: string[] = []
    const io = (beat: number) => ({
      apiUrl: api.url,
      fetch: snapFetch,
      getState: async () => state,
      setState: async (s: SnapState) => void (state = s),
      notify: async (alert: Alert) => void notified.push({ beat, alert }),
    })
    const invoker = new LocalInvoker(
      (id) => ({
        store: stack.store,
        client: stack.devnet.publicClient as PublicClient,
        deployment: stack.devnet.deployment,
        signers: stack.signers,
        operator: stack.devnet.operator.account as LocalAccount,
        invocationId: `${id}-${randomUUID()}`,
        vitalityParameters: { shockProbabilityPerDay: 0 },
      }),
      {
        onError: (_id, e) => {
          throw e
        },
      },
    )
    for (let beat = 0; beat < 20; beat++) {
      await runHeartbeat({
        store: stack.store,
        client: stack.devnet.publicClient as PublicClient,
        deployment: stack.devnet.deployment,
        invoker,
      })
      const outcome = await runCronjob(io(beat))
      expect(outcome.kind, `beat ${beat}`).toBe('ok')
      // The real API takes the Snap token on the custody events route.
      expect(outcome.kind === 'ok' && outcome.eventsUnavailable, `beat ${beat}`).toEqual([])
      const demo = state.golems.find((g) => g.id === 'demo')!
      phases.push(demo.lifecycle === 'dead' ? 'dead' : demo.phase)
      if (demo.lifecycle === 'dead') break
      chainMs = Number(await stack.devnet.increaseTime(BEAT_SECONDS)) * 1000
    }

    expect(phases).toContain('Declining')
    expect(phases.at(-1)).toBe('dead')
    const keys = notified.map((n) => n.alert.key)
    const declining = notified.find((n) => n.alert.key === 'demo:phase:Declining')
    expect(declining?.beat).toBe(phases.indexOf('Declining'))
    expect(declining?.alert.short).toMatch(/entered Declining$/)
    expect(notified.find((n) => n.alert.key === 'demo:dead')?.beat).toBe(phases.length - 1)
    // Life news comes once each: Declining, then death (which also covers the Terminal phase it died in).
    expect(keys.filter((k) => k.startsWith('demo:phase:') || k === 'demo:dead')).toEqual(['demo:phase:Declining', 'demo:dead'])
    // A condition is announced when it becomes true, never on two beats in a row while it holds.
    for (const n of notified) expect(notified.some((m) => m.alert.key === n.alert.key && m.beat === n.beat - 1)).toBe(false)
    // The token rotated on every call: the one from pairing is long retired, the stored one still works.
    expect(state.authToken).not.toBe(paired.token)
    const old = await snapFetch(`${api.url}/api/snap/status`, { headers: { authorization: `Bearer ${paired.token}` } })
    expect(old.status).toBe(401)
    expect(stack.unexpected).toEqual([])
  })
})
