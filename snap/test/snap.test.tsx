// Every handler of the built Snap in the snaps-jest simulator: the cron job (alerts, token rotation,
// refusals), the home page and its "Revoke all", the insights and the origin-restricted RPC.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { installSnap } from '@metamask/snaps-jest'
import { Banner, Bold, Box, Button, Divider, Heading, Text } from '@metamask/snaps-sdk/jsx'
import { DelegationManager } from '@metamask/delegation-abis'
import { readFileSync } from 'node:fs'
import { encodeFunctionData, toHex, type Address, type Hex } from 'viem'
import { VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import { createBardoCaveatBuilder } from '../../core/caveats/caveat.ts'
import { DEPLOYMENT, ENV, GOLEM, LABELS, OWNER as DELEGATOR, USDC } from '../../test/support/caveats/fixtures.ts'
import { GOOD_SIGNATURE, OWNER, startFakeApi, tokenFor, type FakeApi } from './fakeApi.ts'

const PORTAL = 'http://localhost:3003'
const deployment = { chainId: 84532, environment: ENV, ...DEPLOYMENT, tokens: LABELS.tokens }
const NOW = 1_767_225_600

let api: FakeApi
beforeAll(async () => {
  api = await startFakeApi(deployment)
})
afterAll(async () => api.stop())

const golem = (over: Record<string, unknown> = {}) => ({
  id: 'atlas',
  name: 'Atlas',
  phase: 'Thriving',
  vitality: 0.98,
  lifecycle: 'alive',
  lastHeartbeatAt: NOW - 30,
  permission: {
    health: 'healthy',
    remaining_today: '8200000',
    days_remaining: 4,
    last_redemption_at: NOW - 600,
    total_remaining: '100000000',
  },
  ...over,
})

/** A Snap already paired with the fake API (its state as pairing leaves it). */
async function pairedSnap(extra: Record<string, unknown> = {}) {
  api.current = tokenFor(OWNER)
  return installSnap({ options: { state: { apiUrl: api.url, authToken: api.current, owner: OWNER, deployment, ...extra } as never } })
}

/**
 * The dialog the Snap has open now. A dialog opened from the home page (onUserInput) belongs to no
 * request, so it is read through a harmless request's getInterface, which waits for the open dialog.
 */
const openDialog = async (snap: Awaited<ReturnType<typeof installSnap>>) =>
  (await snap.request({ method: 'getGolemsStatus', origin: PORTAL }).getInterface()) as unknown as {
    type: string
    content: unknown
    ok(): Promise<void>
    cancel(): Promise<void>
  }

const status = async (snap: Awaited<ReturnType<typeof installSnap>>) =>
  ((await snap.request({ method: 'getGolemsStatus', origin: PORTAL })).response as { result: Record<string, unknown> }).result

describe('manifest', () => {
  it('asks for the home page, a 5-minute cron, network, dapp RPC, insights with origins, notifications, state and dialogs', () => {
    const manifest = JSON.parse(readFileSync(new URL('../snap.manifest.json', `file://${__filename}`), 'utf8'))
    expect(manifest.initialPermissions).toEqual({
      'endowment:page-home': {},
      'endowment:cronjob': { jobs: [{ expression: '*/5 * * * *', request: { method: 'heartbeat' } }] },
      'endowment:network-access': {},
      'endowment:rpc': { dapps: true, snaps: false },
      'endowment:transaction-insight': { allowTransactionOrigin: true },
      'endowment:signature-insight': { allowSignatureOrigin: true },
      snap_notify: {},
      snap_manageState: {},
      snap_dialog: {},
    })
  })
})

describe('onCronjob', () => {
  it('notifies (native and in-app) when a Golem enters Declining, once, and keeps the rotated token', async () => {
    const snap = await pairedSnap()
    api.golems = [golem({ phase: 'Declining', vitality: 0.2 })]
    const first = await snap.onCronjob({ method: 'heartbeat' })
    expect(first).toSendNotification('Atlas entered Declining', 'native')
    expect(first.notifications.map((n) => n.type).sort()).toEqual(['inApp', 'native'])
    const s = await status(snap)
    expect(s).toMatchObject({ paired: true, owner: OWNER, golems: [{ id: 'atlas', phase: 'Declining' }] })
    // The next cron authenticates with the rotated token and stays quiet: the condition is not new.
    const calls = api.statusCalls
    const second = await snap.onCronjob({ method: 'heartbeat' })
    expect(api.statusCalls).toBe(calls + 1)
    expect(second.notifications).toHaveLength(0)
    expect(await status(snap)).toMatchObject({ paired: true })
  })

  it('notifies on Terminal, critical and revoked permission, a missed heartbeat, a grant to renew, and death', async () => {
    const snap = await pairedSnap()
    api.golems = [
      golem({ id: 'echo', name: 'Echo', phase: 'Terminal', permission: { ...golem().permission, health: 'revoked' } }),
      golem({
        id: 'iris',
        name: 'Iris',
        phase: 'Conservation',
        lastHeartbeatAt: NOW - 600,
        permission: { ...golem().permission, health: 'critical', days_remaining: 0 },
        grant: { renewalNeeded: true, endsAt: NOW + 86_400 },
      }),
    ]
    const res = await snap.onCronjob({ method: 'heartbeat' })
    for (const m of [
      'Echo reached Terminal',
      'Echo: permission revoked',
      'Iris: permission critical',
      'Iris: heartbeat missed',
      'Iris: renew its grant',
    ])
      expect(res).toSendNotification(m, 'native')
    api.golems = [golem({ id: 'echo', name: 'Echo', phase: 'Terminal', lifecycle: 'dead' })]
    const death = await snap.onCronjob({ method: 'heartbeat' })
    expect(death).toSendNotification('Echo has died', 'native')
    expect(death.notifications.filter((n) => n.type === 'native')).toHaveLength(1)
  })

  describe('custody events', () => {
    const at = (NOW - 3_600) * 1000
    const rotationRequest = {
      eventId: 'RotationRenewalRequested:0x90f79bf6eb2c4f870365e785982e1f101e93b906',
      type: 'RotationRenewalRequested',
      at: at + 60_000,
      data: {
        oldAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        newAddress: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
        startAt: String(NOW + 86_400),
        grantEndsAt: String(NOW + 30 * 86_400),
        delegationHash: `0x${'12'.repeat(32)}`,
      },
    }
    const resetEvents = () => {
      api.events = {}
      api.eventsStatus = undefined
    }

    it('remembers the backlog on the first cron, notifies a new event once, and not again on the next cron', async () => {
      const snap = await pairedSnap()
      api.golems = [golem()]
      api.events = {
        atlas: [
          { eventId: 'DelegationGranted', type: 'DelegationGranted', at, data: {} },
          { eventId: 'p1-expiring', type: 'DelegationExpiringWarning', at: at + 1, data: { hoursRemaining: 20 } },
        ],
      }
      try {
        const first = await snap.onCronjob({ method: 'heartbeat' })
        expect(first.notifications).toHaveLength(0)
        api.events.atlas!.push(rotationRequest)
        const calls = api.eventCalls
        const second = await snap.onCronjob({ method: 'heartbeat' })
        // Read with the token the status call just handed over: the events route accepted it.
        expect(api.eventCalls).toBe(calls + 1)
        expect(second.notifications.filter((n) => n.type === 'native')).toHaveLength(1)
        expect(second).toSendNotification('Atlas: sign grant for new key', 'native')
        expect(second).toSendNotification(
          `Golem Atlas is moving to a new session key 0x90F7…b906, and only you can sign its grant. Open the Portal and sign the grant to the new key (from ${new Date((NOW + 86_400) * 1000).toISOString().slice(0, 10)} until ${new Date((NOW + 30 * 86_400) * 1000).toISOString().slice(0, 10)}). Until you do, it keeps its current key.`,
          'inApp',
        )
        const third = await snap.onCronjob({ method: 'heartbeat' })
        expect(third.notifications).toHaveLength(0)
      } finally {
        resetEvents()
      }
    })

    it('tells a halt, its lift by the operator, and a second halt, each once', async () => {
      const snap = await pairedSnap()
      api.golems = [golem()]
      api.events = { atlas: [{ eventId: 'DelegationGranted', type: 'DelegationGranted', at, data: {} }] }
      const halt = (n: number) => ({
        eventId: `HeartbeatAnomaly:${n}`,
        type: 'HeartbeatAnomaly',
        at: at + n * 60_000,
        data: { failures: 5, maxConsecutiveFailures: 5, reason: 'Error: signer unavailable' },
      })
      try {
        expect((await snap.onCronjob({ method: 'heartbeat' })).notifications).toHaveLength(0)
        api.events.atlas!.push(halt(1))
        expect(await snap.onCronjob({ method: 'heartbeat' })).toSendNotification('Atlas: halted after 5 failed ticks', 'native')
        api.events.atlas!.push({ eventId: 'HeartbeatResumed:2', type: 'HeartbeatResumed', at: at + 120_000, data: { failures: 5 } })
        const resumed = await snap.onCronjob({ method: 'heartbeat' })
        expect(resumed.notifications.filter((n) => n.type === 'native')).toHaveLength(1)
        expect(resumed).toSendNotification('Atlas: heartbeat resumed', 'native')
        api.events.atlas!.push(halt(3))
        expect(await snap.onCronjob({ method: 'heartbeat' })).toSendNotification('Atlas: halted after 5 failed ticks', 'native')
        expect((await snap.onCronjob({ method: 'heartbeat' })).notifications).toHaveLength(0)
      } finally {
        resetEvents()
      }
    })

    it('keeps the status alerts and the token when the events route fails, then reads events once it answers', async () => {
      const snap = await pairedSnap()
      api.golems = [golem({ phase: 'Declining', vitality: 0.2 })]
      api.eventsStatus = 503
      api.events = { atlas: [rotationRequest] }
      try {
        const failing = await snap.onCronjob({ method: 'heartbeat' })
        expect(failing).toSendNotification('Atlas entered Declining', 'native')
        expect(failing.notifications.filter((n) => n.type === 'native')).toHaveLength(1)
        expect(await status(snap)).toMatchObject({ paired: true, golems: [{ id: 'atlas', phase: 'Declining' }] })
        // The route answers again: its first read remembers what is there, the next one tells what is new.
        api.eventsStatus = undefined
        expect((await snap.onCronjob({ method: 'heartbeat' })).notifications).toHaveLength(0)
        api.events.atlas!.push({
          eventId: 'DeathProtocolStarted',
          type: 'DeathProtocolStarted',
          at: at + 120_000,
          data: { trigger: 'owner-revoked', vitality: 0.2 },
        })
        const dying = await snap.onCronjob({ method: 'heartbeat' })
        expect(dying).toSendNotification('Atlas is dying', 'native')
        expect(dying.notifications.filter((n) => n.type === 'native')).toHaveLength(1)
      } finally {
        resetEvents()
      }
    })
  })

  it('without a token: calls nothing and notifies nothing', async () => {
    const snap = await installSnap({ options: { state: { apiUrl: api.url } as never } })
    const calls = api.statusCalls
    const res = await snap.onCronjob({ method: 'heartbeat' })
    expect(res.notifications).toHaveLength(0)
    expect(api.statusCalls).toBe(calls)
  })

  it('with an expired (rotated) token: asks once to pair again and forgets the token', async () => {
    const snap = await pairedSnap()
    api.current = tokenFor(OWNER) // another client rotated it: the Snap's token is retired
    const res = await snap.onCronjob({ method: 'heartbeat' })
    expect(res).toSendNotification('Bardo: pair the Snap again', 'native')
    expect(await status(snap)).toMatchObject({ paired: false, authProblem: 'refused' })
    const again = await snap.onCronjob({ method: 'heartbeat' })
    expect(again.notifications).toHaveLength(0)
  })

  it('refuses a cron method it does not know', async () => {
    const snap = await pairedSnap()
    const res = await snap.onCronjob({ method: 'mine-bitcoin' })
    expect(res).toRespondWithError(expect.objectContaining({ code: -32601 }))
  })
})

describe('onHomePage', () => {
  it("shows each Golem's name, phase, vitality, permission health with amount and days left, and last heartbeat", async () => {
    const snap = await pairedSnap({
      lastFetchAt: NOW,
      golems: [
        golem(),
        golem({
          id: 'echo',
          name: 'Echo',
          phase: 'Conservation',
          vitality: 0.61,
          // The API's vital signs as of its answer a minute ago: the Snap counts down from them at its clock.
          vitals: {
            lifecycle: 'alive',
            phase: 'Conservation',
            vitality: 0.61,
            survivalScoreBps: 6100,
            livesSeconds: 310,
            endsBy: 'runway',
            runwayEndsAt: NOW + 250,
            grantEndsAt: NOW + 400,
            grantEndsInSeconds: 460,
            recovered: false,
          },
          lastHeartbeatAt: NOW - 480,
          permission: { ...golem().permission, health: 'low', remaining_today: '2100000', days_remaining: 1 },
        }),
      ],
    })
    const page = await snap.onHomePage()
    // The panel's optional parts (pairing banner, revocation banner) render as null when absent.
    expect(page.getInterface()).toRender(
      <Box>
        <Heading>BARDO GOLEM CONSOLE</Heading>
        {null}
        <Divider />
        {null}
        {[
          <Box>
            <Text>
              <Bold>◆ Atlas [THRIVING] 98 vitality</Bold>
            </Text>
            {null}
            <Text>Permission: healthy - 8.2 USDC/day remaining - 4d left</Text>
            <Text>Last heartbeat: just now</Text>
          </Box>,
          <Box>
            <Text>
              <Bold>◆ Echo [CONSERVATION] 61 vitality</Bold>
            </Text>
            <Text>Lives 4m10s more - grant ends in 6m40s</Text>
            <Text>Permission: low - 2.1 USDC/day remaining - 1d left</Text>
            <Text>Last heartbeat: 8m ago</Text>
          </Box>,
        ]}
        <Divider />
        {null}
        <Button name="revoke-all">Revoke all</Button>
      </Box>,
    )
  })

  it('"Revoke all" asks for confirmation; cancel changes nothing, confirm records the request for the Portal', async () => {
    const snap = await pairedSnap({ lastFetchAt: NOW, golems: [golem()] })
    const page = await snap.onHomePage()
    const cancelled = page.getInterface().clickElement('revoke-all')
    const dialog = await openDialog(snap)
    expect(dialog.type).toBe('confirmation')
    expect(JSON.stringify(dialog.content)).toContain('Revoke 1 Golem(s)?')
    await dialog.cancel()
    await cancelled
    expect(await status(snap)).toMatchObject({ revokeRequest: null })
    const confirmed = page.getInterface().clickElement('revoke-all')
    await (await openDialog(snap)).ok()
    await confirmed
    expect(await status(snap)).toMatchObject({ revokeRequest: { golems: ['atlas'] } })
    // The console hands the owner to the Portal's revocation of every Golem named, in one transaction.
    const after = JSON.stringify((await snap.onHomePage()).getInterface().content)
    expect(after).toContain(`Open the Portal: ${PORTAL}/?revoke=atlas`)
    expect(after).toContain('Sign the revocation of 1 Golem(s) in the Portal: one transaction from your account.')
  })

  it('asks to pair when the Snap has no token', async () => {
    const snap = await installSnap()
    const page = await snap.onHomePage()
    expect(page.getInterface()).toRender(
      <Box>
        <Heading>BARDO GOLEM CONSOLE</Heading>
        <Banner title="Not paired" severity="warning">
          <Text>Pair this Snap in the Bardo Portal to see your Golems.</Text>
          <Text>{`Open the Portal: ${PORTAL}`}</Text>
        </Banner>
        <Divider />
        <Text>No Golems yet.</Text>
        {[]}
        <Divider />
        {null}
        {null}
      </Box>,
    )
  })
})

const caveats = () =>
  createBardoCaveatBuilder(ENV, DEPLOYMENT)
    .addCaveat('erc20PeriodTransfer', { tokenAddress: USDC, periodAmount: 25_000_000n, periodDuration: 86_400, startDate: NOW })
    .addCaveat('golemPhase', { golem: GOLEM, startTime: BigInt(NOW), endTime: BigInt(NOW + 30 * 86_400) })
    .build()

const delegation = () => ({
  delegate: GOLEM,
  delegator: DELEGATOR,
  authority: `0x${'ff'.repeat(32)}` as Hex,
  caveats: caveats(),
  salt: 1n,
  signature: '0x' as Hex,
})

describe('onTransaction', () => {
  it("describes the owner's disableDelegation of a Bardo delegation in words", async () => {
    const snap = await pairedSnap()
    const data = encodeFunctionData({ abi: DelegationManager, functionName: 'disableDelegation', args: [delegation()] })
    const res = await snap.onTransaction({ to: ENV.DelegationManager, data, chainId: 'eip155:84532', origin: PORTAL })
    const ui = res.getInterface()
    expect(JSON.stringify(ui.content)).toContain('Revokes a Bardo delegation')
    expect(JSON.stringify(ui.content)).toContain('up to 25 USDC a day')
    expect((res.response as { result: { severity?: string } | null }).result?.severity).toBeUndefined()
  })

  it('flags an owner-only VitalityOracle call from a site that is not the Portal as critical', async () => {
    const snap = await pairedSnap()
    const data = encodeFunctionData({ abi: VitalityOracleAbi, functionName: 'resetPhase', args: [GOLEM as Address, 0, 'fed by owner'] })
    const res = await snap.onTransaction({ to: DEPLOYMENT.vitalityOracle, data, chainId: 'eip155:84532', origin: 'https://evil.example' })
    expect((res.response as { result: { severity?: string } }).result.severity).toBe('critical')
    expect(JSON.stringify(res.getInterface().content)).toContain('goes back to Thriving')
  })

  it('says nothing about a transaction that is not Bardo, or on another chain', async () => {
    const snap = await pairedSnap()
    // A null insight has no interface, which the simulator's helper reports as its own error.
    const none = /getInterface -- Expected a function/
    await expect(snap.onTransaction({ to: USDC, data: `0xa9059cbb${'00'.repeat(64)}`, chainId: 'eip155:84532' })).rejects.toThrow(none)
    const data = encodeFunctionData({ abi: DelegationManager, functionName: 'disableDelegation', args: [delegation()] })
    await expect(snap.onTransaction({ to: ENV.DelegationManager, data, chainId: 'eip155:1' })).rejects.toThrow(none)
  })
})

const typedData = () => {
  const d = delegation()
  return {
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ],
      Caveat: [
        { name: 'enforcer', type: 'address' },
        { name: 'terms', type: 'bytes' },
      ],
      Delegation: [
        { name: 'delegate', type: 'address' },
        { name: 'delegator', type: 'address' },
        { name: 'authority', type: 'bytes32' },
        { name: 'caveats', type: 'Caveat[]' },
        { name: 'salt', type: 'uint256' },
      ],
    },
    primaryType: 'Delegation',
    domain: { name: 'DelegationManager', version: '1', chainId: 84532, verifyingContract: ENV.DelegationManager },
    message: {
      delegate: d.delegate,
      delegator: d.delegator,
      authority: d.authority,
      caveats: d.caveats.map((c) => ({ enforcer: c.enforcer, terms: c.terms })),
      salt: '1',
    },
  }
}

describe('onSignature', () => {
  it('describes a Bardo Delegation from the Portal as a warning with its caveats in words', async () => {
    const snap = await pairedSnap()
    const res = await snap.onSignature({ signatureMethod: 'eth_signTypedData_v4', data: typedData(), origin: PORTAL, from: DELEGATOR })
    const text = JSON.stringify(res.getInterface().content)
    expect(text).toContain('Grants a Golem a Bardo delegation')
    expect(text).toContain('up to 25 USDC a day')
    expect(text).toContain('golemPhase')
    expect((res.response as { result: { severity?: string } }).result.severity).toBeUndefined()
  })

  it('flags an unknown origin asking to sign Bardo data as critical', async () => {
    const snap = await pairedSnap()
    const res = await snap.onSignature({
      signatureMethod: 'eth_signTypedData_v4',
      data: typedData(),
      origin: 'https://evil.example',
      from: DELEGATOR,
    })
    expect((res.response as { result: { severity?: string } }).result.severity).toBe('critical')
    expect(JSON.stringify(res.getInterface().content)).toContain('Unknown site asks for a Bardo delegation')
    const pairing = await snap.onSignature({
      signatureMethod: 'personal_sign',
      data: toHex('Bardo Snap pairing\n\nOwner: 0x..'),
      origin: 'https://evil.example',
      from: DELEGATOR,
    })
    expect((pairing.response as { result: { severity?: string } }).result.severity).toBe('critical')
  })

  it('says nothing about typed data that is not Bardo', async () => {
    const snap = await pairedSnap()
    const permit = {
      ...typedData(),
      primaryType: 'Permit',
      domain: { name: 'USD Coin', version: '2', chainId: 84532, verifyingContract: USDC },
    }
    await expect(
      snap.onSignature({ signatureMethod: 'eth_signTypedData_v4', data: permit, origin: 'https://evil.example', from: DELEGATOR }),
    ).rejects.toThrow(/getInterface -- Expected a function/)
  })
})

describe('onRpcRequest', () => {
  it('refuses every method from an origin off the allowlist', async () => {
    const snap = await pairedSnap()
    for (const method of ['getGolemsStatus', 'updateAuthToken', 'triggerRevoke']) {
      const res = await snap.request({ method, origin: 'https://evil.example', params: {} })
      expect(res).toRespondWithError(
        expect.objectContaining({ code: 4100, message: 'origin: https://evil.example is not the Bardo Portal' }),
      )
    }
  })

  it('pairs: the owner signs the challenge text and the token stays inside the Snap', async () => {
    const snap = await installSnap({ options: { state: { apiUrl: api.url } as never } })
    const started = await snap.request({ method: 'startPairing', origin: PORTAL, params: { owner: OWNER } })
    expect((started.response as { result: { message: string } }).result.message).toContain('Bardo Snap pairing')
    const bad = await snap.request({ method: 'completePairing', origin: PORTAL, params: { signature: '0x1234' } })
    expect(bad).toRespondWithError(expect.objectContaining({ message: expect.stringContaining('SNAP_PAIRING_BAD_SIGNATURE') }))
    expect(await status(snap)).toMatchObject({ paired: false })
    const done = await snap.request({ method: 'completePairing', origin: PORTAL, params: { signature: GOOD_SIGNATURE } })
    expect(done).toRespondWith({ paired: true, owner: OWNER })
    api.golems = [golem()]
    const cron = await snap.onCronjob({ method: 'heartbeat' })
    expect(cron.response).toMatchObject({ result: { kind: 'ok' } })
  })

  it('updateAuthToken stores a well-formed token and refuses anything else', async () => {
    const snap = await installSnap({ options: { state: { apiUrl: api.url } as never } })
    expect(await snap.request({ method: 'updateAuthToken', origin: PORTAL, params: { token: 'hunter2' } })).toRespondWithError(
      expect.objectContaining({ code: -32602 }),
    )
    api.current = tokenFor(OWNER)
    expect(await snap.request({ method: 'updateAuthToken', origin: PORTAL, params: { token: api.current } })).toRespondWith({
      updated: true,
    })
    api.golems = [golem()]
    expect((await snap.onCronjob({ method: 'heartbeat' })).response).toMatchObject({ result: { kind: 'ok' } })
  })

  it('showApprovalDialog and showPlanSummary return what the owner chose', async () => {
    const snap = await pairedSnap()
    const approval = snap.request({ method: 'showApprovalDialog', origin: PORTAL, params: { title: 'Feed Atlas', body: 'Top up 10 USDC' } })
    await ((await approval.getInterface()) as unknown as { ok(): Promise<void> }).ok()
    expect(await approval).toRespondWith({ approved: true })
    const plan = snap.request({
      method: 'showPlanSummary',
      origin: PORTAL,
      params: { plan: { golem: 'Atlas', dailyCapUsdc: '25', days: 30, caveats: ['phase-gated'] } },
    })
    const ui = (await plan.getInterface()) as unknown as { cancel(): Promise<void>; content: unknown }
    expect(JSON.stringify(ui.content)).toContain('25 USDC a day for 30 days (at most 750 USDC).')
    await ui.cancel()
    expect(await plan).toRespondWith({ approved: false })
    expect(
      await snap.request({ method: 'showPlanSummary', origin: PORTAL, params: { plan: { golem: 'Atlas', days: -1 } } }),
    ).toRespondWithError(expect.objectContaining({ code: -32602 }))
  })

  it("triggerRevoke confirms the named Golems and refuses ids that are not the owner's", async () => {
    const snap = await pairedSnap({ golems: [golem()] })
    const res = snap.request({ method: 'triggerRevoke', origin: PORTAL, params: { golems: ['atlas'] } })
    await ((await res.getInterface()) as unknown as { ok(): Promise<void> }).ok()
    expect(await res).toRespondWith({ approved: true, golems: ['atlas'] })
    expect(await snap.request({ method: 'triggerRevoke', origin: PORTAL, params: { golems: ['stranger'] } })).toRespondWithError(
      expect.objectContaining({ message: "golems: stranger not among this owner's Golems" }),
    )
  })
})
