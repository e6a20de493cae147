// The owner forms a Coordination Council through the API as npm start wires it (createLocalApi over the
// store, on anvil with the real framework): a draft of the council of three of the owner's Golems, the
// owner's smart account signing the drafted delegation in the wallet (MetaMask's typed-data rules), the
// formation checked and the MultiSig DeleGator deployed; then the members propose, sign and execute
// through the served /council/v1 routes, each with its custody signer. Every refused formation (a
// stranger's signature, a Golem not the owner's, a threshold out of 1..n, a tampered delegation) is named
// by field and rule, and nothing is stored or deployed.
import type { Delegation } from '@metamask/smart-accounts-kit'
import { formatEther, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { InMemoryStore } from '../../adapters/store/index.ts'
import type { CouncilProposalView } from '../../app/council/councilService.ts'
import { cladeChallengeTypedData, type CladeChallenge } from '../../core/clade/challenge.ts'
import { GolemSigner } from '../../core/custody/golemSigner.ts'
import { walletJson, walletRequest } from '../web/testWallet.ts'
import { transferCall, USDC } from '../chain/harness.ts'
import { postJson, startApiStack, type ApiStack } from './harness.ts'

let stack: ApiStack
let store: InMemoryStore
let app: ReturnType<ApiStack['app']>
const treasury = privateKeyToAccount(generatePrivateKey()).address

type Draft = {
  council: Address
  owner: Address
  members: { golemId: string; signer: Address }[]
  threshold: number
  scope: Record<string, unknown>
  salt: Hex
  delegation: Delegation
  typedData: unknown
  delegationHash: Hex
  deployed: boolean
}
type Refusal = { code: string; message: string; details: { field?: string; rule?: string; issues?: { path: string }[] } }

beforeAll(async () => {
  store = new InMemoryStore()
  stack = await startApiStack({ store })
  for (const id of ['atlas', 'boreas', 'calypso']) await stack.provision(id)
  // A Golem of another owner.
  await stack.provision('zephyr', { owner: await stack.devnet.createOwner() })
  app = stack.app()
}, 120_000)
afterAll(async () => stack?.stop())

const body = async <T>(res: Response | Promise<Response>) => (await (await res).json()) as T
const scope = () => ({
  targets: [stack.devnet.deployment.assets.usdc],
  selectors: ['0xa9059cbb'],
  receivers: [{ receiver: treasury }],
  dailyLimitUsd: '1000',
})
const draftOf = (golems: string[], threshold = 2) => postJson(app, '/api/v1/councils/draft', { golems, threshold, scope: scope() })
const code = async (address: Address) => (await stack.devnet.publicClient.getCode({ address })) ?? '0x'

/** The owner's wallet signs the drafted delegation, as MetaMask signs eth_signTypedData_v4 for the owner's key. */
const ownerSigns = (typedData: unknown, signer = stack.owner.signer) =>
  walletRequest(signer, stack.devnet.deployment.chainId, 'eth_signTypedData_v4', [signer.address, walletJson(typedData)]) as Promise<Hex>

const formOf = (draft: Draft, signature: Hex, over: Record<string, unknown> = {}) =>
  postJson(app, '/api/v1/councils', {
    golems: draft.members.map((m) => m.golemId),
    threshold: draft.threshold,
    scope: draft.scope,
    salt: draft.salt,
    delegation: { ...draft.delegation, signature },
    ...over,
  })

/** Nothing stored and nothing deployed for the drafted council, and the owner's councils are still `count`. */
async function nothingFormed(draft: Draft, count: number) {
  expect(await store.getCouncil(draft.council)).toBeNull()
  expect(await code(draft.council)).toBe('0x')
  expect(await store.listCouncilsByOwner(stack.owner.address)).toHaveLength(count)
}

describe('the owner forms a council through the API', () => {
  let formed: Draft

  it('drafts the council and the delegation to sign, writing nothing', async () => {
    const res = await draftOf(['atlas', 'boreas', 'calypso'])
    expect(res.status).toBe(200)
    const draft = await body<Draft>(res)
    const keys = await Promise.all(['atlas', 'boreas', 'calypso'].map(async (id) => (await stack.profile(id)).golemKey))
    expect(draft).toMatchObject({ owner: stack.owner.address, threshold: 2, deployed: false })
    expect(draft.members).toEqual(['atlas', 'boreas', 'calypso'].map((golemId, i) => ({ golemId, signer: keys[i] })))
    expect(draft.delegation).toMatchObject({ delegator: stack.owner.address, delegate: draft.council, signature: '0x' })
    expect((draft.typedData as { primaryType: string }).primaryType).toBe('Delegation')
    // Every default filled in: the local feeds, a day's price age, 30 days from now.
    expect(draft.scope).toMatchObject({
      dailyLimitUsd: '1000',
      maxValue: '0',
      maxPriceAge: 86_400,
      receivers: [{ receiver: treasury, startIndex: 4 }],
    })
    expect((draft.scope.endsAt as number) - (draft.scope.startsAt as number)).toBe(30 * 86_400)
    await nothingFormed(draft, 0)
    formed = draft
  })

  it('refuses a stranger’s signature, naming delegation.signature, storing and deploying nothing', async () => {
    const stranger = privateKeyToAccount(generatePrivateKey())
    const res = await formOf(formed, await ownerSigns(formed.typedData, stranger))
    expect(res.status).toBe(422)
    expect(await body<Refusal>(res)).toMatchObject({
      code: 'COUNCIL_FORMATION_REFUSED',
      details: { field: 'delegation.signature', rule: expect.stringContaining(`valid for ${stack.owner.address} (ERC-1271)`) },
    })
    await nothingFormed(formed, 0)
  })

  it('refuses a Golem that is not the owner’s, in the draft and in the formation, naming its place', async () => {
    const draft = await draftOf(['atlas', 'zephyr'])
    expect(draft.status).toBe(422)
    expect(await body<Refusal>(draft)).toMatchObject({
      code: 'COUNCIL_FORMATION_REFUSED',
      details: { field: 'golems[1]', rule: expect.stringContaining(`zephyr is not a Golem of the owner ${stack.owner.address}`) },
    })
    // The owner's signed delegation, posted with another owner's Golem in a seat.
    const signature = await ownerSigns(formed.typedData)
    const res = await formOf(formed, signature, { golems: ['atlas', 'boreas', 'zephyr'] })
    expect(res.status).toBe(422)
    expect(await body<Refusal>(res)).toMatchObject({ details: { field: 'golems[2]' } })
    expect(await body<Refusal>(draftOf(['atlas', 'nobody']))).toMatchObject({
      details: { field: 'golems[1]', rule: 'names no Golem: nobody' },
    })
    await nothingFormed(formed, 0)
  })

  it('refuses a threshold of 0 or above the seats, naming threshold, in the draft and in the formation', async () => {
    const signature = await ownerSigns(formed.typedData)
    for (const threshold of [0, 4]) {
      for (const res of [await draftOf(['atlas', 'boreas', 'calypso'], threshold), await formOf(formed, signature, { threshold })]) {
        expect(res.status).toBe(400)
        const refusal = await body<Refusal>(res)
        expect(refusal.code).toBe('VALIDATION_FAILED')
        expect(refusal.message).toMatch(threshold === 0 ? /^threshold: must be at least 1/ : /^threshold: must be at most 3/)
        expect(refusal.details.issues!.map((i) => i.path)).toEqual(['threshold'])
      }
    }
    await nothingFormed(formed, 0)
  })

  it('refuses a delegation that is not the drafted one, naming where it differs, even signed by the owner', async () => {
    // A wider daily limit in the request than the owner's delegation carries.
    const signature = await ownerSigns(formed.typedData)
    const wider = await formOf(formed, signature, { scope: { ...formed.scope, dailyLimitUsd: '1000000' } })
    expect(wider.status).toBe(422)
    expect(await body<Refusal>(wider)).toMatchObject({
      code: 'COUNCIL_FORMATION_REFUSED',
      details: { field: expect.stringMatching(/^delegation\.caveats\[\d+\]\.terms$/) },
    })
    // A delegation tampered with (another receiver pinned), signed by the owner as it stands.
    const caveats = formed.delegation.caveats.map((c) => ({
      ...c,
      terms: c.terms.replace(treasury.slice(2).toLowerCase(), 'ab'.repeat(20)),
    }))
    const tampered = { ...formed.delegation, caveats }
    expect(tampered.caveats).not.toEqual(formed.delegation.caveats)
    const typedData = structuredClone(formed.typedData) as { message: { caveats: { terms: string }[] } }
    typedData.message.caveats = caveats.map((c, i) => ({ ...typedData.message.caveats[i]!, terms: c.terms }))
    const res = await postJson(app, '/api/v1/councils', {
      golems: ['atlas', 'boreas', 'calypso'],
      threshold: 2,
      scope: formed.scope,
      salt: formed.salt,
      delegation: { ...tampered, signature: await ownerSigns(typedData) },
    })
    expect(res.status).toBe(422)
    expect(await body<Refusal>(res)).toMatchObject({ details: { field: expect.stringMatching(/^delegation\.caveats\[\d+\]\.terms$/) } })
    // Another council (the same seats under another salt).
    const salted = await formOf(formed, signature, { salt: `0x${'07'.repeat(32)}` })
    expect(await body<Refusal>(salted)).toMatchObject({ details: { field: 'delegation.delegate' } })
    await nothingFormed(formed, 0)
  })

  it('forms the council from the draft the owner’s smart account signed: deployed, stored, listed; the same formation again changes nothing', async () => {
    const signature = await ownerSigns(formed.typedData)
    const res = await formOf(formed, signature)
    expect(res.status).toBe(201)
    const council = await body<Record<string, unknown>>(res)
    expect(council).toMatchObject({
      council: formed.council,
      owner: stack.owner.address,
      threshold: 2,
      members: formed.members,
      delegationHash: formed.delegationHash,
      deployTxHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    })
    expect(await code(formed.council)).not.toBe('0x')
    // The local stack fronts the council its first gas.
    expect(formatEther(await stack.devnet.publicClient.getBalance({ address: formed.council }))).toBe('0.05')
    const again = await formOf(formed, signature)
    expect(again.status).toBe(200)
    expect(await body(again)).toEqual(council)
    const listed = await body<{ councils: unknown[] }>(app.request(`/api/v1/councils?owner=${stack.owner.address}`))
    expect(listed.councils).toEqual([council])
    expect(await body(app.request(`/api/v1/councils/${formed.council}`))).toEqual(council)
  })

  it('serves the council to its members: one proposes without naming it, two sign, it executes once', async () => {
    const { devnet } = stack
    await devnet.refreshFeeds()
    const members = await Promise.all(['atlas', 'boreas', 'calypso'].map((id) => memberOf(id, formed.council)))
    const before = await stack.usdcBalance(treasury)
    const [atlas, boreas, calypso] = members as [Member, Member, Member]
    const action = transferCall(devnet.deployment.assets.usdc, treasury, USDC(25))
    const deadline = Number((await devnet.publicClient.getBlock()).timestamp) + 3_600
    const created = await postJson(
      app,
      '/council/v1/proposals',
      { action: { target: action.target, value: '0', callData: action.callData }, deadline },
      await atlas.auth(),
    )
    expect(created.status).toBe(201)
    const view = await body<CouncilProposalView>(created)
    expect(view).toMatchObject({ council: formed.council, status: 'open', threshold: 2, seats: 3, proposer: atlas.key })
    const sign = async (m: Member) =>
      body<{ status: string; proposal: CouncilProposalView }>(
        postJson(app, `/council/v1/proposals/${view.id}/signatures`, { signature: await m.sign(view) }, await m.auth()),
      )
    expect(await sign(atlas)).toMatchObject({ status: 'accepted', proposal: { status: 'open', counted: 1 } })
    expect(await sign(boreas)).toMatchObject({ status: 'accepted', proposal: { status: 'executed', counted: 2 } })
    expect(await stack.usdcBalance(treasury)).toBe(before + USDC(25))
    const late = await postJson(
      app,
      `/council/v1/proposals/${view.id}/signatures`,
      { signature: await calypso.sign(view) },
      await calypso.auth(),
    )
    expect(late.status).toBe(409)
    expect(await stack.usdcBalance(treasury)).toBe(before + USDC(25))
    // A Golem of another owner holds no seat on it.
    const outsider = await memberOf('zephyr', formed.council)
    const refused = await postJson(
      app,
      '/council/v1/proposals',
      { action: { target: action.target, value: '0', callData: action.callData }, deadline },
      await outsider.auth(),
    )
    expect(refused.status).toBe(403)
    expect(await body(refused)).toMatchObject({ code: 'COUNCIL_NOT_MEMBER' })
  })

  it('a Golem on two councils names the one it proposes to; without a name it is refused naming council, nothing stored', async () => {
    const draft = await body<Draft>(draftOf(['atlas', 'boreas'], 1))
    expect((await formOf(draft, await ownerSigns(draft.typedData))).status).toBe(201)
    expect((await store.listCouncilsOfGolem('atlas')).map((c) => c.council)).toEqual([draft.council, formed.council])
    const atlas = await memberOf('atlas', draft.council)
    const action = transferCall(stack.devnet.deployment.assets.usdc, treasury, USDC(1))
    const deadline = Number((await stack.devnet.publicClient.getBlock()).timestamp) + 3_600
    const proposal = { action: { target: action.target, value: '0', callData: action.callData }, deadline }
    const before = (await store.listCouncilProposals({ council: draft.council, limit: 100 })).items.length
    const unnamed = await postJson(app, '/council/v1/proposals', proposal, await atlas.auth())
    expect(unnamed.status).toBe(400)
    expect(await body<Refusal>(unnamed)).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(/^council must name the council: Golem atlas sits on 2/),
      details: { issues: [{ path: 'council' }] },
    })
    expect((await store.listCouncilProposals({ council: draft.council, limit: 100 })).items).toHaveLength(before)
    const named = await postJson(app, '/council/v1/proposals', { council: draft.council, ...proposal }, await atlas.auth())
    expect(named.status).toBe(201)
    expect(await body(named)).toMatchObject({ council: draft.council, threshold: 1, seats: 2 })
  })
})

type Member = { key: Address; auth(): Promise<Record<string, string>>; sign(view: CouncilProposalView): Promise<Hex> }

let ip = 0
/**
 * A Golem as its runtime acts: its session key (held in the stack's memory) answers the Clade challenge
 * (no Golem is this API's own, so it names a target: any Clade member here, itself included), and its
 * custody signer, whose policy names the council, checks a proposal before it co-signs it.
 */
async function memberOf(golemId: string, council: Address): Promise<Member> {
  const profile = await stack.profile(golemId)
  const key = stack.signers.keyOf((profile.signer as { ref: string }).ref)!
  const chainId = stack.devnet.deployment.chainId
  const seat = new GolemSigner({ signer: key.signer, policy: { ...stack.signers.policy(profile), councils: [council] } })
  return {
    key: profile.golemKey,
    async auth() {
      ip += 1
      const headers = { 'x-forwarded-for': `198.51.100.${ip}` }
      const { challenge } = await body<{ challenge: CladeChallenge }>(
        app.request(`/clade/v1/challenge?caller=${profile.golemKey}&target=${profile.golemKey}`, { headers }),
      )
      const signature = await key.signer.signTypedData(cladeChallengeTypedData(challenge, chainId) as never)
      return { ...headers, authorization: `CladeChallenge ${signature}`, 'x-clade-challenge': JSON.stringify(challenge) }
    },
    sign: (view) => {
      const shown = view.action as unknown as { target: Address; value: string; callData: Hex }
      return seat.signCouncilProposal({ proposal: view.proposal, action: { ...shown, value: BigInt(shown.value) } })
    },
  }
}
