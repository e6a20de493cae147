// What a block's logs mean for custody: the owner disabled or re-enabled a delegation, a Replicant spent
// through a Golem's grant, or the operator registered, deregistered or reset a Golem. Logs from other
// contracts, and the Golem's own oracle posts (its ticks made them), are not signals.
import { decodeEventLog, isAddressEqual, toHex, type Address, type Hex } from 'viem'
import { DelegationManager, NonceEnforcer } from '@metamask/delegation-abis'
import { hashDelegation } from '@metamask/smart-accounts-kit/utils'
import { VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import type { AlchemyLog } from './alchemyNotification.ts'
import type { CustodyContracts } from './custodyQuery.ts'

export type CustodySignal =
  /** The owner (or a Golem, for its Replicants) disabled or re-enabled a delegation. */
  | { kind: 'DisabledDelegation' | 'EnabledDelegation'; delegationHash: Hex; delegator: Address; delegate: Address; txHash: Hex }
  /** A redemption: `leafDelegator` signed the delegation that was redeemed. */
  | { kind: 'RedeemedDelegation'; leafHash: Hex; leafDelegator: Address; redeemer: Address; txHash: Hex }
  /** The owner incremented its NonceEnforcer nonce: every grant it made at the old nonce is void. */
  | { kind: 'NonceIncremented'; delegator: Address; txHash: Hex }
  /** The operator changed a Golem's registration or reset its phase. */
  | { kind: 'GolemRegistered' | 'GolemDeregistered' | 'PhaseReset'; golem: Address; txHash: Hex }

export type DecodedSignals = { signals: CustodySignal[]; ignored: number }

/** The oracle events a Golem's own tick causes (phase posts, vitality reports, key rotation): echoes. */
const ORACLE_SIGNALS = new Set(['GolemRegistered', 'GolemDeregistered', 'PhaseReset'])

function decodeOne(log: AlchemyLog, contracts: CustodyContracts): CustodySignal | undefined {
  const topics = log.topics as [Hex, ...Hex[]]
  if (topics.length === 0) return undefined
  try {
    if (isAddressEqual(log.address, contracts.delegationManager)) {
      const e = decodeEventLog({ abi: DelegationManager, data: log.data, topics })
      if (e.eventName === 'DisabledDelegation' || e.eventName === 'EnabledDelegation')
        return {
          kind: e.eventName,
          delegationHash: e.args.delegationHash,
          delegator: e.args.delegator,
          delegate: e.args.delegate,
          txHash: log.txHash,
        }
      if (e.eventName === 'RedeemedDelegation')
        return {
          kind: 'RedeemedDelegation',
          leafHash: hashDelegation({ ...e.args.delegation, salt: toHex(e.args.delegation.salt), caveats: [...e.args.delegation.caveats] }),
          leafDelegator: e.args.delegation.delegator,
          redeemer: e.args.redeemer,
          txHash: log.txHash,
        }
      return undefined
    }
    if (contracts.nonceEnforcer && isAddressEqual(log.address, contracts.nonceEnforcer)) {
      const e = decodeEventLog({ abi: NonceEnforcer, data: log.data, topics })
      if (e.eventName !== 'UsedNonce' || !isAddressEqual(e.args.delegationManager, contracts.delegationManager)) return undefined
      return { kind: 'NonceIncremented', delegator: e.args.delegator, txHash: log.txHash }
    }
    if (isAddressEqual(log.address, contracts.vitalityOracle)) {
      const e = decodeEventLog({ abi: VitalityOracleAbi, data: log.data, topics })
      if (!ORACLE_SIGNALS.has(e.eventName)) return undefined
      const golem = (e.args as { golem: Address }).golem
      return { kind: e.eventName as 'GolemRegistered' | 'GolemDeregistered' | 'PhaseReset', golem, txHash: log.txHash }
    }
  } catch {
    // A log the ABI does not describe (another event, or malformed data) is not a signal.
    return undefined
  }
  return undefined
}

/** Decodes the logs of our contracts; everything else is counted as ignored. */
export function decodeCustodySignals(logs: readonly AlchemyLog[], contracts: CustodyContracts): DecodedSignals {
  const signals: CustodySignal[] = []
  for (const log of logs) {
    const s = decodeOne(log, contracts)
    if (s) signals.push(s)
  }
  return { signals, ignored: logs.length - signals.length }
}
