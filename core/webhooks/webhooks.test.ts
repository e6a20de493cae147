import {
  encodeAbiParameters,
  encodeEventTopics,
  getAbiItem,
  getAddress,
  keccak256,
  toHex,
  type Abi,
  type AbiEvent,
  type Address,
  type Hex,
} from 'viem'
import { describe, expect, it } from 'vitest'
import { DelegationManager } from '@metamask/delegation-abis'
import { hashDelegation } from '@metamask/smart-accounts-kit/utils'
import { VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import type { GolemRecord } from '../store/records.ts'
import {
  AlchemySigningKey,
  checkNotificationAge,
  custodyWebhookQuery,
  decodeCustodySignals,
  golemLookups,
  parseAlchemyNotification,
  planWake,
  WebhookBodyError,
  WebhookSignatureError,
  type AlchemyLog,
} from './index.ts'

const A = (n: number) => getAddress(`0x${n.toString(16).padStart(40, '0')}`)
const H = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex
const contracts = { delegationManager: A(0xd1), vitalityOracle: A(0x01) }
const OWNER = A(0xaa)
const GOLEM_KEY = A(0xbb)
const REPLICANT_KEY = A(0xcc)

/** A log as the chain emits it: indexed arguments as topics, the rest ABI-encoded in data. */
function log(abi: Abi, address: Address, eventName: string, args: Record<string, unknown>, tx = H(0x7e)): AlchemyLog {
  const item = getAbiItem({ abi, name: eventName }) as AbiEvent
  const data = item.inputs.filter((i) => !i.indexed)
  return {
    address: address.toLowerCase() as Address,
    topics: encodeEventTopics({ abi, eventName, args } as never) as Hex[],
    data: encodeAbiParameters(data as never, data.map((i) => args[i.name ?? '']) as never),
    transactionHash: tx,
    logIndex: 0,
  }
}

const delegation = (delegator: Address, delegate: Address, salt = 1n) => ({
  delegate,
  delegator,
  authority: H(0xff),
  caveats: [] as { enforcer: Address; terms: Hex; args: Hex }[],
  salt,
  signature: '0x' as Hex,
})
const hashOf = (d: ReturnType<typeof delegation>) => hashDelegation({ ...d, salt: toHex(d.salt) })

const runway = delegation(OWNER, GOLEM_KEY)
const replicant = delegation(GOLEM_KEY, REPLICANT_KEY, 2n)
const RUNWAY_HASH = hashOf(runway)
const REPLICANT_HASH = hashOf(replicant)

function record(golemId: string, o: Partial<GolemRecord> & { hashes?: Hex[]; replicants?: Hex[] } = {}): GolemRecord {
  const d = { ...runway, salt: toHex(runway.salt) }
  const profile = {
    v: 1,
    chainId: 31337,
    golemKey: o.sessionKeyAddress ?? GOLEM_KEY,
    signer: { kind: 'memory', ref: golemId },
    runway: {
      chain: [d],
      token: A(0x05),
      periodAmount: '1',
      periodDuration: '86400',
      periodStart: '0',
      periodDelegationHash: RUNWAY_HASH,
      periodTerms: '0x',
      chainHashes: o.hashes ?? [RUNWAY_HASH],
      expiresAt: '1',
    },
    life: { bornAt: '0', runwayEndsAt: '1', runwayTotalSeconds: '1', lastInsightAt: '0' },
    replicants: (o.replicants ?? []).map((hash) => ({ hash, delegation: d })),
  }
  return {
    golemId,
    owner: OWNER,
    sessionKeyAddress: GOLEM_KEY,
    custodyMode: 'Delegation',
    profile: JSON.stringify(profile),
    status: 'alive',
    phase: 0,
    nextTickAt: 0,
    lastTick: null,
    createdAt: 0,
    updatedAt: 0,
    version: 1,
    ...o,
  } as GolemRecord
}

describe('AlchemySigningKey', () => {
  const key = new AlchemySigningKey('whsec_test_signing_key_0123456789')
  const body = '{"id":"whevt_1"}'

  it("accepts the body's HMAC-SHA256 under the key, in either hex case", () => {
    expect(() => key.verify(body, key.sign(body))).not.toThrow()
    expect(() => key.verify(body, key.sign(body).toUpperCase())).not.toThrow()
  })

  it('refuses a missing, malformed or forged signature, naming the header and the rule', () => {
    expect(() => key.verify(body, undefined)).toThrow(WebhookSignatureError)
    expect(() => key.verify(body, undefined)).toThrow(/x-alchemy-signature: is required/)
    expect(() => key.verify(body, 'abc')).toThrow(/must be 64 hex digits/)
    expect(() => key.verify(body, new AlchemySigningKey('whsec_another_key_9876543210').sign(body))).toThrow(/is not the HMAC-SHA256/)
    // A signature for other bytes (one space added) is refused: the raw body is what is signed.
    expect(() => key.verify(`${body} `, key.sign(body))).toThrow(/is not the HMAC-SHA256/)
  })

  it('never shows the key', () => {
    const secret = 'whsec_do_not_print_me_0123456789'
    const k = new AlchemySigningKey(secret)
    expect(JSON.stringify(k)).not.toContain(secret)
    expect(String(k)).not.toContain(secret)
  })
})

describe('parseAlchemyNotification', () => {
  const valid = {
    webhookId: 'wh_abc',
    id: 'whevt_123',
    createdAt: '2026-11-24T21:00:00.000Z',
    type: 'GRAPHQL',
    event: {
      data: {
        block: {
          number: 42,
          logs: [{ data: '0x', topics: [H(1)], index: 3, account: { address: A(0xd1) }, transaction: { hash: H(2) } }],
        },
      },
      network: 'BASE_MAINNET',
    },
  }

  it('reads the delivery id, the block and its logs', () => {
    const n = parseAlchemyNotification(valid)
    expect(n).toMatchObject({ id: 'whevt_123', webhookId: 'wh_abc', blockNumber: 42n })
    expect(n.logs).toEqual([{ address: A(0xd1), topics: [H(1)], data: '0x', transactionHash: H(2), logIndex: 3 }])
  })

  it('names the field and the rule of a body it refuses', () => {
    const bad = (patch: (v: typeof valid) => unknown) => () => parseAlchemyNotification(patch(structuredClone(valid)))
    expect(bad((v) => ({ ...v, type: 'ADDRESS_ACTIVITY' }))).toThrow(/body.type: must be GRAPHQL/)
    expect(bad((v) => ({ ...v, id: 'has spaces' }))).toThrow(/body.id: must be 1-200 letters/)
    expect(bad((v) => ({ ...v, createdAt: 'yesterday' }))).toThrow(/body.createdAt: must be an ISO 8601 time/)
    const noTopic = structuredClone(valid)
    noTopic.event.data.block.logs[0]!.topics = ['0x12' as Hex]
    expect(() => parseAlchemyNotification(noTopic)).toThrow(/body.event.data.block.logs.0.topics.0: must be a 32-byte hex topic/)
    expect(() => parseAlchemyNotification('[]')).toThrow(WebhookBodyError)
  })

  it('refuses a delivery older than 24 hours or from the future', () => {
    const n = parseAlchemyNotification(valid)
    expect(() => checkNotificationAge(n, n.createdAtMs + 60_000)).not.toThrow()
    expect(() => checkNotificationAge(n, n.createdAtMs + 25 * 3600_000)).toThrow(/body.createdAt: must be within the last 24 hours/)
    expect(() => checkNotificationAge(n, n.createdAtMs - 3600_000)).toThrow(/must not be in the future/)
  })
})

describe('decodeCustodySignals', () => {
  it("reads the DelegationManager's and the VitalityOracle's custody events, and ignores the rest", () => {
    const logs = [
      log(DelegationManager, contracts.delegationManager, 'DisabledDelegation', {
        delegationHash: RUNWAY_HASH,
        delegator: OWNER,
        delegate: GOLEM_KEY,
        delegation: runway,
      }),
      log(DelegationManager, contracts.delegationManager, 'RedeemedDelegation', {
        rootDelegator: OWNER,
        redeemer: REPLICANT_KEY,
        delegation: replicant,
      }),
      log(VitalityOracleAbi, contracts.vitalityOracle, 'PhaseReset', {
        golem: GOLEM_KEY,
        fromPhase: 3,
        toPhase: 1,
        by: A(0x0e),
        reason: 'fed',
      }),
      // The Golem's own phase post: its tick made it, so it is an echo, not a signal.
      log(VitalityOracleAbi, contracts.vitalityOracle, 'PhaseTransition', {
        golem: GOLEM_KEY,
        fromPhase: 0,
        toPhase: 1,
        survivalScore: 9000,
      }),
      // The same event from a contract that is not ours.
      log(DelegationManager, A(0x666), 'DisabledDelegation', {
        delegationHash: RUNWAY_HASH,
        delegator: OWNER,
        delegate: GOLEM_KEY,
        delegation: runway,
      }),
      // Garbage topics on our address.
      { address: contracts.delegationManager, topics: [keccak256('0x01')], data: '0x', transactionHash: H(9), logIndex: 1 } as AlchemyLog,
    ]
    const { signals, ignored } = decodeCustodySignals(logs, contracts)
    expect(ignored).toBe(3)
    expect(signals).toEqual([
      { kind: 'DisabledDelegation', delegationHash: RUNWAY_HASH, delegator: OWNER, delegate: GOLEM_KEY, transactionHash: H(0x7e) },
      { kind: 'RedeemedDelegation', leafHash: REPLICANT_HASH, leafDelegator: GOLEM_KEY, redeemer: REPLICANT_KEY, transactionHash: H(0x7e) },
      { kind: 'PhaseReset', golem: GOLEM_KEY, transactionHash: H(0x7e) },
    ])
  })
})

describe('planWake', () => {
  const disabled = (hash: Hex, delegator = OWNER, delegate = GOLEM_KEY) =>
    ({ kind: 'DisabledDelegation', delegationHash: hash, delegator, delegate, transactionHash: H(1) }) as const

  it('looks Golems up by the owner and by the keys a signal names', () => {
    expect(golemLookups([disabled(RUNWAY_HASH), { kind: 'PhaseReset', golem: A(0x99), transactionHash: H(1) }])).toEqual({
      owners: [OWNER],
      sessionKeys: [OWNER, GOLEM_KEY, A(0x99)],
    })
  })

  it("wakes the Golem whose runway holds the disabled delegation, once, and not the owner's other Golems", () => {
    const mine = record('mine')
    const sibling = record('sibling', { sessionKeyAddress: A(0xbc), hashes: [H(0x51)] })
    expect(planWake([disabled(RUNWAY_HASH), disabled(RUNWAY_HASH)], [mine, sibling, mine])).toEqual([
      { golemId: 'mine', reasons: ['DisabledDelegation'] },
    ])
  })

  it('wakes nothing for an unknown delegation, and never a dead Golem', () => {
    expect(planWake([disabled(H(0x404))], [record('mine')])).toEqual([])
    expect(planWake([disabled(RUNWAY_HASH)], [record('gone', { status: 'dead' })])).toEqual([])
  })

  it("wakes a parent when its Replicant redeems through its grant, not for the Golem's own redemptions", () => {
    const parent = record('parent', { replicants: [REPLICANT_HASH] })
    const byReplicant = {
      kind: 'RedeemedDelegation',
      leafHash: REPLICANT_HASH,
      leafDelegator: GOLEM_KEY,
      redeemer: REPLICANT_KEY,
      transactionHash: H(1),
    } as const
    expect(planWake([byReplicant], [parent])).toEqual([{ golemId: 'parent', reasons: ['RedeemedDelegation'] }])
    expect(planWake([{ ...byReplicant, redeemer: GOLEM_KEY }], [parent])).toEqual([])
  })

  it('wakes the Golem the operator registered, deregistered or reset, by its key', () => {
    const signal = { kind: 'GolemDeregistered', golem: GOLEM_KEY, transactionHash: H(1) } as const
    expect(planWake([signal], [record('mine')])).toEqual([{ golemId: 'mine', reasons: ['GolemDeregistered'] }])
    expect(planWake([{ ...signal, golem: A(0x123) }], [record('mine')])).toEqual([])
  })

  it('without a readable profile, falls back to the Golem key being the delegate', () => {
    expect(planWake([disabled(H(0x404))], [record('bare', { profile: null })])).toEqual([
      { golemId: 'bare', reasons: ['DisabledDelegation'] },
    ])
  })
})

describe('custodyWebhookQuery', () => {
  it("filters every block's logs to the two contracts and asks for what the route decodes", () => {
    const q = custodyWebhookQuery(contracts)
    expect(q).toContain(`addresses: ["${A(0xd1)}", "${A(0x01)}"]`)
    for (const field of ['number', 'topics', 'data', 'account { address }', 'transaction { hash }']) expect(q).toContain(field)
  })
})
