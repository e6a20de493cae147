// The council API on anvil, for a council stored as formed: Clade-authenticated members propose and sign
// over HTTP, the signature that completes 2 of 3 executes the proposal once through the real EntryPoint
// and DelegationManager, and every refused request (unsigned, replayed, expired, non-member, beyond the
// bounds, a signature the chain would refuse, a field out of range) writes nothing. Proposals are shown
// to the council's owner and members only; the dashboard's read key sees them without call data.
// (test/api/councilFormation.test.ts forms a council the owner's way, through the draft and the wallet.)
import { parseSignature, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { InMemoryStore } from '../../adapters/store/memoryStore.ts'
import { cladeChallengeTypedData, type CladeChallenge } from '../../core/clade/challenge.ts'
import { deviceConfirmMessage, normalizeUserCode, POLL_INTERVAL_SECONDS } from '../../core/auth/deviceCode.ts'
import { highS, withV } from '../support/council/signatures.ts'
import { hashApiKey } from '../../core/ratelimit/tiers.ts'
import { hashDelegation } from '@metamask/smart-accounts-kit/utils'
import { toCouncilJson, type CouncilStore } from '../../core/council/index.ts'
import { GolemSigner } from '../../core/custody/golemSigner.ts'
import { fromDigestSigner } from '../../core/custody/rawSigner.ts'
import { createApp, type ApiApp } from '../../functions/api/app.ts'
import { testApiDeps } from '../../functions/api/testing.ts'
import type { CouncilProposalView } from '../../app/council/councilService.ts'
import { Councils } from '../../app/council/councils.ts'
import { startDevnet, type Devnet } from '../../local/devnet.ts'
import { chainNow, newGolem, transferCall, USD, USDC, usdcBalance } from '../chain/harness.ts'
import { fixtureCustody, setupCouncil, type CouncilFixture } from '../chain/councilHarness.ts'

const operator = '0x00000000000000000000000000000000000000A1'
const readKey = `bardo_read_${'r'.repeat(24)}`
let devnet: Devnet
let f: CouncilFixture
let app: ApiApp
let deps: ReturnType<typeof testApiDeps>
let outsider: PrivateKeyAccount
let writes: number
const tokens = new Map<string, string>()

/** Counts every write the council makes to its store: a refused request must leave it at zero. */
function countingWrites(store: CouncilStore): CouncilStore {
  const count =
    <A extends unknown[], R>(fn: (...a: A) => Promise<R>) =>
    (...a: A) => {
      writes += 1
      return fn(...a)
    }
  return {
    createCouncilProposal: count(store.createCouncilProposal.bind(store)),
    addCouncilSignature: count(store.addCouncilSignature.bind(store)),
    claimCouncilExecution: count(store.claimCouncilExecution.bind(store)),
    finishCouncilExecution: count(store.finishCouncilExecution.bind(store)),
    reclaimCouncilExecution: count(store.reclaimCouncilExecution.bind(store)),
    noteCouncilExecution: count(store.noteCouncilExecution.bind(store)),
    createCouncil: count(store.createCouncil.bind(store)),
    getCouncil: store.getCouncil.bind(store),
    listCouncilsByOwner: store.listCouncilsByOwner.bind(store),
    listCouncilsOfGolem: store.listCouncilsOfGolem.bind(store),
    getCouncilProposal: store.getCouncilProposal.bind(store),
    listCouncilProposals: store.listCouncilProposals.bind(store),
    listCouncilSignatures: store.listCouncilSignatures.bind(store),
  }
}

beforeAll(async () => {
  devnet = await startDevnet()
  f = await setupCouncil(devnet)
  // A sibling of the same operator, registered and alive, that holds no seat.
  outsider = await newGolem(devnet)
  const operators = Object.fromEntries([...f.golems, outsider].map((g) => [g.address, operator]))
  // The fixture's council as the owner's formation stores it; its seats' custody is the fixture's.
  const store = new InMemoryStore()
  const usdc = devnet.deployment.assets.usdc
  const now = await chainNow(devnet)
  await store.createCouncil({
    council: f.config.council,
    owner: f.owner.address,
    chainId: devnet.chain.id,
    members: f.members,
    threshold: 2,
    salt: '0x',
    scope: toCouncilJson({
      targets: [usdc],
      selectors: ['0xa9059cbb'],
      receivers: [{ startIndex: 4, receiver: f.treasury }],
      maxValue: 0n,
      dailyLimitUsd: USD(1_000),
      maxPriceAge: 86_400,
      feeds: [{ token: usdc, decimals: 6, feed: devnet.deployment.assets.usdcUsdFeed }],
      startsAt: now,
      endsAt: now + 30n * 86_400n,
    }),
    delegation: toCouncilJson(f.delegation),
    delegationHash: hashDelegation(f.delegation),
    formedAt: Date.now(),
  })
  const councils = new Councils({
    store: countingWrites(store),
    golems: store,
    publicClient: devnet.publicClient,
    deployment: devnet.deployment,
    submitter: devnet.deployer,
    clockMs: () => Date.now(),
    custody: fixtureCustody(f),
  })
  deps = testApiDeps({
    operators,
    config: {
      chainId: devnet.chain.id,
      clade: { hmacSecret: new Uint8Array(32).fill(0x42), self: f.golems[0]!.address },
      readApiKeyHashes: [hashApiKey(readKey)],
    },
    // The device flow checks the owner's signature on the chain (its smart account answers ERC-1271).
    overrides: { councils, ownerSignatures: { verifyMessage: (p) => devnet.publicClient.verifyMessage(p) } },
  })
  app = createApp(deps)
}, 120_000)

afterAll(async () => devnet?.stop())

let ipCount = 0
/** A fresh CladeChallenge signed by `who` (the handshake headers). */
async function handshake(who: PrivateKeyAccount): Promise<Record<string, string>> {
  ipCount += 1
  const ip = { 'x-forwarded-for': `198.51.100.${ipCount % 250}` }
  const res = await app.request(`/clade/v1/challenge?caller=${who.address}`, { headers: ip })
  const { challenge } = (await res.json()) as { challenge: CladeChallenge }
  const signature = await who.signTypedData(cladeChallengeTypedData(challenge, devnet.chain.id))
  return { ...ip, authorization: `CladeChallenge ${signature}`, 'x-clade-challenge': JSON.stringify(challenge) }
}

/** A session token for `who`, from one handshake. */
async function auth(who: PrivateKeyAccount): Promise<Record<string, string>> {
  let token = tokens.get(who.address)
  if (!token) {
    const res = await app.request('/council/v1/proposals/0x00000000000000000000000000000000', { headers: await handshake(who) })
    token = res.headers.get('x-clade-token')!
    tokens.set(who.address, token)
  }
  return { authorization: `CladeToken ${token}` }
}

const post = (path: string, headers: Record<string, string>, body: unknown) =>
  app.request(path, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) })

async function propose(who: PrivateKeyAccount, to: Address, amount: bigint, deadline?: number): Promise<Response> {
  const action = transferCall(devnet.deployment.assets.usdc, to, amount)
  return post('/council/v1/proposals', await auth(who), {
    council: f.config.council,
    action: { target: action.target, value: '0', callData: action.callData },
    deadline: deadline ?? Number(await chainNow(devnet)) + 3_600,
  })
}

const seats = new Map<Address, GolemSigner>()
/**
 * The member's custody signer, over the same digest path a KMS key takes: it sits on this council and
 * co-signs only a proposal that checks out.
 */
function seatOf(who: PrivateKeyAccount): GolemSigner {
  let seat = seats.get(who.address)
  if (!seat) {
    const signer = fromDigestSigner({
      kind: 'memory',
      address: who.address,
      signDigest: async (hash) => parseSignature(await who.sign({ hash })),
    })
    const policy = { chainId: devnet.chain.id, delegationManager: f.config.delegationManager, oracles: {}, councils: [f.config.council] }
    seat = new GolemSigner({ signer, policy })
    seats.set(who.address, seat)
  }
  return seat
}

/**
 * What a member does with a proposal it received: its custody signer checks that the proposal's user
 * operation is the action it is shown (checkCouncilProposal and the stated action), then signs it.
 */
async function signatureOf(who: PrivateKeyAccount, view: CouncilProposalView): Promise<Hex> {
  const shown = view.action as unknown as { target: Address; value: string; callData: Hex }
  return seatOf(who).signCouncilProposal({ proposal: view.proposal, action: { ...shown, value: BigInt(shown.value) } })
}

async function sign(who: PrivateKeyAccount, view: CouncilProposalView, headers?: Record<string, string>) {
  return post(`/council/v1/proposals/${view.id}/signatures`, headers ?? (await auth(who)), { signature: await signatureOf(who, view) })
}

const body = async <T = Record<string, unknown>>(res: Response) => (await res.json()) as T

/**
 * Signs `who` in through the device flow, as `bardo login` does (start, the wallet's confirmation
 * signature, the poll): the access token any wallet can get for itself.
 */
async function signIn(who: { address: Address; signMessage: (m: { message: string }) => Promise<Hex> }): Promise<string> {
  const start = await body<{ device_code: string; user_code: string }>(await post('/api/v1/auth/device', {}, {}))
  const decision = 'approve' as const
  const message = deviceConfirmMessage({
    userCode: normalizeUserCode(start.user_code),
    owner: who.address,
    chainId: devnet.chain.id,
    decision,
  })
  const confirmed = await post(
    '/api/v1/auth/device/confirm',
    {},
    {
      userCode: start.user_code,
      owner: who.address,
      decision,
      signature: await who.signMessage({ message }),
    },
  )
  expect(confirmed.status).toBe(200)
  deps.clock.advance(POLL_INTERVAL_SECONDS * 1000)
  const token = await post(
    '/api/v1/auth/token',
    {},
    { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: start.device_code },
  )
  expect(token.status).toBe(200)
  return (await body<{ access_token: string }>(token)).access_token
}

describe('council API', () => {
  it('proposes, signs and executes 2 of 3 exactly once; a duplicate or a third signature changes nothing', async () => {
    const [a, b, c] = f.golems as [PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount]
    const before = await usdcBalance(devnet, f.treasury)
    const created = await propose(a, f.treasury, USDC(40))
    expect(created.status).toBe(201)
    const view = await body<CouncilProposalView>(created)
    expect(view).toMatchObject({ status: 'open', threshold: 2, counted: 0, proposer: a.address, action: { value: '0' } })

    const first = await sign(a, view)
    expect(first.status).toBe(200)
    expect(await body(first)).toMatchObject({ status: 'accepted', proposal: { status: 'open', counted: 1 } })
    writes = 0
    expect(await body(await sign(a, view))).toMatchObject({ status: 'duplicate', proposal: { status: 'open', counted: 1 } })
    expect(writes).toBe(0)

    const second = await body<{ status: string; proposal: CouncilProposalView }>(await sign(b, view))
    expect(second).toMatchObject({ status: 'accepted', proposal: { status: 'executed', counted: 2 } })
    expect((second.proposal.execution as { txHash: string }).txHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await usdcBalance(devnet, f.treasury)).toBe(before + USDC(40))

    writes = 0
    const third = await sign(c, view)
    expect(third.status).toBe(409)
    expect(await body(third)).toMatchObject({ code: 'COUNCIL_PROPOSAL_CLOSED' })
    expect(writes).toBe(0)
    const shown = await body<CouncilProposalView>(await app.request(`/council/v1/proposals/${view.id}`, { headers: await auth(c) }))
    expect(shown).toMatchObject({ status: 'executed', counted: 2 })
    expect(shown.signatures.map((s) => s.signer)).toEqual([a.address, b.address])
    expect(await usdcBalance(devnet, f.treasury)).toBe(before + USDC(40))
  })

  it('executes once when the last two signatures arrive together', async () => {
    const [a, b, c] = f.golems as [PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount]
    const before = await usdcBalance(devnet, f.treasury)
    const view = await body<CouncilProposalView>(await propose(a, f.treasury, USDC(7)))
    await sign(a, view)
    const [rb, rc] = await Promise.all([sign(b, view), sign(c, view)])
    expect([rb.status, rc.status].sort()).toEqual([200, 200])
    const shown = await body<CouncilProposalView>(await app.request(`/council/v1/proposals/${view.id}`, { headers: await auth(a) }))
    expect(shown).toMatchObject({ status: 'executed', counted: 3 })
    expect(await usdcBalance(devnet, f.treasury)).toBe(before + USDC(7))
  })

  it('refuses an unsigned request, and a signature that is not the caller’s, writing nothing', async () => {
    const [a, b] = f.golems as [PrivateKeyAccount, PrivateKeyAccount]
    const view = await body<CouncilProposalView>(await propose(a, f.treasury, USDC(1)))
    writes = 0
    const none = await post('/council/v1/proposals', {}, { action: { target: f.treasury, callData: '0x' }, deadline: 1 })
    expect(none.status).toBe(401)
    expect(await body(none)).toMatchObject({ code: 'CLADE_AUTH_REQUIRED' })
    const noSignature = await post(`/council/v1/proposals/${view.id}/signatures`, await auth(a), {})
    expect(noSignature.status).toBe(400)
    expect(await body(noSignature)).toMatchObject({ code: 'VALIDATION_FAILED' })
    // B's signature sent under A's session.
    const foreign = await post(`/council/v1/proposals/${view.id}/signatures`, await auth(a), { signature: await signatureOf(b, view) })
    expect(foreign.status).toBe(401)
    expect(await body(foreign)).toMatchObject({ code: 'COUNCIL_BAD_SIGNATURE' })
    expect(writes).toBe(0)
  })

  it('refuses a replayed request (the same signed challenge twice), writing nothing the second time', async () => {
    const [a, b] = f.golems as [PrivateKeyAccount, PrivateKeyAccount]
    const view = await body<CouncilProposalView>(await propose(a, f.treasury, USDC(1)))
    const headers = await handshake(b)
    expect((await sign(b, view, headers)).status).toBe(200)
    writes = 0
    const replay = await sign(b, view, headers)
    expect(replay.status).toBe(401)
    expect(await body(replay)).toMatchObject({ code: 'CLADE_NONCE_REUSED' })
    expect(writes).toBe(0)
  })

  it('refuses a non-member sibling, to propose and to sign, writing nothing', async () => {
    const [a] = f.golems as [PrivateKeyAccount]
    const view = await body<CouncilProposalView>(await propose(a, f.treasury, USDC(1)))
    writes = 0
    const proposed = await propose(outsider, f.treasury, USDC(1))
    expect(proposed.status).toBe(403)
    expect(await body(proposed)).toMatchObject({ code: 'COUNCIL_NOT_MEMBER' })
    const signed = await sign(outsider, view)
    expect(signed.status).toBe(403)
    expect(await body(signed)).toMatchObject({ code: 'COUNCIL_NOT_MEMBER' })
    expect(writes).toBe(0)
  })

  it('refuses a member whose seat does not count now (its Golem is dying), writing nothing', async () => {
    const [a, , c] = f.golems as [PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount]
    const view = await body<CouncilProposalView>(await propose(a, f.treasury, USDC(1)))
    f.custody.set('golem-2', { lifecycle: 'dying', currentKey: c.address })
    try {
      writes = 0
      const proposed = await propose(c, f.treasury, USDC(1))
      expect(proposed.status).toBe(403)
      expect(await body(proposed)).toMatchObject({ code: 'COUNCIL_MEMBER_NOT_COUNTING', message: expect.stringContaining('is dying') })
      const signed = await sign(c, view)
      expect(signed.status).toBe(403)
      expect(await body(signed)).toMatchObject({ code: 'COUNCIL_MEMBER_NOT_COUNTING' })
      expect(writes).toBe(0)
    } finally {
      f.custody.set('golem-2', { lifecycle: 'alive', currentKey: c.address })
    }
  })

  it('refuses an action beyond the council’s bounds by its caveat’s name, storing nothing', async () => {
    const [a] = f.golems as [PrivateKeyAccount]
    writes = 0
    const res = await propose(a, privateKeyToAccount(generatePrivateKey()).address, USDC(1))
    expect(res.status).toBe(422)
    expect(await body(res)).toMatchObject({
      code: 'COUNCIL_ACTION_REFUSED',
      details: { refusal: { name: 'Error', args: ['AllowedCalldataEnforcer:invalid-calldata'] } },
    })
    expect(writes).toBe(0)
  })

  it('refuses a deadline already past, and a signature after the deadline, writing nothing', async () => {
    const [a, b] = f.golems as [PrivateKeyAccount, PrivateKeyAccount]
    const now = Number(await chainNow(devnet))
    writes = 0
    const past = await propose(a, f.treasury, USDC(1), now - 1)
    expect(past.status).toBe(400)
    expect(await body(past)).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('deadline must be after now') })
    expect(writes).toBe(0)
    const view = await body<CouncilProposalView>(await propose(a, f.treasury, USDC(1), now + 60))
    await sign(a, view)
    await devnet.increaseTime(120)
    writes = 0
    const late = await sign(b, view)
    expect(late.status).toBe(410)
    expect(await body(late)).toMatchObject({ code: 'COUNCIL_PROPOSAL_EXPIRED' })
    expect(writes).toBe(0)
    const shown = await body<CouncilProposalView>(await app.request(`/council/v1/proposals/${view.id}`, { headers: await auth(a) }))
    expect(shown).toMatchObject({ status: 'expired', counted: 1 })
  })

  it('lists every proposal newest first, a page at a time, with its state, k of n and execution, to a read key only', async () => {
    const anonymous = await app.request(`/council/v1/proposals?council=${f.config.council}`)
    expect(anonymous.status).toBe(401)
    expect(await body(anonymous)).toMatchObject({ code: 'AUTH_REQUIRED' })
    // A member's Clade session is not a reader's credential.
    expect((await app.request(`/council/v1/proposals?council=${f.config.council}`, { headers: await auth(f.golems[0]!) })).status).toBe(400)
    const headers = { 'x-api-key': readKey }
    type Page = { proposals: CouncilProposalView[]; next: string | null }
    const all: CouncilProposalView[] = []
    let next: string | null = null
    do {
      const res = await app.request(
        `/council/v1/proposals?council=${f.config.council}&limit=3${next ? `&cursor=${encodeURIComponent(next)}` : ''}`,
        { headers },
      )
      expect(res.status).toBe(200)
      const page = await body<Page>(res)
      expect(page.proposals.length).toBeLessThanOrEqual(3)
      all.push(...page.proposals)
      next = page.next
    } while (next !== null)
    // Every proposal the suite made (the refused ones were never stored), newest first.
    expect(all.length).toBeGreaterThanOrEqual(6)
    expect(new Set(all.map((p) => p.id)).size).toBe(all.length)
    const first = all.at(-1)!
    expect(first).toMatchObject({ status: 'executed', counted: 2, threshold: 2 })
    expect((first.execution as { txHash: string }).txHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(all[0]).toMatchObject({ status: 'expired', counted: 1 })
    const badCursor = await app.request(`/council/v1/proposals?council=${f.config.council}&cursor=nope`, { headers })
    expect(badCursor.status).toBe(400)
    expect(await body(badCursor)).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('cursor') })
  })

  it('refuses a high-s copy of a member’s own signature, and a v that is not 27 or 28, naming the rule and storing nothing', async () => {
    const [a, , c] = f.golems as [PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount]
    const before = await usdcBalance(devnet, f.treasury)
    const view = await body<CouncilProposalView>(await propose(a, f.treasury, USDC(2)))
    const good = await signatureOf(c, view)
    writes = 0
    const veto = await post(`/council/v1/proposals/${view.id}/signatures`, await auth(c), { signature: highS(good) })
    expect(veto.status).toBe(400)
    expect(await body(veto)).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(/^signature: s must be at most n\/2 \(low-s\)/),
      details: { issues: [{ location: 'json', path: 'signature' }] },
    })
    for (const v of [0, 1]) {
      const res = await post(`/council/v1/proposals/${view.id}/signatures`, await auth(c), { signature: withV(good, v) })
      expect(res.status).toBe(400)
      expect(await body(res)).toMatchObject({ message: `signature: v must be 27 or 28 as the chain's ECDSA recovery requires, got ${v}` })
    }
    expect(writes).toBe(0)
    // Nothing of C's was kept, so the honest signatures (C's too) complete it.
    expect(await body(await sign(a, view))).toMatchObject({ status: 'accepted', proposal: { status: 'open', counted: 1 } })
    expect(await body(await sign(c, view))).toMatchObject({ status: 'accepted', proposal: { status: 'executed', counted: 2 } })
    expect(await usdcBalance(devnet, f.treasury)).toBe(before + USDC(2))
  })

  it('lists proposals in full only to the council’s owner signed in; another signed-in wallet gets 403, a read key no call data', async () => {
    const path = `/council/v1/proposals?council=${f.config.council}&limit=5`
    type Page = { proposals: Record<string, unknown>[]; next: string | null }
    // Any wallet can sign in through the device flow: a stranger's, or a member Golem's own key.
    for (const wallet of [privateKeyToAccount(generatePrivateKey()), f.golems[1]!]) {
      const res = await app.request(path, { headers: { authorization: `Bearer ${await signIn(wallet)}` } })
      expect(res.status).toBe(403)
      expect(await body(res)).toMatchObject({ code: 'COUNCIL_NOT_OWNER', message: expect.stringContaining(f.owner.address) })
    }
    const owner = await app.request(path, { headers: { authorization: `Bearer ${await signIn(f.owner.smartAccount)}` } })
    expect(owner.status).toBe(200)
    const full = await body<Page>(owner)
    expect(full.proposals.length).toBeGreaterThan(0)
    for (const p of full.proposals) {
      expect(p.action).toMatchObject({ callData: expect.stringMatching(/^0xa9059cbb/) })
      expect(p.proposal).toEqual(expect.any(String))
    }
    const read = await body<Page>(await app.request(path, { headers: { 'x-api-key': readKey } }))
    expect(read.proposals.map((p) => p.id)).toEqual(full.proposals.map((p) => p.id))
    for (const [i, p] of read.proposals.entries()) {
      expect(p).not.toHaveProperty('proposal')
      expect(p.action).toEqual({ target: (full.proposals[i]!.action as { target: string }).target, value: '0' })
      expect(JSON.stringify(p)).not.toContain('a9059cbb')
      expect(p).toMatchObject({ id: full.proposals[i]!.id, status: full.proposals[i]!.status, counted: full.proposals[i]!.counted })
    }
  })

  it('shows one proposal to the council’s members only: a sibling that holds no seat gets 403', async () => {
    const [a, , c] = f.golems as [PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount]
    const view = await body<CouncilProposalView>(await propose(a, f.treasury, USDC(1)))
    const refused = await app.request(`/council/v1/proposals/${view.id}`, { headers: await auth(outsider) })
    expect(refused.status).toBe(403)
    expect(await body(refused)).toMatchObject({ code: 'COUNCIL_NOT_MEMBER', message: expect.stringContaining(outsider.address) })
    const shown = await app.request(`/council/v1/proposals/${view.id}`, { headers: await auth(c) })
    expect(shown.status).toBe(200)
    expect(await body(shown)).toMatchObject({ id: view.id, proposal: view.proposal })
  })

  describe('refuses every field out of range with a 400 naming it, writing nothing', () => {
    const action = () => {
      const t = transferCall(devnet.deployment.assets.usdc, f.treasury, USDC(1))
      return { target: t.target, value: '0', callData: t.callData }
    }
    const deadline = async () => Number(await chainNow(devnet)) + 3_600
    const cases: [string, () => Promise<Record<string, unknown>>, string][] = [
      ['action.target', async () => ({ action: { ...action(), target: '0x1234' }, deadline: await deadline() }), 'must be a 20-byte'],
      [
        'action.value',
        async () => ({ action: { ...action(), value: '9'.repeat(78) }, deadline: await deadline() }),
        'must be at most 2^256 - 1',
      ],
      [
        'action.value',
        async () => ({ action: { ...action(), value: (2n ** 256n).toString() }, deadline: await deadline() }),
        'must be at most 2^256 - 1',
      ],
      ['action.value', async () => ({ action: { ...action(), value: '1'.repeat(79) }, deadline: await deadline() }), 'at most 78 digits'],
      ['action.value', async () => ({ action: { ...action(), value: '-1' }, deadline: await deadline() }), 'decimal integer string'],
      [
        'action.callData',
        async () => ({ action: { ...action(), callData: '0xabc' }, deadline: await deadline() }),
        '0x-prefixed hex bytes',
      ],
      [
        'action.callData',
        async () => ({ action: { ...action(), callData: `0x${'00'.repeat(4097)}` }, deadline: await deadline() }),
        'at most 4096 bytes',
      ],
      ['deadline', async () => ({ action: action(), deadline: 0 }), 'must be a positive number'],
      ['deadline', async () => ({ action: action(), deadline: (await deadline()) + 0.5 }), 'must be an integer'],
      ['deadline', async () => ({ action: action(), deadline: 2 ** 64 }), 'must be at most 9007199254740991'],
      [
        'deadline',
        async () => ({ action: action(), deadline: Number(await chainNow(devnet)) + 8 * 86_400 }),
        'must be at most 604800 seconds from now',
      ],
    ]
    it.each(cases)('POST /proposals %s (%#)', async (field, make, rule) => {
      writes = 0
      const res = await post('/council/v1/proposals', await auth(f.golems[0]!), { council: f.config.council, ...(await make()) })
      expect(res.status).toBe(400)
      const out = await body<{ code: string; message: string; details: { issues: { path: string }[] } }>(res)
      expect(out).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining(rule) })
      expect(out.message.startsWith(field)).toBe(true)
      expect(out.details.issues.map((i) => i.path)).toEqual([field])
      expect(writes).toBe(0)
    })

    it.each([
      ['0x12', 'must be a 65-byte hex signature'],
      [`0x${'11'.repeat(32)}${'ee'.repeat(32)}1b`, 's must be at most n/2 (low-s)'],
      [`0x${'00'.repeat(32)}${'11'.repeat(32)}1b`, 'r must be between 1 and the curve order n - 1'],
      [`0x${'11'.repeat(64)}1d`, 'v must be 27 or 28'],
    ])('POST /proposals/:id/signatures signature %s', async (signature, rule) => {
      const page = await body<{ proposals: { id: string }[] }>(
        await app.request(`/council/v1/proposals?council=${f.config.council}&limit=1`, { headers: { 'x-api-key': readKey } }),
      )
      writes = 0
      const res = await post(`/council/v1/proposals/${page.proposals[0]!.id}/signatures`, await auth(f.golems[0]!), { signature })
      expect(res.status).toBe(400)
      expect(await body(res)).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining(`signature: ${rule}`) })
      expect(writes).toBe(0)
    })

    const COUNCIL = '0x000000000000000000000000000000000000C0c1'
    it.each([
      ['GET', '/council/v1/proposals?limit=1', 'council: must be the council’s address (its MultiSig DeleGator)'],
      ['GET', `/council/v1/proposals?council=0x1234`, 'council: must be a 20-byte 0x-prefixed hex address'],
      ['GET', '/council/v1/proposals/0x1234', 'id: must be 0x and 16 bytes of hex'],
      ['POST', `/council/v1/proposals/0x${'ab'.repeat(17)}/signatures`, 'id: must be 0x and 16 bytes of hex'],
      ['GET', `/council/v1/proposals?council=${COUNCIL}&limit=0`, 'limit: must be at least 1'],
      ['GET', `/council/v1/proposals?council=${COUNCIL}&limit=101`, 'limit: must be at most 100'],
      ['GET', `/council/v1/proposals?council=${COUNCIL}&limit=1.5`, 'limit: must be an integer'],
      ['GET', `/council/v1/proposals?council=${COUNCIL}&limit=ten`, 'limit: must be a number'],
      ['GET', `/council/v1/proposals?council=${COUNCIL}&cursor=nope`, 'cursor: must be the `next` of a previous page'],
    ])('%s %s', async (method, path, message) => {
      writes = 0
      const headers = path.includes('?') ? { 'x-api-key': readKey } : await auth(f.golems[0]!)
      const res = method === 'GET' ? await app.request(path, { headers }) : await post(path, headers, { signature: `0x${'11'.repeat(65)}` })
      expect(res.status).toBe(400)
      expect(await body(res)).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining(message) })
      expect(writes).toBe(0)
    })
  })

  it('documents the four council routes in the OpenAPI document', async () => {
    const doc = await body<{ paths: Record<string, Record<string, unknown>> }>(await app.request('/openapi.json'))
    expect(Object.keys(doc.paths['/council/v1/proposals'] ?? {}).sort()).toEqual(['get', 'post'])
    expect(Object.keys(doc.paths['/council/v1/proposals/{id}/signatures'] ?? {})).toEqual(['post'])
    expect(Object.keys(doc.paths['/council/v1/proposals/{id}'] ?? {})).toEqual(['get'])
  })
})
