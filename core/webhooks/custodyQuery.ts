// The Alchemy Notify custom-webhook query `bardo deploy` registers. It asks only for the events custody
// acts on, and from the DelegationManager only those whose delegator is a watched owner (an owner of a
// Golem in the store): anyone may disable their own delegations with caveat terms of any size, and
// logs of strangers would otherwise push the delivery of the block that holds an owner's revocation past
// the API's body limit. The watched owners are a webhook variable (32-byte topics) that onboarding
// extends, so the query itself never changes when a new owner appears. Blocks without such logs are
// not delivered.
import { encodeEventTopics, getAddress, isAddress, pad, zeroAddress, type Address, type Hex } from 'viem'
import { DelegationManager, NonceEnforcer } from '@metamask/delegation-abis'
import { VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import { WebhookQueryError } from './errors.ts'

/**
 * The contracts whose logs are custody signals. `nonceEnforcer`: the framework's NonceEnforcer, where an
 * owner's nonce increment revokes every grant made at the old nonce (MetaMask's Advanced Permissions).
 */
export type CustodyContracts = { delegationManager: Address; vitalityOracle: Address; nonceEnforcer?: Address }

/** A deployment's custody contracts: its DelegationManager, its VitalityOracle and the framework's NonceEnforcer. */
export function custodyContractsOfDeployment(d: {
  environment: { DelegationManager: Address; caveatEnforcers: { NonceEnforcer?: Address } }
  vitalityOracle: Address
}): CustodyContracts {
  const nonceEnforcer = d.environment.caveatEnforcers.NonceEnforcer
  return {
    delegationManager: d.environment.DelegationManager,
    vitalityOracle: d.vitalityOracle,
    ...(nonceEnforcer ? { nonceEnforcer } : {}),
  }
}

/** The query's `logs` fields, by alias: each is a list in the delivered block. */
export const CUSTODY_LOG_FIELDS = ['delegations', 'redemptions', 'oracle', 'nonces'] as const
export type CustodyLogField = (typeof CUSTODY_LOG_FIELDS)[number]

/** One `logs` field: the contract, and per topic position the values it admits (or the watched owners). */
export type CustodyLogFilter = { field: CustodyLogField; address: Address; topics: (readonly Hex[] | 'watchedOwners')[] }

const selector = (abi: typeof DelegationManager | typeof VitalityOracleAbi | typeof NonceEnforcer, eventName: string): Hex =>
  encodeEventTopics({ abi, eventName } as never)[0] as Hex

/** The DelegationManager's events whose delegator is the second indexed argument (topic 2). */
export const DELEGATION_EVENTS = ['EnabledDelegation', 'DisabledDelegation'] as const
/** RedeemedDelegation names the root delegator of the redeemed chain first (topic 1). */
export const REDEMPTION_EVENTS = ['RedeemedDelegation'] as const
/** The operator's changes to a Golem; the Golems' own posts (phase, vitality, key rotation) are echoes. */
export const ORACLE_EVENTS = ['GolemRegistered', 'GolemDeregistered', 'PhaseReset'] as const
/** UsedNonce(delegationManager, delegator, nonce): the owner moved its nonce on; delegator is topic 2. */
export const NONCE_EVENTS = ['UsedNonce'] as const

export function custodyLogFilters(contracts: CustodyContracts): CustodyLogFilter[] {
  const dm = getAddress(contracts.delegationManager)
  return [
    { field: 'delegations', address: dm, topics: [DELEGATION_EVENTS.map((e) => selector(DelegationManager, e)), [], 'watchedOwners'] },
    { field: 'redemptions', address: dm, topics: [REDEMPTION_EVENTS.map((e) => selector(DelegationManager, e)), 'watchedOwners'] },
    {
      field: 'oracle',
      address: getAddress(contracts.vitalityOracle),
      topics: [ORACLE_EVENTS.map((e) => selector(VitalityOracleAbi, e))],
    },
    ...(contracts.nonceEnforcer
      ? [
          {
            field: 'nonces' as const,
            address: getAddress(contracts.nonceEnforcer),
            topics: [
              NONCE_EVENTS.map((e) => selector(NonceEnforcer, e)),
              [pad(dm.toLowerCase() as Address, { size: 32 })],
              'watchedOwners' as const,
            ],
          },
        ]
      : []),
  ]
}

/** An owner as the topic a delegator is logged as: the address, left-padded to 32 bytes. */
export function ownerTopic(owner: string): Hex {
  if (!isAddress(owner, { strict: false }))
    throw new WebhookQueryError('owner', `must be a 20-byte hex address, got ${JSON.stringify(owner)}`)
  return pad(owner.toLowerCase() as Address, { size: 32 })
}

/**
 * Always among the watched owners: with eth_getLogs semantics an empty list at a topic position admits
 * every value, so the variable is never left empty. No delegation has the zero address as delegator.
 */
export const NO_OWNER_TOPIC = ownerTopic(zeroAddress)

const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/

/** The webhook variable of one deployment's watched owners: its chain and its VitalityOracle. */
export function watchedOwnersVariable(chainId: number, vitalityOracle: string): string {
  if (!Number.isSafeInteger(chainId) || chainId <= 0) throw new WebhookQueryError('chainId', `must be a positive integer, got ${chainId}`)
  if (!isAddress(vitalityOracle, { strict: false }))
    throw new WebhookQueryError('vitalityOracle', `must be a 20-byte hex address, got ${JSON.stringify(vitalityOracle)}`)
  const name = `bardo_owners_${chainId}_${vitalityOracle.slice(2).toLowerCase()}`
  // Alchemy's variable names hold at most 64 characters: this leaves ten digits for the chain id.
  if (!VARIABLE.test(name)) throw new WebhookQueryError('chainId', `must have at most 10 digits, got ${chainId}`)
  return name
}

const list = (values: readonly string[]) => `[${values.map((v) => `"${v}"`).join(', ')}]`

export function custodyWebhookQuery(contracts: CustodyContracts, ownersVariable: string): string {
  if (!VARIABLE.test(ownersVariable))
    throw new WebhookQueryError(
      'ownersVariable',
      `must be 1-64 letters, digits or '_', not starting with a digit, got ${JSON.stringify(ownersVariable)}`,
    )
  const fields = custodyLogFilters(contracts).map((f) => {
    const topics = f.topics.map((t) => (t === 'watchedOwners' ? `$${ownersVariable}` : list(t))).join(', ')
    return `    ${f.field}: logs(filter: { addresses: ${list([f.address])}, topics: [${topics}] }) {
      index
      data
      topics
      account { address }
      transaction { hash }
    }`
  })
  return `query ($${ownersVariable}: [Bytes32!]!) {
  block {
    number
    hash
    timestamp
${fields.join('\n')}
  }
}`
}

/** The path the API serves deliveries on, under its public base URL. */
export const ALCHEMY_WEBHOOK_PATH = '/api/v1/webhooks/alchemy'
