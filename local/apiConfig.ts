// What the runner hands its API process (local/apiProcess.ts): a JSON file in the state directory (mode
// 0600) with the chain, the deployment file, the store, the indexer and the port. No secret goes in it:
// the stack keys' secret and the read key's hash reach the process in its environment.

export type ApiConfig = {
  stateDir: string
  rpcUrl: string
  chainId: number
  /** True when the chain is this stack's own anvil. */
  devnet: boolean
  deploymentFile: string | undefined
  /** dynalite's endpoint and table; absent for a DynamoDB table from the environment (BARDO_TABLE_NAME). */
  store: { endpoint: string; tableName: string } | undefined
  indexerUrl: string | undefined
  /** The port every start of the API serves on. */
  port: number
  lifeSeconds: number
  periodSeconds: number
}

/** Where the runner hands the read key's hash (the API holds the hash only). */
export const READ_KEY_HASH_ENV = 'BARDO_READ_KEY_HASH'
