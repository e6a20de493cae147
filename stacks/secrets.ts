// Every secret value is an SST secret (`npx sst secret set <Name> <value> --stage <stage>`), stored
// encrypted by SST and handed to a function only through `link` (encrypted into its bundle, read at
// runtime as Resource.<Name>.value). None of them is ever an environment variable.
//
// Who gets which secret (the least-privilege matrix; docs/deploy.md explains each line):
//   RpcUrl            heartbeat, tick, api, indexer (indexer: through an SSM SecureString)
//   OperatorKey       tick only: the VitalityOracle owner key (deregisterGolem at death,
//                     rotateGolemKey at rotation, the audited resetPhase after a credited feed)
//   SettlementKey     api only: a gas-only EOA that submits x402 transferWithAuthorization
//   CladeHmacSecret   api only: signs Clade session tokens
//   ReadApiKeyHashes  api only: SHA-256 hashes of the read-tier API keys
//   AlchemyWebhookSigningKey  api only: verifies Alchemy Notify deliveries (empty: the webhook is off)
//   ReceiptSigningKey api only: signs x402 offers and receipts (empty: none are signed)
//   PrivyAppSecret    tick only: the Privy app's secret, for Golems whose key is a Privy wallet
//                     (empty: the tick holds no Privy wallets; the app id is BARDO_PRIVY_APP_ID)

import type { SecretName } from '../functions/shared/secretNames.ts'

export { SECRET_NAMES, type SecretName } from '../functions/shared/secretNames.ts'
export type Secrets = Record<SecretName, Sst.Secret>

export function createSecrets(): Secrets {
  return {
    RpcUrl: new sst.Secret('RpcUrl'),
    OperatorKey: new sst.Secret('OperatorKey'),
    SettlementKey: new sst.Secret('SettlementKey'),
    CladeHmacSecret: new sst.Secret('CladeHmacSecret'),
    // Optional: with no read keys the read tier is simply closed.
    ReadApiKeyHashes: new sst.Secret('ReadApiKeyHashes', ''),
    // Optional: without it the Alchemy webhook route answers 501 and the heartbeat alone ticks Golems.
    AlchemyWebhookSigningKey: new sst.Secret('AlchemyWebhookSigningKey', ''),
    // Optional: without it x402 offers and receipts are not signed.
    ReceiptSigningKey: new sst.Secret('ReceiptSigningKey', ''),
    // Optional: without it (and BARDO_PRIVY_APP_ID) the tick holds no Privy wallets.
    PrivyAppSecret: new sst.Secret('PrivyAppSecret', ''),
  }
}
