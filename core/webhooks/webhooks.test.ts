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
import { DelegationManager, NonceEnforcer } from '@metamask/delegation-abis'
import { hashDelegation } from '@metamask/smart-accounts-kit/utils'
import { VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import type { GolemRecord } from '../store/records.ts'
import {
  AlchemySigningKey,
  checkNotificationAge,
  custodyLogFilters,
  custodyWebhookQuery,
  decodeCustodySignals,
  golemLookups,
  MAX_LOGS_PER_FIELD,
  NO_OWNER_TOPIC,
  ownerTopic,
  parseAlchemyNotification,
  planWake,
  watchedOwnersVariable,
  WebhookBodyError,
  WebhookQueryError,
  WebhookSignatureError,
  type AlchemyLog,
} from './index.ts'
import { queryBlockLogs, type BlockLog } from '../../test/support/webhooks/alchemyDelivery.ts'

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
    txHash: tx,
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

function record(golemId: string, o: Partial<GolemRecord> & { hashes?: Hex[]; replicants?: Hex[]; nonceOwner?: Address } = {}): GolemRecord {
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
      ...(o.nonceOwner ? { nonce: { enforcer: A(0xe1), delegator: o.nonceOwner, value: '0' } } : {}),
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
          delegations: [{ data: '0x', topics: [H(1)], index: 3, account: { address: A(0xd1) }, transaction: { hash: H(2) } }],
          redemptions: [] as unknown[],
          oracle: null as unknown[] | null,
        },
      },
      network: 'BASE_MAINNET',
    },
  }

  it('reads the delivery id, the block and its logs', () => {
    const n = parseAlchemyNotification(valid)
    expect(n).toMatchObject({ id: 'whevt_123', webhookId: 'wh_abc', blockNumber: 42n })
    expect(n.logs).toEqual([{ address: A(0xd1), topics: [H(1)], data: '0x', txHash: H(2), logIndex: 3 }])
  })

  it("reads every field's logs, in the block's order", () => {
    const v = structuredClone(valid)
    const at = (index: number) => ({ data: '0x', topics: [H(index)], index, account: { address: A(0x01) }, transaction: { hash: H(2) } })
    v.event.data.block.oracle = [at(1), at(7)]
    v.event.data.block.redemptions = [at(5)]
    expect(parseAlchemyNotification(v).logs.map((l) => l.logIndex)).toEqual([1, 3, 5, 7])
  })

  it('names the log field a body breaks: missing (another query), not a list, or over the count', () => {
    const { delegations: _, ...noDelegations } = valid.event.data.block
    const other = { ...valid, event: { ...valid.event, data: { block: noDelegations } } }
    expect(() => parseAlchemyNotification(other)).toThrow(
      /^body.event.data.block.delegations: must be a list of logs \(a field of the query bardo deploy registers\)$/,
    )
    const notList = structuredClone(valid) as unknown as { event: { data: { block: Record<string, unknown> } } }
    notList.event.data.block.redemptions = { index: 1 }
    expect(() => parseAlchemyNotification(notList)).toThrow(/^body.event.data.block.redemptions: must be a list of logs/)
    const many = structuredClone(valid)
    many.event.data.block.oracle = Array.from({ length: MAX_LOGS_PER_FIELD + 1 }, () => valid.event.data.block.delegations[0]!)
    expect(() => parseAlchemyNotification(many)).toThrow(`body.event.data.block.oracle: must hold at most ${MAX_LOGS_PER_FIELD} logs`)
  })

  it('names the field and the rule of a body it refuses', () => {
    const bad = (patch: (v: typeof valid) => unknown) => () => parseAlchemyNotification(patch(structuredClone(valid)))
    expect(bad((v) => ({ ...v, type: 'ADDRESS_ACTIVITY' }))).toThrow(/body.type: must be GRAPHQL/)
    expect(bad((v) => ({ ...v, id: 'has spaces' }))).toThrow(/body.id: must be 1-200 letters/)
    expect(bad((v) => ({ ...v, createdAt: 'yesterday' }))).toThrow(/body.createdAt: must be an ISO 8601 time/)
    const noTopic = structuredClone(valid)
    noTopic.event.data.block.delegations[0]!.topics = ['0x12' as Hex]
    expect(() => parseAlchemyNotification(noTopic)).toThrow(/body.event.data.block.delegations.0.topics.0: must be a 32-byte hex topic/)
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
      { address: contracts.delegationManager, topics: [keccak256('0x01')], data: '0x', txHash: H(9), logIndex: 1 } as AlchemyLog,
    ]
    const { signals, ignored } = decodeCustodySignals(logs, contracts)
    expect(ignored).toBe(3)
    expect(signals).toEqual([
      { kind: 'DisabledDelegation', delegationHash: RUNWAY_HASH, delegator: OWNER, delegate: GOLEM_KEY, txHash: H(0x7e) },
      { kind: 'RedeemedDelegation', leafHash: REPLICANT_HASH, leafDelegator: GOLEM_KEY, redeemer: REPLICANT_KEY, txHash: H(0x7e) },
      { kind: 'PhaseReset', golem: GOLEM_KEY, txHash: H(0x7e) },
    ])
  })
})

describe("decodeCustodySignals: the owner's nonce", () => {
  const withNonces = { ...contracts, nonceEnforcer: A(0xe1) }
  it("reads the NonceEnforcer's UsedNonce for this DelegationManager as the owner's increment, and ignores another manager's", () => {
    const logs = [
      log(NonceEnforcer, withNonces.nonceEnforcer, 'UsedNonce', {
        delegationManager: contracts.delegationManager,
        delegator: OWNER,
        nonce: 1n,
      }),
      log(NonceEnforcer, withNonces.nonceEnforcer, 'UsedNonce', { delegationManager: A(0xd2), delegator: OWNER, nonce: 1n }),
    ]
    expect(decodeCustodySignals(logs, withNonces)).toEqual({
      signals: [{ kind: 'NonceIncremented', delegator: OWNER, txHash: H(0x7e) }],
      ignored: 1,
    })
    expect(decodeCustodySignals(logs, contracts)).toEqual({ signals: [], ignored: 2 })
  })

  it('asks for UsedNonce of watched owners on this DelegationManager only where the framework has a NonceEnforcer', () => {
    expect(custodyLogFilters(contracts).map((f) => f.field)).toEqual(['delegations', 'redemptions', 'oracle'])
    const nonces = custodyLogFilters(withNonces).find((f) => f.field === 'nonces')!
    expect(nonces.address).toBe(withNonces.nonceEnforcer)
    expect(nonces.topics).toEqual([
      [encodeEventTopics({ abi: NonceEnforcer, eventName: 'UsedNonce' })[0]],
      [ownerTopic(contracts.delegationManager)],
      'watchedOwners',
    ])
  })
})

describe('planWake', () => {
  const disabled = (hash: Hex, delegator = OWNER, delegate = GOLEM_KEY) =>
    ({ kind: 'DisabledDelegation', delegationHash: hash, delegator, delegate, txHash: H(1) }) as const

  it('looks Golems up by the owner and by the keys a signal names', () => {
    expect(golemLookups([disabled(RUNWAY_HASH), { kind: 'PhaseReset', golem: A(0x99), txHash: H(1) }])).toEqual({
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
      txHash: H(1),
    } as const
    expect(planWake([byReplicant], [parent])).toEqual([{ golemId: 'parent', reasons: ['RedeemedDelegation'] }])
    expect(planWake([{ ...byReplicant, redeemer: GOLEM_KEY }], [parent])).toEqual([])
  })

  it('wakes the Golem the operator registered, deregistered or reset, by its key', () => {
    const signal = { kind: 'GolemDeregistered', golem: GOLEM_KEY, txHash: H(1) } as const
    expect(planWake([signal], [record('mine')])).toEqual([{ golemId: 'mine', reasons: ['GolemDeregistered'] }])
    expect(planWake([{ ...signal, golem: A(0x123) }], [record('mine')])).toEqual([])
  })

  it("wakes the Golems whose grant carries the owner's nonce when the owner increments it, and no other Golem", () => {
    const signal = { kind: 'NonceIncremented', delegator: OWNER, txHash: H(1) } as const
    expect(golemLookups([signal])).toEqual({ owners: [OWNER], sessionKeys: [] })
    const permissioned = record('permissioned', { nonceOwner: OWNER })
    const direct = record('direct')
    const another = record('another', { nonceOwner: A(0xab) })
    expect(planWake([signal], [permissioned, direct, another])).toEqual([{ golemId: 'permissioned', reasons: ['NonceIncremented'] }])
  })

  it('without a readable profile, falls back to the Golem key being the delegate', () => {
    expect(planWake([disabled(H(0x404))], [record('bare', { profile: null })])).toEqual([
      { golemId: 'bare', reasons: ['DisabledDelegation'] },
    ])
  })
})

describe('custodyWebhookQuery', () => {
  const STRANGER = A(0x5e)
  const VARIABLE = watchedOwnersVariable(8453, contracts.vitalityOracle)
  const query = custodyWebhookQuery(contracts, VARIABLE)
  const dm = (eventName: string, args: Record<string, unknown>) => log(DelegationManager, contracts.delegationManager, eventName, args)
  const oracle = (eventName: string, args: Record<string, unknown>) => log(VitalityOracleAbi, contracts.vitalityOracle, eventName, args)
  // A block log is viem's shape (the chain's own), which names the hash `transactionHash`.
  const asBlockLog = ({ txHash, ...l }: AlchemyLog, logIndex: number): BlockLog => ({ ...l, transactionHash: txHash, logIndex })
  const disabledBy = (delegator: Address, eventName = 'DisabledDelegation') =>
    dm(eventName, { delegationHash: RUNWAY_HASH, delegator, delegate: GOLEM_KEY, delegation: delegation(delegator, GOLEM_KEY) })
  const redeemedFrom = (rootDelegator: Address) =>
    dm('RedeemedDelegation', { rootDelegator, redeemer: REPLICANT_KEY, delegation: replicant })
  /** Which of the logs Alchemy delivers for the registered query, by field, with these watched owners. */
  const delivered = (logs: AlchemyLog[], watched: Hex[]) => {
    const block = queryBlockLogs(
      query,
      logs.map((l, i) => asBlockLog(l, i)),
      (name) => (name === VARIABLE ? watched : []),
    )
    return Object.fromEntries(Object.entries(block).map(([field, list]) => [field, list.map((l) => l.index)]))
  }

  it('declares the watched owners as a bytes32 variable and names the two contracts', () => {
    expect(VARIABLE).toBe(`bardo_owners_8453_${contracts.vitalityOracle.slice(2).toLowerCase()}`)
    expect(query).toContain(`query ($${VARIABLE}: [Bytes32!]!)`)
    expect(query).toContain(`addresses: ["${A(0xd1)}"]`)
    expect(query).toContain(`addresses: ["${A(0x01)}"]`)
    for (const field of ['number', 'topics', 'data', 'account { address }', 'transaction { hash }']) expect(query).toContain(field)
  })

  it('asks only for the delegation events of watched owners and the operator oracle events', () => {
    const logs = [
      /* 0 */ disabledBy(OWNER),
      /* 1 */ disabledBy(OWNER, 'EnabledDelegation'),
      /* 2 */ disabledBy(STRANGER),
      /* 3 */ disabledBy(STRANGER, 'EnabledDelegation'),
      /* 4 */ redeemedFrom(OWNER),
      /* 5 */ redeemedFrom(STRANGER),
      // Another DelegationManager event, even about a watched owner.
      /* 6 */ dm('OwnershipTransferred', { previousOwner: OWNER, newOwner: OWNER }),
      /* 7 */ oracle('GolemRegistered', { golem: GOLEM_KEY, registrar: A(0x0e) }),
      /* 8 */ oracle('GolemDeregistered', { golem: GOLEM_KEY, finalPhase: 4 }),
      /* 9 */ oracle('PhaseReset', { golem: GOLEM_KEY, fromPhase: 3, toPhase: 1, by: A(0x0e), reason: 'fed' }),
      // The Golems' own posts are echoes of their ticks.
      /* 10 */ oracle('PhaseTransition', { golem: GOLEM_KEY, fromPhase: 0, toPhase: 1, survivalScore: 9000 }),
      /* 11 */ oracle('VitalityReported', { golem: GOLEM_KEY, phase: 1, survivalScore: 9000 }),
      /* 12 */ oracle('GolemKeyRotated', { from: GOLEM_KEY, to: REPLICANT_KEY }),
      // The same event from a contract that is not ours.
      /* 13 */ { ...disabledBy(OWNER), address: A(0x666) },
    ]
    expect(delivered(logs, [NO_OWNER_TOPIC, ownerTopic(OWNER)])).toEqual({ delegations: [0, 1], redemptions: [4], oracle: [7, 8, 9] })
    // Before any owner is watched, only the zero address is: no delegation event comes through.
    expect(delivered(logs, [NO_OWNER_TOPIC])).toEqual({ delegations: [], redemptions: [], oracle: [7, 8, 9] })
  })

  it('logs a delegator as its address left-padded to 32 bytes, in either case', () => {
    expect(ownerTopic(OWNER)).toBe(`0x${'0'.repeat(24)}${OWNER.slice(2).toLowerCase()}`)
    expect(ownerTopic(OWNER.toLowerCase())).toBe(ownerTopic(OWNER))
    expect(disabledBy(OWNER).topics[2]).toBe(ownerTopic(OWNER))
    expect(NO_OWNER_TOPIC).toBe(H(0))
  })

  it('names the input and the rule it refuses', () => {
    const refused = (run: () => unknown, message: string) => {
      expect(run).toThrow(WebhookQueryError)
      expect(run).toThrow(message)
    }
    refused(() => ownerTopic('0x1234'), 'owner: must be a 20-byte hex address, got "0x1234"')
    refused(() => watchedOwnersVariable(0, contracts.vitalityOracle), 'chainId: must be a positive integer, got 0')
    refused(() => watchedOwnersVariable(1.5, contracts.vitalityOracle), 'chainId: must be a positive integer, got 1.5')
    refused(() => watchedOwnersVariable(12345678901, contracts.vitalityOracle), 'chainId: must have at most 10 digits, got 12345678901')
    refused(() => watchedOwnersVariable(1, 'oracle'), 'vitalityOracle: must be a 20-byte hex address, got "oracle"')
    refused(
      () => custodyWebhookQuery(contracts, 'owners) { hack }'),
      `ownersVariable: must be 1-64 letters, digits or '_', not starting with a digit, got "owners) { hack }"`,
    )
    refused(() => custodyWebhookQuery(contracts, `a${'b'.repeat(64)}`), 'ownersVariable: must be 1-64 letters')
  })
})
