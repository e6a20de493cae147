// Key rotation in the deployed tick, on anvil and dynalite, with every Golem key in KMS (aws-sdk-client-mock
// answering GetPublicKey with SPKI keys and Sign with real secp256k1 DER signatures, high-s every other
// time). The new key is a free key of the pool, taken with a conditional write; where the platform holds
// the ERC-7715 Session Account's key it re-delegates the owner's permission to the new key, and where
// only the owner can sign (a direct grant) the tick records one owner renewal request and keeps the old
// key. A crash after the oracle moved the identity and a duplicate invoke change nothing twice.
import { GetPublicKeyCommand, KMSClient, SignCommand, type GetPublicKeyCommandInput, type SignCommandInput } from '@aws-sdk/client-kms'
import { signDelegation } from '@metamask/smart-accounts-kit'
import { hashDelegation } from '@metamask/smart-accounts-kit/utils'
import { secp256k1 } from '@noble/curves/secp256k1'
import { mockClient } from 'aws-sdk-client-mock'
import { hexToBytes, isAddressEqual, parseEther, toHex, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import { KmsSignerResolver } from '../../adapters/signers/kmsSignerResolver.ts'
import { MemoryKey } from '../../core/custody/memoryKey.ts'
import { SessionKey } from '../../core/custody/index.ts'
import { encodeDerSignature, encodeSecp256k1Spki } from '../../core/custody/testing/der.ts'
import { buildRunwayRedelegation, DelegationTree, smartAccountSigner } from '../../core/delegations/index.ts'
import { parseGolemProfile, serializeGolemProfile, type GolemProfile } from '../../core/lifecycle/profile.ts'
import type { Store } from '../../core/store/index.ts'
import { KeyPoolExhaustedError, KmsKeyRotation, ROTATION_RENEWAL_REQUESTED, rotationClaimant } from '../../functions/tick/kmsRotation.ts'
import { handler as tickHandler } from '../../functions/tick/handler.ts'
import { encodeTickPayload } from '../../functions/shared/tickPayload.ts'
import { runTick } from '../../functions/tick/runTick.ts'
import { devnetAccount, type OwnerAccount } from '../../local/devnet.ts'
import { provisionGolem } from '../../local/provision.ts'
import { DAY, allEvents, chainNow, redemptionsBy, sentCount, startHeartbeatEnv, type HeartbeatEnv } from '../heartbeat/harness.ts'

const STRATEGY =
  '---\nname: kms-rotating-golem\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 30\n---\n\nSwap a little USDC into WETH every day.\n'
const N = secp256k1.CURVE.n
const arn = (name: string) => `arn:aws:kms:us-east-1:111122223333:key/${name}`

/** The pool, in pool order: the two Golems' keys, the Session Account's, then two spares. */
const POOL = ['golem-direct', 'golem-7715', 'session-account', 'spare-1', 'spare-2'].map(arn)
const keys: Record<string, Hex> = Object.fromEntries(POOL.map((id) => [id, generatePrivateKey()]))
const addressOf = (keyId: string) => privateKeyToAccount(keys[keyId]!).address

const kms = mockClient(KMSClient)
let signCalls = 0
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

/** Provisions a Golem whose session key is a pool key (the profile names it by ARN, as on AWS). */
async function kmsGolem(golemId: string, keyId: string, owner: OwnerAccount) {
  const now = await chainNow(env.client)
  const sessionKey = SessionKey.fromMemoryKey(MemoryKey.fromBytes(hexToBytes(keys[keyId]!)), {
    expiresAt: Number(now) + 30 * DAY,
    initialBudget: 0n,
    now: Number(now),
  })
  const golem = await provisionGolem({
    clients: env.devnet,
    deployment: env.devnet.deployment,
    store: env.store,
    signers: env.signers,
    owner,
    golemId,
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

let directOwner: OwnerAccount
let owner7715: OwnerAccount
const sessionAccount = addressOf(arn('session-account'))

beforeAll(async () => {
  kms.on(GetPublicKeyCommand).callsFake((input: GetPublicKeyCommandInput) => {
    const key = keys[input.KeyId!]
    if (!key) throw Object.assign(new Error(`Key '${input.KeyId}' does not exist`), { name: 'NotFoundException' })
    return {
      KeyId: input.KeyId,
      KeySpec: 'ECC_SECG_P256K1',
      KeyUsage: 'SIGN_VERIFY',
      SigningAlgorithms: ['ECDSA_SHA_256'],
      PublicKey: encodeSecp256k1Spki(privateKeyToAccount(key).publicKey),
    }
  })
  kms.on(SignCommand).callsFake((input: SignCommandInput) => {
    const key = keys[input.KeyId!]
    if (!key || input.MessageType !== 'DIGEST') throw Object.assign(new Error('refused'), { name: 'ValidationException' })
    const sig = secp256k1.sign(input.Message!, hexToBytes(key))
    const s = signCalls++ % 2 === 0 ? N - sig.s : sig.s
    return { KeyId: input.KeyId, SigningAlgorithm: 'ECDSA_SHA_256', Signature: encodeDerSignature(sig.r, s) }
  })
  env = await startHeartbeatEnv()
  const client = new KMSClient({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } })
  signers = new KmsSignerResolver(env.devnet.deployment, client)
  rotation = new KmsKeyRotation({ deployment: env.devnet.deployment, client: env.client, store: env.store, poolKeyIds: POOL, kms: client })
  ;[directOwner, owner7715] = [await env.devnet.createOwner(), await env.devnet.createOwner()]

  // A direct grant: the owner's smart account delegates to the pool key; only the owner can renew it.
  await kmsGolem('kms-direct', arn('golem-direct'), directOwner)
  await setProfile('kms-direct', { ...(await profileOf('kms-direct')), signer: { kind: 'kms', keyId: arn('golem-direct') } })

  // The ERC-7715 shape: owner -> Session Account (a periodic permission), Session Account -> the pool key.
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
  // The Session Account's key is the platform's: claimed when the Golem was provisioned, never handed out.
  expect(
    (
      await env.store.claimPoolKey({
        keyId: arn('session-account'),
        address: sessionAccount,
        claimant: 'session-account:kms-7715',
        now: Date.now(),
      })
    ).claimed,
  ).toBe(true)
}, 240_000)

afterAll(async () => {
  kms.restore()
  await env?.stop()
})

describe('rotation in the deployed tick, keys from the KMS pool', () => {
  it('a young key is not due: both Golems redeem day 0 through KMS and keep their keys', async () => {
    for (const id of ['kms-direct', 'kms-7715']) {
      const result = await tick(id)
      expect(result.redemption?.status, id).toBe('confirmed')
      expect(result.rotated).toBeUndefined()
    }
    expect(await redemptionsBy(env.client, env.devnet.deployment.environment.DelegationManager, addressOf(arn('golem-7715')))).toHaveLength(
      1,
    )
    expect(signCalls).toBeGreaterThan(0)
  })

  it('past seven days, the Session Account re-delegates to a spare pool key; a crash after the oracle moved and a duplicate invoke rotate once', async () => {
    await env.devnet.increaseTime(7 * DAY + 60)
    const oldKey = addressOf(arn('golem-7715'))
    const operator = env.devnet.operator.account.address
    const operatorBefore = await sentCount(env.client, operator)

    // The store refuses the write that switches the Golem to its new key: the tick dies after the oracle moved it.
    const dying: Store = new Proxy(env.store, {
      get(target, name, receiver) {
        if (name === 'updateGolem') {
          return (input: Parameters<Store['updateGolem']>[0]) =>
            input.patch.sessionKeyAddress !== undefined
              ? Promise.reject(new Error('crash before the profile switch'))
              : target.updateGolem(input)
        }
        const value = Reflect.get(target, name, receiver) as unknown
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
      },
    })
    await expect(tick('kms-7715', { store: dying })).rejects.toThrow(/crash before the profile switch/)
    const pending = (await profileOf('kms-7715')).pendingRotation!
    // The first free key of the pool: the Golems' own keys are in use, the Session Account's is claimed.
    expect(pending.to).toBe(addressOf(arn('spare-1')))
    expect(pending.signer).toEqual({ kind: 'kms', keyId: arn('spare-1') })
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
    expect(profile.signer).toEqual({ kind: 'kms', keyId: arn('spare-1') })
    expect(profile.pendingRotation).toBeUndefined()
    expect(profile.runway.chainHashes[1]).toBe(pending.runway.chainHashes[1]) // the owner's permission is unchanged
    expect(profile.keyGrantedAt).toBe(pending.at)
    expect(await sentCount(env.client, operator)).toBe(operatorBefore + 1)
    const events = (await allEvents(env.store, 'kms-7715')).filter((e) => e.type === 'SessionKeyRotated')
    expect(events.map((e) => [e.data.oldAddress, e.data.newAddress])).toEqual([[oldKey, pending.to]])
    expect(await env.store.getPoolKeyClaim(arn('spare-1'))).toMatchObject({
      claimant: rotationClaimant(oldKey),
      address: pending.to.toLowerCase(),
    })
    expect(await env.store.getPoolKeyClaim(arn('spare-2'))).toBeNull()

    // A fresh key is not due: later ticks neither rotate again nor take another key.
    expect((await tick('kms-7715')).rotated).toBeUndefined()
    expect(await env.store.getPoolKeyClaim(arn('spare-2'))).toBeNull()
  })

  it("the new key redeems the next period through the Session Account's re-delegation, and the old key can no longer", async () => {
    const newKey = addressOf(arn('spare-1'))
    await fund(newKey)
    await env.devnet.increaseTime(DAY)
    const result = await tick('kms-7715')
    expect(result.redemption?.status).toBe('confirmed')
    const dm = env.devnet.deployment.environment.DelegationManager
    expect(await redemptionsBy(env.client, dm, newKey)).toHaveLength(1)
    // Day 0 and day 7 by the old key; nothing after the rotation.
    expect(await redemptionsBy(env.client, dm, addressOf(arn('golem-7715')))).toHaveLength(2)
  })

  it('through the Lambda handler (its rotation wired from BARDO_KMS_KEY_ARNS), a direct grant only the owner can renew: one owner renewal request, the spare key held for it, no rotation', async () => {
    // The tick function's environment as stacks/functions.ts sets it, the AWS endpoints pointed here.
    Object.assign(process.env, {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_ENDPOINT_URL_DYNAMODB: env.dynalite.endpoint,
      BARDO_CHAIN_ID: String(env.devnet.deployment.chainId),
      BARDO_DEPLOYMENT: JSON.stringify(env.devnet.deployment, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
      BARDO_TABLE_NAME: env.tableName,
      BARDO_KMS_KEY_ARNS: POOL.join(','),
      BARDO_SECRET_RPC_URL: env.devnet.rpcUrl,
      BARDO_SECRET_OPERATOR_KEY: toHex(devnetAccount(1).getHdKey().privateKey!),
    })
    const oldKey = addressOf(arn('golem-direct'))
    const operatorBefore = await sentCount(env.client, env.devnet.operator.account.address)
    for (let i = 0; i < 3; i++) {
      const [result] = await tickHandler(encodeTickPayload([{ golemId: 'kms-direct' }]), { awsRequestId: `req-direct-${i}` })
      expect(result!.outcome).toBe('ticked')
      expect(result!.rotated).toBeUndefined()
    }
    const profile = await profileOf('kms-direct')
    expect(profile.golemKey).toBe(oldKey)
    expect(profile.pendingRotation).toBeUndefined()
    expect((await phaseOf(oldKey))[0]).toBe(true)
    expect(await sentCount(env.client, env.devnet.operator.account.address)).toBe(operatorBefore)
    const requests = (await allEvents(env.store, 'kms-direct')).filter((e) => e.type === ROTATION_RENEWAL_REQUESTED)
    expect(requests).toHaveLength(1)
    expect(requests[0]!.data).toMatchObject({ oldAddress: oldKey, newAddress: addressOf(arn('spare-2')) })
    expect(await env.store.getPoolKeyClaim(arn('spare-2'))).toMatchObject({ claimant: rotationClaimant(oldKey) })
  })

  it('a pool with no free key refuses by name and claims nothing', async () => {
    const client = new KMSClient({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } })
    // Every key in use (the Golems'), claimed (the Session Account's, both rotations') or retired (the old 7715 key).
    const full = new KmsKeyRotation({
      deployment: env.devnet.deployment,
      client: env.client,
      store: env.store,
      poolKeyIds: POOL,
      kms: client,
    })
    const stranger = { ...(await profileOf('kms-direct')), golemKey: privateKeyToAccount(generatePrivateKey()).address }
    await expect(full.newKey(stranger)).rejects.toThrow(KeyPoolExhaustedError)
    await expect(full.newKey(stranger)).rejects.toThrow('BARDO_KMS_KEY_ARNS: every key of the pool (5) is in use, retired or claimed')
    expect(await env.store.findPoolKeyClaim(rotationClaimant(stranger.golemKey))).toBeNull()
  })
})
