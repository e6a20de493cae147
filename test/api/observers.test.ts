// The owner's read-only observer ("Sleepwalker") through the API on anvil, as an owner grants one: the
// observer delegation drafted from the owner's account, signed in the wallet (MetaMask's typed-data
// rules) and posted; listed to the owner signed in and the read key; the observer's key redeeming it
// through the real DelegationManager to publish the owner account's PAD vector, and refused a transfer;
// the revocation drafted as the owner's user operation, signed in the wallet and submitted by the owner's
// own EOA to EntryPoint.handleOps; then the list says revoked and publishing is refused. Every bad input
// is refused naming the field and the rule, with nothing stored.
import { createDelegation, type Delegation, type ExecutionStruct } from '@metamask/smart-accounts-kit'
import { createWalletClient, encodeFunctionData, http, parseEther, zeroAddress, type Address, type Hex } from 'viem'
import { entryPoint07Abi, toPackedUserOperation } from 'viem/account-abstraction'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as artifacts from '../../contracts/artifacts/index.ts'
import { deviceConfirmMessage, normalizeUserCode, POLL_INTERVAL_SECONDS } from '../../core/auth/deviceCode.ts'
import { OBSERVER_PUBLISH_METHODS } from '../../core/caveats/observerScope.ts'
import { grantLedgerLog } from '../../core/custody/grantLedger.ts'
import { hashApiKey, readKeyFromBytes } from '../../core/ratelimit/tiers.ts'
import type { OwnerAccount } from '../../local/devnet.ts'
import { signedUserOperation } from '../../web/src/userOperation.ts'
import { expectRefused, redeem, transferCall, USDC } from '../chain/harness.ts'
import { walletJson, walletRequest } from '../web/testWallet.ts'
import { postJson, startApiStack, type ApiStack } from './harness.ts'

let stack: ApiStack
let app: ReturnType<ApiStack['app']>
let other: OwnerAccount
let observer: PrivateKeyAccount
// The device flow's poll interval passes on this clock, not the wall's.
let skew = 0
const readKey = readKeyFromBytes(new Uint8Array(24).fill(7))

beforeAll(async () => {
  stack = await startApiStack()
  await stack.provision('atlas')
  other = await stack.devnet.createOwner({ eth: parseEther('1'), usdc: 0n })
  await stack.provision('zephyr', { owner: other })
  observer = await stack.devnet.fundedAccount()
  app = stack.app({
    config: { rateLimits: { public: 100_000 }, allowedOrigins: ['https://bardo.ai'], readApiKeyHashes: [hashApiKey(readKey)] },
    clock: { now: () => Date.now() + skew },
  })
  // The owner's EOA holds ETH, as a MetaMask user's does: it submits the owner's user operations.
  await stack.devnet.publicClient.waitForTransactionReceipt({
    hash: await stack.devnet.deployer.sendTransaction({ to: stack.owner.signer.address, value: parseEther('1') }),
  })
}, 120_000)
afterAll(async () => {
  await stack?.stop()
})

type Draft = { delegation: Delegation; typedData: unknown; delegationHash: Hex; observer: Address; publish: string[] }
type Listed = { delegationHash: Hex; observer: Address; status: string; publish: string[]; delegation: Delegation }
type OperationDraft = { userOperation: Record<string, string>; typedData: unknown; entryPoint: Hex; grants: Hex[] }
const body = async <T>(res: Response | Promise<Response>) => (await (await res).json()) as T

/** The wallet's eth_signTypedData_v4, as MetaMask answers a site. */
const sign = (account: PrivateKeyAccount, typedData: unknown) =>
  walletRequest(account, stack.devnet.deployment.chainId, 'eth_signTypedData_v4', [account.address, walletJson(typedData)]) as Promise<Hex>

/** What the store holds for a Golem's observers: its grant ledger and its events. */
const stored = async (golemId: string) => ({
  ledger: (await stack.store.readLog({ log: grantLedgerLog(golemId), limit: 1000, order: 'asc' })).length,
  events: (await stack.store.listEvents({ golemId, limit: 100 })).events.length,
})

const setPAD = (p: number, a: number, d: number): ExecutionStruct => ({
  target: stack.devnet.deployment.daimonOracle,
  value: 0n,
  callData: encodeFunctionData({ abi: artifacts.DaimonOracleAbi, functionName: 'setPAD', args: [p, a, d] }),
})
const padOf = (who: Address) =>
  stack.devnet.publicClient.readContract({
    address: stack.devnet.deployment.daimonOracle,
    abi: artifacts.DaimonOracleAbi,
    functionName: 'getPAD',
    args: [who],
  })

/** The owner (or anyone else) signs in through the device flow, as `bardo login` does. */
async function signIn(who: { address: Address; signMessage: (m: { message: string }) => Promise<Hex> }): Promise<string> {
  const start = await body<{ device_code: string; user_code: string }>(postJson(app, '/api/v1/auth/device', {}))
  const message = deviceConfirmMessage({
    userCode: normalizeUserCode(start.user_code),
    owner: who.address,
    chainId: stack.devnet.deployment.chainId,
    decision: 'approve',
  })
  const confirmed = await postJson(app, '/api/v1/auth/device/confirm', {
    userCode: start.user_code,
    owner: who.address,
    decision: 'approve',
    signature: await who.signMessage({ message }),
  })
  expect(confirmed.status).toBe(200)
  skew += POLL_INTERVAL_SECONDS * 1000
  const token = await postJson(app, '/api/v1/auth/token', {
    grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
    device_code: start.device_code,
  })
  expect(token.status).toBe(200)
  return (await body<{ access_token: string }>(token)).access_token
}

describe("the owner's observer through the API", () => {
  let granted: Listed

  it('refuses a bad draft naming the field and the rule, drafting nothing', async () => {
    for (const [request, message] of [
      [{ observer: '0x1234' }, /^observer: must be a 20-byte 0x-prefixed hex address/],
      [{}, /^observer: /],
      [{ observer: zeroAddress }, /^observer: must be a non-zero 20-byte hex address/],
      [{ observer: stack.owner.address }, /^observer: must differ from the delegator/],
      [{ observer: observer.address, publish: ['transfer'] }, /^publish\.0: must be one of startDream, endDream, setPAD/],
      [{ observer: observer.address, publish: [] }, /^publish: must name at least one publish method/],
      [{ observer: observer.address, expiresAt: 1 }, /^expiresAt: 1 is not after now/],
      [{ observer: observer.address, expiresAt: 'soon' }, /^expiresAt: must be a number/],
      [{ observer: observer.address, maxCalls: 0 }, /^maxCalls: must be at least 1/],
      [{ observer: observer.address, to: observer.address }, /^body: Unrecognized key: "to"|^to: /],
    ] as const) {
      const res = await postJson(app, '/api/v1/golems/atlas/observer-draft', request)
      expect(res.status, JSON.stringify(request)).toBe(400)
      expect(await res.json()).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(message) })
    }
    const missing = await postJson(app, '/api/v1/golems/nobody/observer-draft', { observer: observer.address })
    expect(missing.status).toBe(404)
  })

  it("drafts the observer delegation from the owner's account: the Dream and Daimon oracles, the publish methods, no value", async () => {
    const before = await stored('atlas')
    const draft = await body<Draft>(postJson(app, '/api/v1/golems/atlas/observer-draft', { observer: observer.address }))
    expect(draft.delegation).toMatchObject({ delegator: stack.owner.address, delegate: observer.address, signature: '0x' })
    expect(draft.publish).toEqual(['startDream', 'endDream', 'setPAD'])
    expect(draft).toMatchObject({ expiresAt: null, maxCalls: null })
    expect((draft.typedData as { primaryType: string }).primaryType).toBe('Delegation')
    const narrow = await body<Draft & { expiresAt: number; maxCalls: number }>(
      postJson(app, '/api/v1/golems/atlas/observer-draft', {
        observer: observer.address,
        publish: ['setPAD'],
        expiresAt: Math.floor(Date.now() / 1000) + 3600,
        maxCalls: 5,
      }),
    )
    expect(narrow).toMatchObject({ publish: ['setPAD'], maxCalls: 5 })
    expect(await stored('atlas')).toEqual(before)
  })

  it("refuses a stranger's signature, a scope wider than an observer's, and another owner's Golem, storing nothing", async () => {
    const before = { atlas: await stored('atlas'), zephyr: await stored('zephyr') }
    const draft = await body<Draft>(postJson(app, '/api/v1/golems/atlas/observer-draft', { observer: observer.address }))
    const refused = async (golem: string, delegation: Delegation, field: string, message: RegExp) => {
      const res = await postJson(app, `/api/v1/golems/${golem}/observers`, { delegation })
      expect(res.status, field).toBe(422)
      expect(await res.json()).toMatchObject({
        code: 'OBSERVER_GRANT_REFUSED',
        details: { field },
        message: expect.stringMatching(message),
      })
    }
    // A stranger signs the owner's draft: the owner's account (ERC-1271) does not accept it.
    const stranger = privateKeyToAccount(generatePrivateKey())
    await refused(
      'atlas',
      { ...draft.delegation, signature: await sign(stranger, draft.typedData) },
      'delegation.signature',
      /^delegation\.signature: must be the owner's signature over the delegation, valid for 0x/,
    )
    // The owner signs a delegation wider than an observer's: a token among its targets, a transfer among its methods.
    const { deployment } = stack.devnet
    const wide = createDelegation({
      environment: deployment.environment,
      from: stack.owner.address,
      to: observer.address,
      scope: {
        type: 'functionCall',
        targets: [deployment.daimonOracle, deployment.assets.usdc],
        selectors: [OBSERVER_PUBLISH_METHODS.setPAD, '0xa9059cbb'],
        valueLte: { maxValue: 0n },
      },
    })
    await refused(
      'atlas',
      { ...wide, signature: await stack.owner.smartAccount.signDelegation({ delegation: wide }) },
      'delegation.caveats.allowedTargets',
      /includes the token USDC \(0x[0-9a-fA-F]{40}\), which holds value; an observer delegation may call only the DreamOracle and the DaimonOracle/,
    )
    const valued = createDelegation({
      environment: deployment.environment,
      from: stack.owner.address,
      to: observer.address,
      scope: {
        type: 'functionCall',
        targets: [deployment.daimonOracle],
        selectors: [OBSERVER_PUBLISH_METHODS.setPAD],
        valueLte: { maxValue: 1n },
      },
    })
    await refused(
      'atlas',
      { ...valued, signature: await stack.owner.smartAccount.signDelegation({ delegation: valued }) },
      'delegation.caveats.valueLte',
      /^delegation\.caveats\.valueLte: allows 1 wei: an observer delegation must hold ValueLte\(0\)/,
    )
    // The owner's own observer grant, posted for a Golem of another owner.
    const signed = { ...draft.delegation, signature: await sign(stack.owner.signer, draft.typedData) }
    await refused('zephyr', signed, 'delegation.delegator', /^delegation\.delegator: must be the Golem's owner 0x/)
    // Not even a delegation: the schema names the field.
    const bad = await postJson(app, '/api/v1/golems/atlas/observers', { delegation: { ...signed, delegate: '0x1234' } })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(/^delegation\.delegate: must be a 20-byte/),
    })
    expect({ atlas: await stored('atlas'), zephyr: await stored('zephyr') }).toEqual(before)
  })

  it("grants: the owner's signed draft is kept once, in the grant ledger and the Golem's events", async () => {
    const before = await stored('atlas')
    const draft = await body<Draft>(postJson(app, '/api/v1/golems/atlas/observer-draft', { observer: observer.address }))
    const delegation = { ...draft.delegation, signature: await sign(stack.owner.signer, draft.typedData) }
    const res = await postJson(app, '/api/v1/golems/atlas/observers', { delegation })
    expect(res.status).toBe(201)
    granted = await body<Listed>(res)
    expect(granted).toMatchObject({ delegationHash: draft.delegationHash, observer: observer.address, status: 'active' })
    const again = await postJson(app, '/api/v1/golems/atlas/observers', { delegation })
    expect(again.status).toBe(200)
    expect(await stored('atlas')).toEqual({ ledger: before.ledger + 1, events: before.events + 1 })
    const events = (await stack.store.listEvents({ golemId: 'atlas', limit: 100 })).events
    expect(events.find((e) => e.type === 'ObserverGranted')?.data).toMatchObject({ delegationHash: draft.delegationHash })
  })

  it('lists the observers to the read key and the owner signed in, and to nobody else', async () => {
    const path = '/api/v1/golems/atlas/observers'
    const anonymous = await app.request(path)
    expect(anonymous.status).toBe(401)
    expect(await anonymous.json()).toMatchObject({ code: 'AUTH_REQUIRED' })
    const strangerToken = await signIn(privateKeyToAccount(generatePrivateKey()))
    const stranger = await app.request(path, { headers: { authorization: `Bearer ${strangerToken}` } })
    expect(stranger.status).toBe(403)
    expect(await stranger.json()).toMatchObject({ code: 'NOT_GOLEM_OWNER' })
    const otherOwner = await app.request(path, { headers: { authorization: `Bearer ${await signIn(other.smartAccount)}` } })
    expect(otherOwner.status).toBe(403)
    const owner = await body<{ owner: Address; observers: Listed[] }>(
      app.request(path, { headers: { authorization: `Bearer ${await signIn(stack.owner.smartAccount)}` } }),
    )
    expect(owner.owner).toBe(stack.owner.address)
    expect(owner.observers).toEqual([granted])
    const read = await body<{ observers: Listed[] }>(app.request(path, { headers: { 'x-api-key': readKey } }))
    expect(read.observers).toEqual([granted])
  })

  it('the observer key publishes with the grant, from the owner account, and is refused a transfer', async () => {
    const { devnet } = stack
    await redeem(devnet, observer, [granted.delegation], [setPAD(40, -20, 10)])
    expect(await padOf(stack.owner.address)).toEqual([40, -20, 10])
    expect(await padOf(observer.address)).toEqual([0, 0, 0])
    const transfer = transferCall(devnet.deployment.assets.usdc, observer.address, USDC(1))
    await expectRefused(devnet, observer, [granted.delegation], [transfer], 'Error', ['AllowedTargetsEnforcer:target-address-not-allowed'])
  })

  it("revokes through the owner's own wallet: the drafted user operation signed and sent to handleOps; then the list says revoked and publishing is refused", async () => {
    const { devnet, owner } = stack
    for (const [request, status, code] of [
      [{}, 400, 'VALIDATION_FAILED'],
      [{ delegationHash: granted.delegationHash, observer: observer.address }, 400, 'VALIDATION_FAILED'],
      [{ delegationHash: `0x${'11'.repeat(32)}` }, 404, 'OBSERVER_NOT_FOUND'],
      [{ observer: '0xnope' }, 400, 'VALIDATION_FAILED'],
    ] as const) {
      const res = await postJson(app, '/api/v1/golems/atlas/observers/revocation-draft', request)
      expect(res.status, JSON.stringify(request)).toBe(status)
      expect(await res.json()).toMatchObject({ code })
    }
    const draft = await body<OperationDraft>(
      postJson(app, '/api/v1/golems/atlas/observers/revocation-draft', { observer: observer.address }),
    )
    expect(draft.grants).toEqual([granted.delegationHash])
    expect(draft.userOperation.sender).toBe(owner.address)
    const signature = await sign(owner.signer, draft.typedData)
    const ownerWallet = createWalletClient({ account: owner.signer, chain: devnet.publicClient.chain, transport: http(devnet.rpcUrl) })
    const hash = await ownerWallet.writeContract({
      address: draft.entryPoint,
      abi: entryPoint07Abi,
      functionName: 'handleOps',
      args: [[toPackedUserOperation(signedUserOperation(draft, signature))], owner.signer.address],
    })
    expect((await devnet.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success')

    const listed = await body<{ observers: Listed[] }>(app.request('/api/v1/golems/atlas/observers', { headers: { 'x-api-key': readKey } }))
    expect(listed.observers.map((o) => [o.delegationHash, o.status])).toEqual([[granted.delegationHash, 'revoked']])
    await expectRefused(devnet, observer, [granted.delegation], [setPAD(1, 2, 3)], 'CannotUseADisabledDelegation')
    expect(await padOf(owner.address)).toEqual([40, -20, 10])
    const again = await postJson(app, '/api/v1/golems/atlas/observers/revocation-draft', { delegationHash: granted.delegationHash })
    expect(again.status).toBe(409)
    expect(await again.json()).toMatchObject({ code: 'NOTHING_TO_REVOKE' })
  })
})
