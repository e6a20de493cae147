// The Alchemy Notify custom-webhook query `bardo deploy` registers: every block's logs from the
// DelegationManager and the VitalityOracle, with what the API needs to decode them (the shape
// core/webhooks/alchemyNotification.ts parses). Blocks without such logs are not delivered.
import { getAddress } from 'viem'
import type { CustodyContracts } from './custodySignals.ts'

export function custodyWebhookQuery(contracts: CustodyContracts): string {
  const addresses = [contracts.delegationManager, contracts.vitalityOracle].map((a) => `"${getAddress(a)}"`).join(', ')
  return `{
  block {
    number
    hash
    timestamp
    logs(filter: { addresses: [${addresses}], topics: [] }) {
      index
      data
      topics
      account { address }
      transaction { hash }
    }
  }
}`
}

/** The path the API serves deliveries on, under its public base URL. */
export const ALCHEMY_WEBHOOK_PATH = '/api/v1/webhooks/alchemy'
