// The names of the SST secrets the functions read (stacks/secrets.ts creates one per name and links each
// only where it is needed): one list for the stack that makes them and the functions that read them.
export const SECRET_NAMES = [
  'RpcUrl',
  'OperatorKey',
  'SettlementKey',
  'CladeHmacSecret',
  'ReadApiKeyHashes',
  'AlchemyWebhookSigningKey',
  'ReceiptSigningKey',
  'PrivyAppSecret',
] as const
export type SecretName = (typeof SECRET_NAMES)[number]
