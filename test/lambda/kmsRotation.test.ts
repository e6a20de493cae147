// Key rotation in the deployed tick, on anvil and dynalite, with every Golem key in KMS (aws-sdk-client-mock
// answering from a FakeKms: GetPublicKey with SPKI keys, Sign with real secp256k1 DER signatures, high-s
// every other time, CreateKey and CreateAlias). The new key is created for the rotation, tagged for the
// Golem, exactly once across a crash and concurrent ticks (the intent written in the store first, the key
// found by its alias); where the platform holds the ERC-7715 Session Account's key it re-delegates the
// owner's permission to the new key, and where only the owner can sign (a direct grant) the tick records
// one owner renewal request and keeps the old key. A crash after the oracle moved the identity and a
// duplicate invoke change nothing twice.
import { KMSClient } from '@aws-sdk/client-kms'
import { signDelegation, type Delegation } from '@metamask/smart-accounts-kit'
import { hashDelegation } from '@metamask/smart-accounts-kit/utils'
import { mockClient } from 'aws-sdk-client-mock'
import { hexToBytes, isAddressEqual, parseEther, toHex, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import { KmsSignerResolver } from '../../adapters/signers/kmsSignerResolver.ts'
import { MemoryKey } from '../../core/custody/memoryKey.ts'
import { SessionKey } from '../../core/custody/index.ts'
import { buildRunwayRedelegation, DelegationTree, smartAccountSigner } from '../../core/delegations/index.ts'
import { parseGolemProfile, serializeGolemProfile, type GolemProfile } from '../../core/lifecycle/profile.ts'
import { GAS_BOOTSTRAP } from '../../core/lifecycle/gasPlan.ts'
import { grantLedgerLog } from '../../core/custody/grantLedger.ts'
import type { Store } from '../../core/store/index.ts'
import {
  KEY_CREATION_LEASE_MS,
  keyCreationIntent,
  KmsKeyRotation,
  ROTATION_RENEWAL_REQUESTED,
  RotationKeyOwnerError,
  RotationKeyPendingError,
  rotationClaimant,
} from '../../adapters/signers/kmsRotation.ts'
import { rotationAlias } from '../../adapters/signers/kmsKeyNames.ts'
import { handler as tickHandler } from '../../functions/tick/handler.ts'
import { createLocalApi } from '../../functions/api/local.ts'
import { encodeTickPayload } from '../../app/heartbeat/tickPayload.ts'
import { runTick } from '../../app/tick/runTick.ts'
import { devnetAccount, type OwnerAccount } from '../../local/devnet.ts'

import { answerFromFake, FakeKms, KmsFault } from './fakeKms.ts'
import { startDynamoRecorder, type DynamoRecorder } from './dynamoRecorder.ts'
import { allowedActions } from './stackIam.ts'
import {
  DAY,
  allEvents,
  chainNow,
  passStaggerOffsets,
  redemptionsBy,
  sentCount,
  startHeartbeatEnv,
  type HeartbeatEnv,
  WHOLE_RUNWAY_ON_KEY,
} from '../heartbeat/harness.ts'
import { storeWith } from '../support/storeWith.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY =
  '---\nname: kms-rotating-golem\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 30\n---\n\nSwap a little USDC into WETH every day.\n'
const arn = (name: string) => `arn:aws:kms:us-east-1:111122223333:key/${name}`
const PREFIX = 'alias/bardo-custody/test'

/** The keys onboarding made: the two Golems' keys and the Session Account's. */
const keys: Record<string, Hex> = Object.fromEntries(
  ['golem-direct', 'golem-7715', 'session-account'].map((n) => [arn(n), generatePrivateKey()]),
)
const addressOf = (keyId: string) => privateKeyToAccount(keys[keyId]!).address
const fake = new FakeKms(keys)

const kms = mockClient(KMSClient)
const kmsClient = () => new KMSClient({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } })
/** A tick's own rotation (a fresh instance, as a separate Lambda would hold), its clock `laterMs` ahead. */
const newRotation = (laterMs = 0) =>
  new KmsKeyRotation({
    deployment: env.devnet.deployment,
    client: env.client,
    store: env.store,
    aliasPrefix: PREFIX,
    kms: kmsClient(),
    nowMs: () => Date.now() + laterMs,
  })
let env: HeartbeatEnv
let signers: KmsSignerResolver
let rotation: KmsKeyRotation

const tick = (golemId: string, overrides: { store?: Store } = {}) =>
  runTick(env.deps(`inv-${golemId}-${Math.random()}`, { signers, rotation, ...overrides }), { golemId })
const phaseOf = (key: Address) =>
  env.client.readContract({ address: env.devnet.deployment.vitalityOracle, abi: VitalityOracleAbi, functionName: 'getPhase', args: [key] })
const profileOf = async (golemId: string) => parseGolemProfile((await env.store.getGolem(golemId))!.profile)
const fund = async (address: Address) =>
  env.client.waitForTransactionReceipt({ hash: await env.devnet.deployer.sendTransaction({ to: address, value: parseEther('1') }) })

/** Provisions a Golem whose session key is a KMS key (the profile names it by ARN, as on AWS). */
async function kmsGolem(golemId: string, keyId: string, owner: OwnerAccount) {
  const now = await chainNow(env.client)
  const sessionKey = SessionKey.fromMemoryKey(MemoryKey.fromBytes(hexToBytes(keys[keyId]!)), {
    expiresAt: Number(now) + 30 * DAY,
    initialBudget: 0n,
    now: Number(now),
  })
  const golem = await provisionGolemIn(env, golemId, {
    keyCeiling: WHOLE_RUNWAY_ON_KEY,
    owner,
    strategy: STRATEGY,
    sessionKey,
    runwayDays: 30,
  })
  sessionKey.zero()
  return golem
}

async function setProfile(golemId: string, profile: GolemProfile) {
  const record = (await env.store.getGolem(golemId))!
  const saved = await env.store.updateGolem({
    golemId,
    expectedVersion: record.version,
    patch: { profile: serializeGolemProfile(profile) },
    now: Date.now(),
  })
  expect(saved.updated).toBe(true)
}

/** Every AWS request the deployed tick handler sent, as IAM actions: its DynamoDB traffic passes a recorder, its KMS commands are the mock's. */
let tickTable: DynamoRecorder
const tickKms: string[] = []
async function invokeTick(golemId: string, awsRequestId: string) {
  const before = kms.calls().length
  try {
    return await tickHandler(encodeTickPayload([{ golemId }]), { awsRequestId })
  } finally {
    tickKms.push(
      ...kms
        .calls()
        .slice(before)
        .map((c) => `kms:${c.args[0].constructor.name.replace(/Command$/, '')}`),
    )
  }
}

let directOwner: OwnerAccount
let owner7715: OwnerAccount
const sessionAccount = addressOf(arn('session-account'))

beforeAll(async () => {
  answerFromFake(kms, () => fake)
  env = await startHeartbeatEnv()
  signers = new KmsSignerResolver(env.devnet.deployment, kmsClient())
  rotation = newRotation()
  ;[directOwner, owner7715] = [await env.devnet.createOwner(), await env.devnet.createOwner()]

  // A direct grant: the owner's smart account delegates to the KMS key; only the owner can renew it.
  await kmsGolem('kms-direct', arn('golem-direct'), directOwner)
  await setProfile('kms-direct', { ...(await profileOf('kms-direct')), signer: { kind: 'kms', keyId: arn('golem-direct') } })

  // The ERC-7715 shape: owner -> Session Account (a periodic permission), Session Account -> the KMS key.
  const golem = await kmsGolem('kms-7715', arn('golem-7715'), owner7715)
  const provisioned = golem.profile
  const { deployment } = env.devnet
  const now = await chainNow(env.client)
  const tree = new DelegationTree({ environment: deployment.environment, deployment, now: () => now })
  const r = buildRunwayRedelegation({
    tree,
    permission: {
      owner: owner7715.address,
      sessionAccount,
      token: provisioned.runway.token,
      periodAmount: provisioned.runway.periodAmount,
      periodDuration: Number(provisioned.runway.periodDuration),
      startTime: Number(provisioned.runway.periodStart),
    },
    executionKey: golem.golemKey,
    bardo: [{ type: 'golemPhase', golem: golem.golemKey, startTime: now, endTime: provisioned.runway.expiresAt }],
  })
  const parent = await tree.sign(r.parent.hash, smartAccountSigner(owner7715.smartAccount))
  await tree.sign(r.child.hash, (delegation) =>
    signDelegation({
      privateKey: keys[arn('session-account')]!,
      delegation,
      delegationManager: deployment.environment.DelegationManager,
      chainId: deployment.chainId,
    }),
  )
  const periodEnforcer = deployment.environment.caveatEnforcers.ERC20PeriodTransferEnforcer as Address
  const { gas: _direct, ...rest } = provisioned
  await setProfile('kms-7715', {
    ...rest,
    signer: { kind: 'kms', keyId: arn('golem-7715') },
    sessionAccount: { address: sessionAccount, signer: { kind: 'kms', keyId: arn('session-account') } },
    runway: {
      ...provisioned.runway,
      chain: r.chain(),
      periodDelegationHash: r.parent.hash,
      periodTerms: parent.caveats.find((c) => isAddressEqual(c.enforcer, periodEnforcer))!.terms,
      chainHashes: [r.child.hash, r.parent.hash],
    },
  })
  await fund(golem.golemKey)
  // Whole days later each tick is past the Golem's stagger offset, so every period's tick redeems.
  await passStaggerOffsets(env.devnet, ['kms-direct', 'kms-7715'])
}, 240_000)

afterAll(async () => {
  await tickTable?.stop()
  kms.restore()
  await env?.stop()
})

describe('rotation in the deployed tick, keys created in KMS', () => {
  it('a young key is not due: both Golems redeem day 0 through KMS and keep their keys', async () => {
    for (const id of ['kms-direct', 'kms-7715']) {
      const result = await tick(id)
      expect(result.redemption?.status, id).toBe('confirmed')
      expect(result.rotated).toBeUndefined()
    }
    expect(await redemptionsBy(env.client, env.devnet.deployment.environment.DelegationManager, addressOf(arn('golem-7715')))).toHaveLength(
      1,
    )
    expect(fake.signCalls).toBeGreaterThan(0)
    expect(fake.created).toEqual([])
  })

  it('past seven days, the Session Account re-delegates to a key created for the rotation; a crash after the oracle moved and a duplicate invoke rotate once', async () => {
    await env.devnet.increaseTime(7 * DAY + 60)
    const oldKey = addressOf(arn('golem-7715'))
    const operator = env.devnet.operator.account.address
    const operatorBefore = await sentCount(env.client, operator)

    // The store refuses the write that switches the Golem to its new key: the tick dies after the oracle moved it.
    const dying: Store = storeWith(env.store, {
      updateGolem: (input) =>
        input.patch.sessionKeyAddress !== undefined
          ? Promise.reject(new Error('crash before the profile switch'))
          : env.store.updateGolem(input),
    })
    await expect(tick('kms-7715', { store: dying })).rejects.toThrow(/crash before the profile switch/)
    const pending = (await profileOf('kms-7715')).pendingRotation!
    // One key, created for this rotation, tagged for the Golem and named from the key it replaces.
    expect(fake.created).toHaveLength(1)
    const [created] = fake.created
    expect(fake.tags.get(created!)).toEqual({ 'bardo:stage': 'test', 'bardo:role': 'session-key', 'bardo:golem': 'kms-7715' })
    expect(fake.aliases.get(rotationAlias(PREFIX, 'kms-7715', oldKey))).toBe(created)
    expect(pending.to).toBe(addressOf(created!))
    expect(pending.signer).toEqual({ kind: 'kms', keyId: created })
    expect(pending.runway.chain[0]).toMatchObject({ delegator: sessionAccount, delegate: pending.to })
    expect(pending.runway.chainHashes[0]).toBe(hashDelegation(pending.runway.chain[0]!)) // the DelegationManager's hash
    expect(await phaseOf(oldKey)).toEqual([false, 0])
    expect(await phaseOf(pending.to)).toEqual([true, 0])
    expect(await sentCount(env.client, operator)).toBe(operatorBefore + 1)

    // A duplicate invoke: two deliveries at once finish the same rotation, with no second oracle transaction.
    const [a, b] = await Promise.all([tick('kms-7715'), tick('kms-7715')])
    expect([a, b].filter((r) => r.rotated)).toHaveLength(1)
    const profile = await profileOf('kms-7715')
    expect(profile.golemKey).toBe(pending.to)
    expect(profile.signer).toEqual({ kind: 'kms', keyId: fake.created[0] })
    expect(fake.created).toHaveLength(1)
    expect(profile.pendingRotation).toBeUndefined()
    expect(profile.runway.chainHashes[1]).toBe(pending.runway.chainHashes[1]) // the owner's permission is unchanged
    expect(profile.keyGrantedAt).toBe(pending.at)
    expect(await sentCount(env.client, operator)).toBe(operatorBefore + 1)
    const events = (await allEvents(env.store, 'kms-7715')).filter((e) => e.type === 'SessionKeyRotated')
    expect(events.map((e) => [e.data.oldAddress, e.data.newAddress])).toEqual([[oldKey, pending.to]])
    expect(await env.store.getPoolKeyClaim(fake.created[0]!)).toMatchObject({
      claimant: rotationClaimant(oldKey),
      address: pending.to.toLowerCase(),
    })

    // A fresh key is not due: later ticks neither rotate again nor create another key.
    expect((await tick('kms-7715')).rotated).toBeUndefined()
    expect(fake.created).toHaveLength(1)
  })

  it("the new key redeems the next period through the Session Account's re-delegation, and the old key can no longer", async () => {
    const newKey = addressOf(fake.created[0]!)
    await fund(newKey)
    await env.devnet.increaseTime(DAY)
    const result = await tick('kms-7715')
    expect(result.redemption?.status).toBe('confirmed')
    const dm = env.devnet.deployment.environment.DelegationManager
    expect(await redemptionsBy(env.client, dm, newKey)).toHaveLength(1)
    // Day 0 and day 7 by the old key; nothing after the rotation.
    expect(await redemptionsBy(env.client, dm, addressOf(arn('golem-7715')))).toHaveLength(2)
  })

  it('exactly one key for a rotation across a crash and concurrent ticks: the intent is written first, the key found by its alias', async () => {
    const profile = await profileOf('kms-direct')
    const alias = rotationAlias(PREFIX, 'kms-direct', profile.golemKey)
    const before = fake.created.length
    // A tick wrote the intent and died before CreateKey: within its lease, four concurrent ticks wait for
    // it rather than create a second key.
    const dead = await env.store.claimPoolKey({
      keyId: keyCreationIntent(alias, 0),
      address: profile.golemKey,
      claimant: 'key-creation:dead-tick',
      now: Date.now(),
    })
    expect(dead.claimed).toBe(true)
    const waiting = await Promise.allSettled([1, 2, 3, 4].map(() => newRotation().newKey(profile)))
    for (const r of waiting) expect(r.status === 'rejected' && r.reason).toBeInstanceOf(RotationKeyPendingError)
    expect(fake.created).toHaveLength(before)

    // Past the lease the dead tick is certainly gone: of four concurrent ticks one takes over and creates
    // the key, and dies too after naming it (KMS refuses its first read of the new key while the key's
    // tags are not yet effective for authorisation).
    const refused = new Set<string>()
    fake.fault = (operation, input) => {
      if (operation !== 'GetPublicKey' || !fake.created.includes(input.KeyId!) || refused.has(input.KeyId!)) return
      refused.add(input.KeyId!)
      throw new KmsFault('AccessDeniedException', 'not authorized yet')
    }
    const later = KEY_CREATION_LEASE_MS + 1
    const racing = await Promise.allSettled([1, 2, 3, 4].map(() => newRotation(later).newKey(profile)))
    fake.fault = undefined
    expect(fake.created).toHaveLength(before + 1)
    const keyId = fake.created.at(-1)!
    expect(fake.aliases.get(alias)).toBe(keyId)
    expect(racing.filter((r) => r.status === 'rejected' && /AccessDeniedException/.test(String(r.reason)))).toHaveLength(1)
    // The next tick finds the key by its alias; every tick that got a key got this one.
    const found = await newRotation(later).newKey(profile)
    expect(found).toEqual({ address: addressOf(keyId), signer: { kind: 'kms', keyId } })
    for (const r of racing) if (r.status === 'fulfilled') expect(r.value).toEqual(found)
    expect(fake.created).toHaveLength(before + 1)
    expect(fake.tags.get(keyId)).toEqual({ 'bardo:stage': 'test', 'bardo:role': 'session-key', 'bardo:golem': 'kms-direct' })
    expect(await env.store.findPoolKeyClaim(rotationClaimant(profile.golemKey))).toMatchObject({
      keyId,
      address: addressOf(keyId).toLowerCase(),
    })
  })

  it('through the Lambda handler (its rotation wired from BARDO_KMS_ALIAS_PREFIX), a direct grant only the owner can renew: one owner renewal request, the created key held for it, no rotation', async () => {
    // The tick function's environment as stacks/functions.ts sets it, the AWS endpoints pointed here.
    Object.assign(process.env, {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_ENDPOINT_URL_DYNAMODB: (tickTable ??= await startDynamoRecorder(env.dynalite.endpoint)).endpoint,
      BARDO_CHAIN_ID: String(env.devnet.deployment.chainId),
      BARDO_DEPLOYMENT: JSON.stringify(env.devnet.deployment, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
      BARDO_TABLE_NAME: env.tableName,
      BARDO_KMS_ALIAS_PREFIX: PREFIX,
      BARDO_SECRET_RPC_URL: env.devnet.rpcUrl,
      BARDO_SECRET_OPERATOR_KEY: toHex(devnetAccount(1).getHdKey().privateKey!),
    })
    const oldKey = addressOf(arn('golem-direct'))
    const operatorBefore = await sentCount(env.client, env.devnet.operator.account.address)
    for (let i = 0; i < 3; i++) {
      const [result] = await invokeTick('kms-direct', `req-direct-${i}`)
      expect(result!.outcome).toBe('ticked')
      expect(result!.rotated).toBeUndefined()
    }
    const profile = await profileOf('kms-direct')
    expect(profile.golemKey).toBe(oldKey)
    expect(profile.pendingRotation).toBeUndefined()
    // The profile says the rotation waits for the owner, once (the first tick's time), for its health to say.
    expect(profile.rotationAwaits).toMatchObject({ to: addressOf(fake.created.at(-1)!) })
    expect((await phaseOf(oldKey))[0]).toBe(true)
    expect(await sentCount(env.client, env.devnet.operator.account.address)).toBe(operatorBefore)
    const requests = (await allEvents(env.store, 'kms-direct')).filter((e) => e.type === ROTATION_RENEWAL_REQUESTED)
    expect(requests).toHaveLength(1)
    const keyId = fake.created.at(-1)!
    expect(requests[0]!.data).toMatchObject({ oldAddress: oldKey, newAddress: addressOf(keyId) })
    expect(await env.store.getPoolKeyClaim(keyId)).toMatchObject({ claimant: rotationClaimant(oldKey) })
    expect(fake.created).toHaveLength(2)
  })

  it('the owner answers through the API with a grant to the new key: refused answers keep nothing, the next tick rotates to it and the new key redeems', async () => {
    const api = createLocalApi({
      store: env.store,
      publicClient: env.devnet.publicClient as never,
      deployment: env.devnet.deployment,
      operator: env.devnet.operator.account.address,
      settlement: devnetAccount(2),
    })
    const oldKey = addressOf(arn('golem-direct'))
    const keyId = fake.created.at(-1)!
    const newKey = addressOf(keyId)
    const rotationHealth = async () => {
      const res = await api.request('/api/v1/golems/kms-direct/permission-health')
      expect(res.status).toBe(200)
      return (await res.json()) as { reason: string; rotation: { status: string; old_key: Address; new_key: Address } | null }
    }
    // Until the owner answers, the Golem's health says that it keeps its old key.
    const waiting = await rotationHealth()
    expect(waiting.rotation).toMatchObject({ status: 'awaiting-owner', old_key: oldKey, new_key: newKey })
    expect(waiting.reason).toMatch(/its key rotation waits for the owner's grant to the new key: it keeps its old key meanwhile$/)
    const draftRes = await api.request('/api/v1/golems/kms-direct/rotation-grant-draft', { method: 'POST' })
    expect(draftRes.status).toBe(200)
    const draft = (await draftRes.json()) as {
      delegation: Delegation
      to: Address
      periodStart: number
      expiresAt: number
      gas?: { delegation: Delegation }
    }
    expect(draft.to).toBe(newKey)
    expect(draft.delegation.delegate).toBe(newKey)
    // The old key had the owner's gas grant, which names it only: the draft carries one to the new key.
    expect(draft.gas?.delegation.delegate).toBe(newKey)
    const gasDraft = draft.gas!.delegation
    const answer = (delegation: Delegation, gas?: Delegation) =>
      api.request('/api/v1/golems/kms-direct/rotation-grant', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ delegation, ...(gas ? { gas } : {}) }),
      })
    const ownerSigned = async (delegation: Delegation) => ({
      ...delegation,
      signature: await directOwner.smartAccount.signDelegation({ delegation }),
    })
    const before = await env.store.getGolem('kms-direct')
    const ledgerBefore = await env.store.readLog({ log: grantLedgerLog('kms-direct'), limit: 500 })
    const signed = await ownerSigned(draft.delegation)
    const signedGas = await ownerSigned(gasDraft)
    const refusals: [string, Response][] = [
      // Signed by another account than the owner's: refused naming the signature, nothing kept.
      [
        'delegation.signature',
        await answer(
          { ...draft.delegation, signature: await owner7715.smartAccount.signDelegation({ delegation: draft.delegation }) },
          signedGas,
        ),
      ],
      // A grant to the old key is no answer to the rotation: refused naming the delegate.
      ['delegation.delegate', await answer(await ownerSigned({ ...draft.delegation, delegate: oldKey }), signedGas)],
      // Without the gas grant the new key could never top itself up: refused naming it.
      ['gas', await answer(signed)],
      ['gas.delegate', await answer(signed, await ownerSigned({ ...gasDraft, delegate: oldKey }))],
      [
        'gas.signature',
        await answer(signed, { ...gasDraft, signature: await owner7715.smartAccount.signDelegation({ delegation: gasDraft }) }),
      ],
    ]
    for (const [field, res] of refusals) {
      expect(res.status, field).toBe(422)
      expect(await res.json(), field).toMatchObject({ code: 'ROTATION_GRANT_REFUSED', details: { field } })
    }
    expect((await env.store.getGolem('kms-direct'))!.version).toBe(before!.version)
    expect(await env.store.readLog({ log: grantLedgerLog('kms-direct'), limit: 500 })).toHaveLength(ledgerBefore.length)

    const kept = await answer(signed, signedGas)
    expect(kept.status).toBe(200)
    expect(await kept.json()).toMatchObject({
      golemId: 'kms-direct',
      to: newKey,
      periodStart: draft.periodStart,
      gasDelegationHash: hashDelegation(signedGas),
    })
    expect((await profileOf('kms-direct')).rotationGrant).toMatchObject({
      to: newKey,
      periodDelegationHash: hashDelegation(signed),
      gas: { periodDelegationHash: hashDelegation(signedGas) },
    })
    expect((await rotationHealth()).rotation).toMatchObject({ status: 'answered', new_key: newKey })

    // The next tick rotates with the owner's grants: the identity moves, the profile names the new KMS key
    // and its gas grant, and the operator fronts the empty new key its first gas, as at onboarding.
    const operatorBefore = await sentCount(env.client, env.devnet.operator.account.address)
    const [result] = await invokeTick('kms-direct', 'req-direct-answered')
    expect(result!.rotated).toMatchObject({ from: oldKey, to: newKey })
    const profile = await profileOf('kms-direct')
    expect(profile).toMatchObject({ golemKey: newKey, signer: { kind: 'kms', keyId } })
    expect(profile.gas?.chain[0]?.delegate).toBe(newKey)
    expect(await env.client.getBalance({ address: newKey })).toBe(GAS_BOOTSTRAP)
    expect(await sentCount(env.client, env.devnet.operator.account.address)).toBe(operatorBefore + 2)
    expect(profile.rotationGrant).toBeUndefined()
    expect(profile.pendingRotation).toBeUndefined()
    expect(profile.rotationAwaits).toBeUndefined()
    expect((await rotationHealth()).rotation).toBeNull()
    expect(profile.runway.periodDelegationHash).toBe(hashDelegation(signed))
    expect((await phaseOf(newKey))[0]).toBe(true)
    // Nothing waits any more: no draft, and the same answer again is refused naming the Golem.
    const none = await api.request('/api/v1/golems/kms-direct/rotation-grant-draft', { method: 'POST' })
    expect(none.status).toBe(400)
    expect(await none.json()).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/^golem: no key rotation waits/) })
    const again = await answer(signed)
    expect(again.status).toBe(422)
    expect(await again.json()).toMatchObject({ code: 'ROTATION_GRANT_REFUSED', details: { field: 'golemId' } })
    // From the grants' first period on, the new key tops its gas up under the owner's gas grant, paying
    // for it from what the operator fronted, and redeems the runway under the owner's runway grant.
    const now = await chainNow(env.client)
    if (now < BigInt(draft.periodStart)) await env.devnet.increaseTime(BigInt(draft.periodStart) - now + 1n)
    await passStaggerOffsets(env.devnet, ['kms-direct'], profile.runway.periodDuration)
    const [after] = await invokeTick('kms-direct', 'req-direct-new-key')
    expect(after!.gas).toMatchObject({ status: 'confirmed' })
    expect(after!.redemption).toMatchObject({ status: 'confirmed' })
    const dm = env.devnet.deployment.environment.DelegationManager
    expect((await redemptionsBy(env.client, dm, newKey)).length).toBe(2)
    expect(await env.client.getBalance({ address: newKey })).toBeGreaterThan(GAS_BOOTSTRAP)
  })

  it('a key no Golem holds is refused by name: no intent, no key, no claim', async () => {
    const before = fake.created.length
    const stranger = { ...(await profileOf('kms-direct')), golemKey: privateKeyToAccount(generatePrivateKey()).address }
    await expect(newRotation().newKey(stranger)).rejects.toThrow(RotationKeyOwnerError)
    await expect(newRotation().newKey(stranger)).rejects.toThrow(`profile.golemKey: no Golem in the store holds ${stranger.golemKey}`)
    expect(fake.created).toHaveLength(before)
    expect(await env.store.findPoolKeyClaim(rotationClaimant(stranger.golemKey))).toBeNull()
  })
})

describe('the deployed tick against its IAM statements', () => {
  // The local stand-ins enforce no IAM: a request the Tick function may not send would be AccessDenied on AWS.
  it('sent only requests the stack gives the Tick function: its table reads and writes, and KMS public keys and signing', async () => {
    const allowed = (await allowedActions(['Tick'])).Tick
    const sent = [...new Set([...tickTable.operations.map((o) => `dynamodb:${o}`), ...tickKms])].sort()
    expect(sent).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:PutItem', 'kms:GetPublicKey', 'kms:Sign']))
    expect(sent.filter((a) => !allowed.includes(a))).toEqual([])
  })
})
