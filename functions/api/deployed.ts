// ApiWiring for the deployed Lambda: plain values from BARDO_* (stacks/functions.ts), secrets from SST
// links (functions/shared/resource.ts): RpcUrl, SettlementKey, CladeHmacSecret, ReadApiKeyHashes,
// AlchemyWebhookSigningKey. The API never holds the OperatorKey; it pays x402 gas with the SettlementKey
// and names the operator as payTo, and the same account deploys the councils owners form and submits
// their user operations. Errors name the variable or secret, never a value.
import { randomUUID } from 'node:crypto'
import { LambdaClient } from '@aws-sdk/client-lambda'
import { KmsSignerResolver } from '../../adapters/signers/kmsSignerResolver.ts'
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  isHex,
  type Address,
  type Chain,
  type Hex,
  type LocalAccount,
  type PublicClient,
  type Transport,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { base, baseSepolia } from 'viem/chains'
import { VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import { BardoError } from '../../core/errors.ts'
import { AlchemySigningKey } from '../../core/webhooks/index.ts'
import { LambdaInvoker } from '../heartbeat/lambdaInvoker.ts'
import { getDefaultAsset } from '@x402/evm'
import { loadApiFunctionConfig } from '../shared/config.ts'
import { resolvePaymentTerms } from '../../app/paymentTerms.ts'
import { optionalSecret, secret } from '../shared/resource.ts'
import { loadApiConfig } from './config.ts'
import type { ApiPaymentWiring, ApiWiring } from './wiring.ts'

const configError = (field: string, rule: string) => new BardoError('INVALID_API_CONFIG', `${field}: ${rule}`, { details: { field } })

function chainFor(chainId: number, rpcUrl: string): Chain {
  if (chainId === base.id) return base
  if (chainId === baseSepolia.id) return baseSepolia
  return defineChain({
    id: chainId,
    name: `chain ${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  })
}

function atomic(env: NodeJS.ProcessEnv, name: string, fallback: bigint): bigint {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!/^\d{1,30}$/.test(raw) || BigInt(raw) === 0n) throw configError(name, "must be a positive integer in the asset's atomic units")
  return BigInt(raw)
}

/**
 * Payment settings. Everything has a default on Base and Base Sepolia:
 * - BARDO_PAY_TO: the operator; default the VitalityOracle's owner (one read at cold start)
 * - BARDO_USDC, BARDO_USDC_NAME, BARDO_USDC_VERSION: default the chain's USDC from @x402/evm
 * - BARDO_RUNTIME_COST_PER_HOUR (default 500000 = $0.50), BARDO_DEATH_RESERVE (default 12000000 = 24 h)
 * - BARDO_X402_CONFIRMATION_TIMEOUT_MS (default 20000, under the function's 30 s)
 * - BARDO_X402_LEDGER_ID: names the payment ledger in settlement tags; default the table name, so two
 *   stages on one chain never credit each other's settlements
 */
export async function loadPaymentWiring(
  env: NodeJS.ProcessEnv,
  chainId: number,
  publicClient: PublicClient<Transport, Chain>,
  vitalityOracle: Address,
  usdcFallback?: Address,
): Promise<ApiPaymentWiring> {
  const key = secret('SettlementKey', env)
  if (!isHex(key) || key.length !== 66) throw configError('SettlementKey', 'must be a 32-byte hex key')
  const settlement = createWalletClient({
    account: privateKeyToAccount(key as Hex),
    chain: publicClient.chain,
    transport: http(secret('RpcUrl', env)),
  })
  const terms = await resolvePaymentTerms(
    env,
    chainId,
    () => publicClient.readContract({ address: vitalityOracle, abi: VitalityOracleAbi, functionName: 'owner' }),
    { usdcFallback, errorCode: 'INVALID_API_CONFIG', knownAsset: getDefaultAsset },
  )
  const timeout = Number(env.BARDO_X402_CONFIRMATION_TIMEOUT_MS ?? 20_000)
  if (!Number.isSafeInteger(timeout) || timeout < 1000)
    throw configError('BARDO_X402_CONFIRMATION_TIMEOUT_MS', 'must be an integer of at least 1000')
  const ledgerId = env.BARDO_X402_LEDGER_ID || env.BARDO_TABLE_NAME
  const receiptSigner = loadReceiptSigner(env, key as Hex)
  return {
    settlement,
    ...(receiptSigner === undefined ? {} : { receiptSigner }),
    ...terms,
    pricing: {
      runtimeCostPerHour: atomic(env, 'BARDO_RUNTIME_COST_PER_HOUR', 500_000n),
      deathReserve: atomic(env, 'BARDO_DEATH_RESERVE', 12_000_000n),
    },
    confirmationTimeoutMs: timeout,
    ...(ledgerId ? { ledgerId } : {}),
  }
}

/**
 * The key that signs x402 offers and receipts (the ReceiptSigningKey secret): the API's own, so it can
 * never be the settlement key. Empty (the default): offers and receipts are not signed.
 */
function loadReceiptSigner(env: NodeJS.ProcessEnv, settlementKey: Hex): LocalAccount | undefined {
  const key = optionalSecret('ReceiptSigningKey', env).trim()
  if (key === '') return undefined
  if (!isHex(key) || key.length !== 66) throw configError('ReceiptSigningKey', 'must be a 32-byte hex key')
  if (key.toLowerCase() === settlementKey.toLowerCase()) throw configError('ReceiptSigningKey', 'must not be the SettlementKey')
  return privateKeyToAccount(key as Hex)
}

/**
 * The Alchemy Notify webhook: with the AlchemyWebhookSigningKey secret set (`bardo deploy` wrote it to a
 * file), deliveries tick the Golems they concern through the tick function, as the heartbeat does.
 * Without it the route answers 501.
 */
export function loadAlchemyWebhookWiring(env: NodeJS.ProcessEnv): ApiWiring['alchemyWebhook'] {
  const key = optionalSecret('AlchemyWebhookSigningKey', env).trim()
  if (key === '') return undefined
  const tick = env.BARDO_TICK_FUNCTION_NAME
  if (!tick) throw configError('BARDO_TICK_FUNCTION_NAME', 'must name the tick function when AlchemyWebhookSigningKey is set')
  let signingKey: AlchemySigningKey
  try {
    signingKey = new AlchemySigningKey(key)
  } catch {
    throw configError('AlchemyWebhookSigningKey', 'must be the webhook signing key from Alchemy Notify')
  }
  return { signingKey, invoker: new LambdaInvoker(new LambdaClient({}), tick) }
}

/** Everything the deployed API needs, read once per cold start. */
export async function loadDeployedWiring(env: NodeJS.ProcessEnv = process.env): Promise<ApiWiring> {
  const fn = loadApiFunctionConfig(env)
  const rpcUrl = secret('RpcUrl', env)
  const publicClient = createPublicClient({ chain: chainFor(fn.chainId, rpcUrl), transport: http(rpcUrl) }) as PublicClient<
    Transport,
    Chain
  >
  const config = loadApiConfig({
    ...env,
    BARDO_CLADE_HMAC_SECRET: secret('CladeHmacSecret', env),
    BARDO_READ_API_KEY_HASHES: optionalSecret('ReadApiKeyHashes', env),
  })
  const payments = await loadPaymentWiring(env, fn.chainId, publicClient, fn.deployment.vitalityOracle, fn.deployment.assets?.usdc)
  const alchemyWebhook = loadAlchemyWebhookWiring(env)
  return {
    config,
    store: fn.store,
    publicClient,
    deployment: fn.deployment,
    indexerUrl: env.BARDO_INDEXER_URL || undefined,
    payments,
    // The Golems' runtimes act through the action path with their KMS keys, as the tick redeems with them;
    // each instance holds an action's send slot under its own name.
    actions: { signers: new KmsSignerResolver(fn.deployment), invocationId: `api-${randomUUID()}` },
    ...(alchemyWebhook ? { alchemyWebhook } : {}),
    // Owners form councils here: kept in the same table, deployed and run by the settlement account. A
    // real chain has no default price feeds and no fronted gas: the owner names the feeds and funds the council.
    councils: { store: fn.store, submitter: payments.settlement },
    onUnexpectedError: logUnexpected,
  }
}

/** One JSON line per unexpected error: name, code and a message with URLs cut (an RPC URL may carry a key). */
export function logUnexpected(error: unknown): void {
  const e = error instanceof Error ? error : new Error(String(error))
  const message = e.message
    .replace(/\b\w+:\/\/\S+/g, '[url]')
    .replace(/(?<![0-9a-fA-Fx])(0x)?[0-9a-fA-F]{64}(?![0-9a-fA-F])/g, '[redacted]')
    .split('\n')[0]!
    .slice(0, 300)
  process.stdout.write(`${JSON.stringify({ apiError: { name: e.name, code: (e as { code?: unknown }).code ?? null, message } })}\n`)
}
