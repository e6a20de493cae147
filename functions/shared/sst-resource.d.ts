// What SST links into the functions (stacks/secrets.ts), as `sst install` would generate it for
// `Resource` from 'sst/resource'. Every linked secret is an sst.Secret: `{ type, value }`.
import 'sst/resource'

type LinkedSecret = { type: 'sst.sst.Secret'; value: string }

declare module 'sst/resource' {
  export interface Resource {
    RpcUrl: LinkedSecret
    OperatorKey: LinkedSecret
    SettlementKey: LinkedSecret
    CladeHmacSecret: LinkedSecret
    ReadApiKeyHashes: LinkedSecret
    AlchemyWebhookSigningKey: LinkedSecret
    ReceiptSigningKey: LinkedSecret
    PrivyAppSecret: LinkedSecret
  }
}
