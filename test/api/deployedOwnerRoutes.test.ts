// The owner's council and observer routes through the deployed Lambda handler (functions/api/handler.ts,
// built by loadDeployedWiring from BARDO_* variables and the BARDO_SECRET_* stand-ins of the SST secrets),
// with API Gateway v2 events, the table on dynalite and the chain on anvil. The owner forms a council of
// two of its Golems (the owner smart account's signature checked by ERC-1271, the council deployed by the
// SettlementKey account), lists and reads it, and the members propose, sign and execute once through
// /council/v1; the owner grants an observer, lists it, revokes it on chain with the drafted operation and
// lists it revoked. Every route refuses bad input naming the field and the rule, with the table unchanged
// and nothing sent on chain. Every DynamoDB request the handler sent passes through a recorder and must be
// an action the stack's IAM statements give the Api function.
import { ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb'
import type { Delegation } from '@metamask/smart-accounts-kit'
import { createWalletClient, http, parseEther, type Address, type Hex } from 'viem'
import { entryPoint07Abi, toPackedUserOperation } from 'viem/account-abstraction'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { DynamoCouncilStore } from '../../adapters/store/index.ts'
import type { CouncilProposalView } from '../../app/council/councilService.ts'
import { cladeChallengeTypedData, type CladeChallenge } from '../../core/clade/challenge.ts'
import { GolemSigner } from '../../core/custody/golemSigner.ts'
import { hashApiKey, readKeyFromBytes } from '../../core/ratelimit/tiers.ts'
import type { OwnerAccount } from '../../local/devnet.ts'
import { createTable, documentClient, localDynamoClient, startDynalite, type Dynalite } from '../../local/dynalite.ts'
import { signedUserOperation } from '../../web/src/userOperation.ts'
import { transferCall, USDC } from '../chain/harness.ts'
import { startDynamoRecorder, type DynamoRecorder } from '../lambda/dynamoRecorder.ts'
import { allowedActions } from '../lambda/stackIam.ts'
import { walletJson, walletRequest } from '../web/testWallet.ts'
import { startApiStack, type ApiStack } from './harness.ts'

const TABLE = 'bardo-deployed-owner'
const hmac = `0x${'5a'.repeat(32)}`
const readKey = readKeyFromBytes(new Uint8Array(24).fill(9))
const treasury = privateKeyToAccount(generatePrivateKey()).address

let stack: ApiStack
let dynalite: Dynalite
let recorder: DynamoRecorder
let other: OwnerAccount
let observer: PrivateKeyAccount
let settlement: PrivateKeyAccount
let apiActions: string[]
let handler: (event: unknown) => Promise<unknown>

beforeAll(async () => {
  apiActions = (await allowedActions(['Api'])).Api
  dynalite = await startDynalite()
  const raw = localDynamoClient(dynalite.endpoint)
  await createTable(raw, TABLE)
  // The Golems are onboarded into the deployed table directly; the handler's requests go through the recorder.
  recorder = await startDynamoRecorder(dynalite.endpoint)
  stack = await startApiStack({ store: new DynamoCouncilStore({ client: documentClient(raw), tableName: TABLE }) })
  for (const id of ['atlas', 'boreas']) await stack.provision(id)
  other = await stack.devnet.createOwner()
  await stack.provision('zephyr', { owner: other })
  observer = await stack.devnet.fundedAccount()
  // The SettlementKey account: gas only, its key known here only to set the secret's stand-in.
  const settlementKey = generatePrivateKey()
  settlement = privateKeyToAccount(settlementKey)
  const { devnet } = stack
  for (const to of [settlement.address, stack.owner.signer.address])
    await devnet.publicClient.waitForTransactionReceipt({ hash: await devnet.deployer.sendTransaction({ to, value: parseEther('2') }) })
  const deployedEnv: Record<string, string> = {
    BARDO_CHAIN_ID: String(devnet.deployment.chainId),
    // A chain the kit does not know: the deployment carries the framework's addresses and the local assets.
    BARDO_DEPLOYMENT: JSON.stringify(devnet.deployment, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
    BARDO_TABLE_NAME: TABLE,
    BARDO_TRUSTED_PROXY_HOPS: '0',
    BARDO_ALLOWED_ORIGINS: 'https://bardo.ai',
    BARDO_SECRET_RPC_URL: devnet.rpcUrl,
    BARDO_SECRET_SETTLEMENT_KEY: settlementKey,
    BARDO_SECRET_CLADE_HMAC_SECRET: hmac,
    BARDO_SECRET_READ_API_KEY_HASHES: hashApiKey(readKey),
    AWS_ENDPOINT_URL_DYNAMODB: recorder.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  }
  for (const [k, v] of Object.entries(deployedEnv)) vi.stubEnv(k, v)
  handler = (await import('../../functions/api/handler.ts')).handler as never
}, 180_000)

afterAll(async () => {
  vi.unstubAllEnvs()
  await recorder?.stop()
  await dynalite?.stop()
  await stack?.stop()
})

/** An answer's status and its JSON body, read as the caller expects it (a refusal otherwise). */
type Answer<T = unknown> = { status: number; body: T }
type Refusal = { code: string; message: string; details?: { field?: string; issues?: { path: string }[] } }

// Each request comes from its own address: the public tier's limit is per client address.
let ip = 0
async function call<T>(
  method: 'GET' | 'POST',
  path: string,
  o: { query?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer<T>> {
  ip += 1
  const sourceIp = `198.51.${Math.floor(ip / 250)}.${(ip % 250) + 1}`
  const event = {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: o.query ?? '',
    headers: { host: 'api.example', ...(o.body === undefined ? {} : { 'content-type': 'application/json' }), ...o.headers },
    requestContext: {
      http: { method, path, sourceIp, protocol: 'HTTP/1.1', userAgent: 'test' },
      requestId: `r${ip}`,
      stage: '$default',
      domainName: 'api.example',
      accountId: '1',
      apiId: 'a',
      time: '',
      timeEpoch: 0,
      routeKey: '$default',
    },
    body: o.body === undefined ? null : JSON.stringify(o.body),
    isBase64Encoded: false,
  }
  const sent = recorder.operations.length
  const res = (await handler(event)) as { statusCode: number; body: string }
  // Each request's DynamoDB calls, as IAM actions, are ones the Api function may send (on AWS: no AccessDenied).
  for (const operation of recorder.operations.slice(sent)) expect(apiActions, `${method} ${path}`).toContain(`dynamodb:${operation}`)
  return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : null }
}
const get = <T = unknown>(path: string, query = '', headers: Record<string, string> = {}) => call<T>('GET', path, { query, headers })
const post = <T = unknown>(path: string, body: unknown, headers: Record<string, string> = {}) => call<T>('POST', path, { body, headers })
const reader = { 'x-api-key': readKey }

/**
 * The table's items, but the two kinds every request writes whether or not it is refused: its client's
 * rate-limit counter and, for a Clade caller, the challenge nonce it spent.
 */
async function tableItems(): Promise<string[]> {
  const client = localDynamoClient(dynalite.endpoint)
  const items: Record<string, AttributeValue>[] = []
  let start: Record<string, AttributeValue> | undefined
  do {
    const page = await client.send(new ScanCommand({ TableName: TABLE, ExclusiveStartKey: start, ConsistentRead: true }))
    items.push(...(page.Items ?? []))
    start = page.LastEvaluatedKey
  } while (start)
  return items
    .filter((i) => !/^(RATE|NONCE)#/.test(i.pk?.S ?? ''))
    .map((i) => JSON.stringify(i))
    .sort()
}

/**
 * The request is refused with `status` and `code`, its message `field: rule`, the field the one the error's
 * details name; and it changed nothing: no write but a rate counter or a spent challenge nonce reached the
 * table (each write seen on its way, and the table scanned before and after), and the API's account sent
 * no transaction.
 */
async function refusedWritingNothing(request: () => Promise<Answer>, status: number, code: string, message: string) {
  const before = { items: await tableItems(), sent: await sentBySettlement(), writes: recorder.writes.length }
  const res = await request()
  expect(res.status, JSON.stringify(res.body)).toBe(status)
  const refusal = res.body as Refusal
  expect({ code: refusal.code, message: refusal.message }).toEqual({ code, message })
  const field = message.slice(0, message.indexOf(': '))
  if (refusal.details?.field !== undefined) expect(refusal.details.field).toBe(field)
  if (refusal.details?.issues !== undefined) expect(refusal.details.issues.map((i) => i.path)).toEqual([field])
  const written = recorder.writes.slice(before.writes).flatMap((w) => w.pks)
  expect(written.filter((pk) => !/^(RATE|NONCE)#/.test(pk))).toEqual([])
  expect(await tableItems()).toEqual(before.items)
  expect(await sentBySettlement()).toBe(before.sent)
}
const sentBySettlement = () => stack.devnet.publicClient.getTransactionCount({ address: settlement.address })
const code = async (address: Address) => (await stack.devnet.publicClient.getCode({ address })) ?? '0x'

/** The wallet's eth_signTypedData_v4, as MetaMask answers a site. */
const walletSigns = (account: PrivateKeyAccount, typedData: unknown) =>
  walletRequest(account, stack.devnet.deployment.chainId, 'eth_signTypedData_v4', [account.address, walletJson(typedData)]) as Promise<Hex>

type CouncilDraft = {
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

/** A real chain's deployment knows no price feeds: the owner names them (the devnet's USDC feed). */
const councilScope = () => {
  const { assets } = stack.devnet.deployment
  return {
    targets: [assets.usdc],
    selectors: ['0xa9059cbb'],
    receivers: [{ receiver: treasury }],
    dailyLimitUsd: '1000',
    feeds: [{ token: assets.usdc, feed: assets.usdcUsdFeed, decimals: 6 }],
    maxPriceAge: 86_400,
  }
}
const formation = (draft: CouncilDraft, signature: Hex, over: Record<string, unknown> = {}) => ({
  golems: draft.members.map((m) => m.golemId),
  threshold: draft.threshold,
  scope: draft.scope,
  salt: draft.salt,
  delegation: { ...draft.delegation, signature },
  ...over,
})

type Member = { key: Address; auth(): Promise<Record<string, string>>; sign(view: CouncilProposalView): Promise<Hex> }

/**
 * A Golem as its runtime acts: its session key answers the Clade challenge the deployed API issues, and
 * its custody signer, whose policy names the council, checks a proposal before it co-signs it.
 */
async function memberOf(golemId: string, council: Address): Promise<Member> {
  const profile = await stack.profile(golemId)
  const key = stack.signers.keyOf((profile.signer as { ref: string }).ref)!
  const seat = new GolemSigner({ signer: key.signer, policy: { ...stack.signers.policy(profile), councils: [council] } })
  return {
    key: profile.golemKey,
    async auth() {
      const res = await get<{ challenge: CladeChallenge }>('/clade/v1/challenge', `caller=${profile.golemKey}&target=${profile.golemKey}`)
      expect(res.status).toBe(200)
      const { challenge } = res.body
      const signature = await key.signer.signTypedData(cladeChallengeTypedData(challenge, stack.devnet.deployment.chainId) as never)
      return { authorization: `CladeChallenge ${signature}`, 'x-clade-challenge': JSON.stringify(challenge) }
    },
    sign: (view) => {
      const shown = view.action as unknown as { target: Address; value: string; callData: Hex }
      return seat.signCouncilProposal({ proposal: view.proposal, action: { ...shown, value: BigInt(shown.value) } })
    },
  }
}

describe("the owner's council through the deployed handler", () => {
  let draft: CouncilDraft
  let formed: Record<string, unknown>
  let proposal: CouncilProposalView

  it('drafts the council of two of the owner’s Golems, writing nothing; a threshold above the seats, another owner’s Golem and a scope without price feeds are refused by name', async () => {
    await refusedWritingNothing(
      () => post('/api/v1/councils/draft', { golems: ['atlas', 'boreas'], threshold: 3, scope: councilScope() }),
      400,
      'VALIDATION_FAILED',
      'threshold: must be at most 2 (the Golems named)',
    )
    await refusedWritingNothing(
      () => post('/api/v1/councils/draft', { golems: ['atlas', 'zephyr'], threshold: 2, scope: councilScope() }),
      422,
      'COUNCIL_FORMATION_REFUSED',
      `golems[1]: zephyr is not a Golem of the owner ${stack.owner.address}: a council seats the owner's own Golems only`,
    )
    // Deployed, no price feeds are known: a scope without them is refused naming scope.feeds.
    const { feeds: _feeds, maxPriceAge: _age, ...unpriced } = councilScope()
    await refusedWritingNothing(
      () => post('/api/v1/councils/draft', { golems: ['atlas', 'boreas'], threshold: 2, scope: unpriced }),
      422,
      'COUNCIL_FORMATION_REFUSED',
      'scope.feeds: must name the price feed of every token the council moves: this deployment knows none',
    )
    const before = await tableItems()
    const res = await post('/api/v1/councils/draft', { golems: ['atlas', 'boreas'], threshold: 2, scope: councilScope() })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    draft = res.body as CouncilDraft
    expect(draft).toMatchObject({ owner: stack.owner.address, threshold: 2, deployed: false })
    expect(draft.delegation).toMatchObject({ delegator: stack.owner.address, delegate: draft.council, signature: '0x' })
    expect(await tableItems()).toEqual(before)
    expect(await code(draft.council)).toBe('0x')
  })

  it('refuses a stranger’s signature on the drafted delegation naming delegation.signature (ERC-1271): nothing stored, nothing deployed', async () => {
    const stranger = privateKeyToAccount(generatePrivateKey())
    const signature = await walletSigns(stranger, draft.typedData)
    await refusedWritingNothing(
      () => post('/api/v1/councils', formation(draft, signature)),
      422,
      'COUNCIL_FORMATION_REFUSED',
      `delegation.signature: must be the owner's signature over the council delegation, valid for ${stack.owner.address} (ERC-1271)`,
    )
    expect(await code(draft.council)).toBe('0x')
  })

  it('forms the council the owner’s smart account signed: the SettlementKey account deploys it, the table keeps it; listed and read', async () => {
    const before = await sentBySettlement()
    const signature = await walletSigns(stack.owner.signer, draft.typedData)
    const res = await post<Record<string, unknown>>('/api/v1/councils', formation(draft, signature))
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    formed = res.body
    expect(formed).toMatchObject({
      council: draft.council,
      owner: stack.owner.address,
      threshold: 2,
      members: draft.members,
      delegationHash: draft.delegationHash,
      deployTxHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    })
    expect(await code(draft.council)).not.toBe('0x')
    const receipt = await stack.devnet.publicClient.getTransactionReceipt({ hash: formed.deployTxHash as Hex })
    expect(receipt.from.toLowerCase()).toBe(settlement.address.toLowerCase())
    expect(await sentBySettlement()).toBeGreaterThan(before)
    // The same formation again: 200, nothing changes.
    const again = await post('/api/v1/councils', formation(draft, signature))
    expect(again).toEqual({ status: 200, body: formed })

    expect(await get('/api/v1/councils', `owner=${stack.owner.address}`)).toEqual({
      status: 200,
      body: { owner: stack.owner.address, councils: [formed] },
    })
    expect(await get(`/api/v1/councils/${draft.council}`)).toEqual({ status: 200, body: formed })
  })

  it('refuses a list without the owner and a read of a malformed or unknown council, naming the field', async () => {
    const address = 'must be a 20-byte 0x-prefixed hex address'
    await refusedWritingNothing(() => get('/api/v1/councils', 'owner=nobody'), 400, 'VALIDATION_FAILED', `owner: ${address}`)
    await refusedWritingNothing(() => get('/api/v1/councils/0x1234'), 400, 'VALIDATION_FAILED', `council: ${address}`)
    await refusedWritingNothing(
      () => get(`/api/v1/councils/${treasury}`),
      404,
      'COUNCIL_NOT_FOUND',
      `council: no council was formed at ${treasury}`,
    )
  })

  it('the members propose, two sign, and it executes once through /council/v1', async () => {
    const { devnet } = stack
    await devnet.refreshFeeds()
    // A real chain fronts the council no gas: its owner funds it for its user operations.
    await devnet.publicClient.waitForTransactionReceipt({
      hash: await devnet.deployer.sendTransaction({ to: draft.council, value: parseEther('0.05') }),
    })
    await devnet.mintUsdc(stack.owner.address, USDC(100))
    const [atlas, boreas] = [await memberOf('atlas', draft.council), await memberOf('boreas', draft.council)]
    const balance = () => stack.usdcBalance(treasury)
    const start = await balance()
    const action = transferCall(devnet.deployment.assets.usdc, treasury, USDC(25))
    const deadline = Number((await devnet.publicClient.getBlock()).timestamp) + 3_600
    const proposed = await post<CouncilProposalView>(
      '/council/v1/proposals',
      { action: { target: action.target, value: '0', callData: action.callData }, deadline },
      await atlas.auth(),
    )
    expect(proposed.status, JSON.stringify(proposed.body)).toBe(201)
    proposal = proposed.body
    expect(proposal).toMatchObject({ council: draft.council, status: 'open', threshold: 2, seats: 2, proposer: atlas.key })
    const sign = async (m: Member) =>
      post(`/council/v1/proposals/${proposal.id}/signatures`, { signature: await m.sign(proposal) }, await m.auth())
    expect(await sign(atlas)).toMatchObject({ status: 200, body: { status: 'accepted', proposal: { status: 'open', counted: 1 } } })
    expect(await sign(boreas)).toMatchObject({ status: 200, body: { status: 'accepted', proposal: { status: 'executed', counted: 2 } } })
    expect(await balance()).toBe(start + USDC(25))
    // Once: a signature after the execution is refused and changes nothing.
    await refusedWritingNothing(() => sign(atlas), 409, 'COUNCIL_PROPOSAL_CLOSED', 'proposal: is no longer open for signatures')
    expect(await balance()).toBe(start + USDC(25))
    const read = await get(`/council/v1/proposals/${proposal.id}`, '', await boreas.auth())
    expect(read).toMatchObject({ status: 200, body: { id: proposal.id, status: 'executed' } })
    const listed = await get<{ proposals: { id: string; status: string }[] }>('/council/v1/proposals', `council=${draft.council}`, reader)
    expect(listed.status).toBe(200)
    expect(listed.body.proposals.map((p) => [p.id, p.status])).toEqual([[proposal.id, 'executed']])
  })

  it('refuses each member route’s bad input naming the field and the rule, storing and sending nothing', async () => {
    const atlas = await memberOf('atlas', draft.council)
    const action = transferCall(stack.devnet.deployment.assets.usdc, treasury, USDC(1))
    await refusedWritingNothing(
      async () =>
        post(
          '/council/v1/proposals',
          { action: { target: action.target, value: '0', callData: action.callData }, deadline: 'soon' },
          await atlas.auth(),
        ),
      400,
      'VALIDATION_FAILED',
      'deadline: must be a number (unix seconds)',
    )
    // A Golem of another owner holds no seat on it.
    const outsider = await memberOf('zephyr', draft.council)
    await refusedWritingNothing(
      async () =>
        post(
          '/council/v1/proposals',
          { action: { target: action.target, value: '0', callData: action.callData }, deadline: 2 ** 31 },
          await outsider.auth(),
        ),
      403,
      'COUNCIL_NOT_MEMBER',
      `caller: ${outsider.key} holds no seat on any council`,
    )
    await refusedWritingNothing(
      async () => post(`/council/v1/proposals/${proposal.id}/signatures`, { signature: '0x1234' }, await atlas.auth()),
      400,
      'VALIDATION_FAILED',
      'signature: must be a 65-byte hex signature over the proposal’s typed data',
    )
    await refusedWritingNothing(
      async () => get('/council/v1/proposals/0x12', '', await atlas.auth()),
      400,
      'VALIDATION_FAILED',
      'id: must be 0x and 16 bytes of hex',
    )
    await refusedWritingNothing(
      () => get('/council/v1/proposals', '', reader),
      400,
      'VALIDATION_FAILED',
      'council: must be the council’s address (its MultiSig DeleGator)',
    )
    await refusedWritingNothing(
      () => get('/council/v1/proposals', `council=${draft.council}`),
      401,
      'AUTH_REQUIRED',
      'x-api-key or authorization: must be a read key or the council owner’s access token to list the council',
    )
  })
})

type ObserverDraft = { delegation: Delegation; typedData: unknown; delegationHash: Hex; observer: Address; publish: string[] }
type Listed = { delegationHash: Hex; observer: Address; status: string }
type OperationDraft = { userOperation: Record<string, string>; typedData: unknown; entryPoint: Hex; grants: Hex[] }

describe("the owner's observer through the deployed handler", () => {
  let granted: Listed

  it('refuses a bad draft and a stranger’s signed grant naming the field and the rule, writing nothing', async () => {
    await refusedWritingNothing(
      () => post('/api/v1/golems/atlas/observer-draft', { observer: '0x1234' }),
      400,
      'VALIDATION_FAILED',
      'observer: must be a 20-byte 0x-prefixed hex address',
    )
    const draft = (await post('/api/v1/golems/atlas/observer-draft', { observer: observer.address })).body as ObserverDraft
    const stranger = privateKeyToAccount(generatePrivateKey())
    await refusedWritingNothing(
      async () =>
        post('/api/v1/golems/atlas/observers', {
          delegation: { ...draft.delegation, signature: await walletSigns(stranger, draft.typedData) },
        }),
      422,
      'OBSERVER_GRANT_REFUSED',
      `delegation.signature: must be the owner's signature over the delegation, valid for ${stack.owner.address} (ERC-1271 / ERC-6492)`,
    )
    await refusedWritingNothing(
      () => get('/api/v1/golems/atlas/observers'),
      401,
      'AUTH_REQUIRED',
      "x-api-key or authorization: must be a read key or the Golem owner's access token",
    )
    await refusedWritingNothing(
      () => post('/api/v1/golems/atlas/observers/revocation-draft', { delegationHash: draft.delegationHash, observer: observer.address }),
      400,
      'VALIDATION_FAILED',
      'delegationHash: exactly one of delegationHash and observer is required',
    )
  })

  it('grants the observer from the owner’s signed draft and lists it active', async () => {
    const drafted = await post('/api/v1/golems/atlas/observer-draft', { observer: observer.address })
    expect(drafted.status).toBe(200)
    const draft = drafted.body as ObserverDraft
    expect(draft.delegation).toMatchObject({ delegator: stack.owner.address, delegate: observer.address, signature: '0x' })
    const delegation = { ...draft.delegation, signature: await walletSigns(stack.owner.signer, draft.typedData) }
    const res = await post<Listed>('/api/v1/golems/atlas/observers', { delegation })
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    granted = res.body
    expect(granted).toMatchObject({ delegationHash: draft.delegationHash, observer: observer.address, status: 'active' })
    const listed = await get<{ observers: Listed[] }>('/api/v1/golems/atlas/observers', '', reader)
    expect(listed.status).toBe(200)
    expect(listed.body.observers.map((o) => [o.delegationHash, o.status])).toEqual([[granted.delegationHash, 'active']])
  })

  it('revokes it on chain with the drafted disableDelegation operation, from the owner’s own wallet; then lists it revoked', async () => {
    const { devnet, owner } = stack
    const drafted = await post('/api/v1/golems/atlas/observers/revocation-draft', { observer: observer.address })
    expect(drafted.status, JSON.stringify(drafted.body)).toBe(200)
    const draft = drafted.body as OperationDraft
    expect(draft.grants).toEqual([granted.delegationHash])
    expect(draft.userOperation.sender).toBe(owner.address)
    const signature = await walletSigns(owner.signer, draft.typedData)
    const wallet = createWalletClient({ account: owner.signer, chain: devnet.publicClient.chain, transport: http(devnet.rpcUrl) })
    const hash = await wallet.writeContract({
      address: draft.entryPoint,
      abi: entryPoint07Abi,
      functionName: 'handleOps',
      args: [[toPackedUserOperation(signedUserOperation(draft, signature))], owner.signer.address],
    })
    expect((await devnet.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success')
    const listed = await get<{ observers: Listed[] }>('/api/v1/golems/atlas/observers', '', reader)
    expect(listed.body.observers.map((o) => [o.delegationHash, o.status])).toEqual([[granted.delegationHash, 'revoked']])
    await refusedWritingNothing(
      () => post('/api/v1/golems/atlas/observers/revocation-draft', { delegationHash: granted.delegationHash }),
      409,
      'NOTHING_TO_REVOKE',
      'delegationHash: every grant it names is disabled already',
    )
  })
})

describe('IAM: the deployed handler’s DynamoDB requests for these routes', () => {
  // Every request above was checked as it was answered; here, over the whole suite, the kinds it sent.
  it('sent only actions the Api function’s statements allow', () => {
    const sent = [...new Set(recorder.operations.map((o) => `dynamodb:${o}`))].sort()
    // Single-item reads and conditional writes, and the batched read of the councils an owner's or a
    // Golem's lookup names (listing the owner's councils, a member proposing without naming the council).
    expect(sent).toEqual(['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem'])
    for (const action of sent) expect(apiActions, action).toContain(action)
  })
})
