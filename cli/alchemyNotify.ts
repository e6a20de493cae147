// `bardo deploy` with an Alchemy Notify token: registers the custom webhook that delivers each block's
// custody events (the DelegationManager's for watched owners, the VitalityOracle's operator events) to
// the API's POST /api/v1/webhooks/alchemy, so an owner's revocation ticks its Golem within seconds. The
// watched-owners variable the query reads is created first (cli/watchedOwners.ts). Idempotent: a webhook
// already pointed at the same URL with the same query is kept; one with another query (the contracts were
// redeployed, or an older query) is replaced. Without ALCHEMY_NOTIFY_TOKEN nothing is registered and
// nothing changes. The webhook's signing key is written to a file only its owner can read, never printed.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { Alchemy, Network, WebhookType, type AlchemySettings, type Webhook } from 'alchemy-sdk'
import { ALCHEMY_WEBHOOK_PATH, custodyWebhookQuery, watchedOwnersVariable, type CustodyContracts } from '../core/webhooks/index.ts'
import { CliConfigError, CliRefusedError } from './errors.ts'
import { alchemyNotifyAccess, watchOwners, type AlchemyNotifyAccess } from './watchedOwners.ts'

/** The Notify network of each chain Alchemy serves and Bardo deploys to; ALCHEMY_NETWORK overrides it. */
const NETWORK_OF_CHAIN: Record<number, Network> = {
  1: Network.ETH_MAINNET,
  11155111: Network.ETH_SEPOLIA,
  8453: Network.BASE_MAINNET,
  84532: Network.BASE_SEPOLIA,
  10: Network.OPT_MAINNET,
  42161: Network.ARB_MAINNET,
}

export type AlchemyNotifySettings = AlchemyNotifyAccess & {
  appId: string
  network: Network
  /** The public URL deliveries go to: BARDO_API_URL + /api/v1/webhooks/alchemy. */
  webhookUrl: string
  /** Where the signing key is written (mode 0600). */
  signingKeyFile: string
}

/** The settings from the environment, or undefined when ALCHEMY_NOTIFY_TOKEN is not set. */
export function alchemyNotifySettings(env: NodeJS.ProcessEnv, chainId: number, stateDir: string): AlchemyNotifySettings | undefined {
  const access = alchemyNotifyAccess(env)
  if (!access) return undefined
  const appId = env.ALCHEMY_APP_ID
  if (!appId) throw new CliConfigError('ALCHEMY_APP_ID', 'must name the Alchemy app the webhook belongs to (custom webhooks need one)')
  const api = env.BARDO_API_URL
  if (!api || !/^https:\/\//.test(api) || /^https:\/\/(localhost|127\.)/.test(api))
    throw new CliConfigError('BARDO_API_URL', "must be the API's public https URL (Alchemy delivers the webhook there)")
  const named = env.ALCHEMY_NETWORK
  const network = named ? (Object.values(Network) as string[]).find((n) => n === named) : NETWORK_OF_CHAIN[chainId]
  if (!network)
    throw new CliConfigError(
      'ALCHEMY_NETWORK',
      named
        ? `must be an Alchemy network such as base-mainnet, got ${JSON.stringify(named)}`
        : `must be set: chain ${chainId} has no default`,
    )
  return {
    ...access,
    appId,
    network: network as Network,
    webhookUrl: `${api.replace(/\/+$/, '')}${ALCHEMY_WEBHOOK_PATH}`,
    signingKeyFile: env.ALCHEMY_SIGNING_KEY_FILE || `${stateDir}/alchemy-webhook-signing-key`,
  }
}

export type RegisteredWebhook = {
  id: string
  url: string
  network: string
  /** created: a new webhook; kept: the existing one was already right; replaced: its query was stale. */
  status: 'created' | 'kept' | 'replaced'
  signingKeyFile: string
  /** The webhook variable of the watched owners its query filters by. */
  ownersVariable: string
}

const sameQuery = (a: string, b: string) => a.replace(/\s+/g, '') === b.replace(/\s+/g, '')

export async function registerCustodyWebhook(
  s: AlchemyNotifySettings,
  contracts: CustodyContracts,
  chainId: number,
  progress: (line: string) => void,
): Promise<RegisteredWebhook> {
  const ownersVariable = watchedOwnersVariable(chainId, contracts.vitalityOracle)
  const settings: AlchemySettings = {
    authToken: s.authToken,
    network: s.network,
    // A refused token is not worth five retries with backoff.
    maxRetries: 1,
    requestTimeout: 30_000,
    ...(s.notifyApiUrl ? { url: s.notifyApiUrl } : {}),
  }
  const notify = new Alchemy(settings).notify
  const query = custodyWebhookQuery(contracts, ownersVariable)
  const call = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run()
    } catch (e) {
      // The SDK's error text is the status and Alchemy's answer; it never holds the token.
      throw new CliRefusedError('ALCHEMY_NOTIFY_TOKEN', `Alchemy Notify refused ${what} (${e instanceof Error ? e.message : 'error'})`)
    }
  }
  const { webhooks } = await call('listing the webhooks', () => notify.getAllWebhooks())
  // The query names the variable, so it exists before the webhook does.
  await watchOwners(s, ownersVariable, [])
  const existing = webhooks.filter((w) => w.url === s.webhookUrl && w.type === WebhookType.GRAPHQL)
  let webhook: Webhook | undefined
  let status: RegisteredWebhook['status'] = 'created'
  for (const w of existing) {
    const { graphqlQuery } = await call(`reading webhook ${w.id}`, () => notify.getGraphqlQuery(w.id))
    if (!webhook && typeof graphqlQuery === 'string' && sameQuery(graphqlQuery, query)) {
      webhook = w
      status = 'kept'
      continue
    }
    // Another query at our URL: contracts this deployment no longer uses, or an older query.
    await call(`deleting webhook ${w.id}`, () => notify.deleteWebhook(w.id))
    progress(`alchemy      removed webhook ${w.id} (its query was another)`)
    status = 'replaced'
  }
  if (!webhook) {
    webhook = await call('creating the webhook', () =>
      notify.createWebhook(s.webhookUrl, WebhookType.GRAPHQL, {
        graphqlQuery: query,
        appId: s.appId,
        network: s.network,
        skipEmptyMessages: true,
        name: 'bardo-custody',
      }),
    )
  }
  if (!webhook.signingKey) throw new CliRefusedError('ALCHEMY_NOTIFY_TOKEN', `webhook ${webhook.id} came back without a signing key`)
  mkdirSync(dirname(s.signingKeyFile), { recursive: true, mode: 0o700 })
  writeFileSync(s.signingKeyFile, `${webhook.signingKey}\n`, { mode: 0o600 })
  chmodSync(s.signingKeyFile, 0o600)
  progress(
    `alchemy      webhook ${webhook.id} ${status} -> ${s.webhookUrl}; signing key in ${s.signingKeyFile}; watched owners in variable ${ownersVariable}`,
  )
  return { id: webhook.id, url: s.webhookUrl, network: s.network, status, signingKeyFile: s.signingKeyFile, ownersVariable }
}
