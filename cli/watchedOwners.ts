// The Alchemy webhook's watched owners: the webhook variable its query filters the DelegationManager's
// events by (core/webhooks/custodyQuery.ts). `bardo deploy` creates it, `bardo onboard` adds the new
// Golem's owner before anything is signed, and `bardo watch-owners` adds the owner of every living Golem
// in the store (Golems onboarded before the webhook, or without the token). Alchemy's variable API is
// additive and ignores items it already has, so every call may be repeated; alchemy-sdk has no
// variable calls, so this speaks the Notify REST API with the same token.
import { getAddress, type Address, type Hex } from 'viem'
import type { Store } from '../core/store/index.ts'
import { NO_OWNER_TOPIC, ownerTopic } from '../core/webhooks/index.ts'
import { CliConfigError, CliRefusedError } from './errors.ts'

/** What a call to the Notify API needs: the team's auth token, and its base URL (tests: a local stub). */
export type AlchemyNotifyAccess = { authToken: string; notifyApiUrl?: string }

const NOTIFY_API = 'https://dashboard.alchemy.com/api'
/** Alchemy takes at most this many items per variable request. */
const ITEMS_PER_REQUEST = 10_000

/** The token from ALCHEMY_NOTIFY_TOKEN (and ALCHEMY_NOTIFY_API_URL), or undefined when it is not set. */
export function alchemyNotifyAccess(env: NodeJS.ProcessEnv): AlchemyNotifyAccess | undefined {
  const authToken = env.ALCHEMY_NOTIFY_TOKEN
  if (!authToken) return undefined
  const url = env.ALCHEMY_NOTIFY_API_URL
  if (url !== undefined && url !== '' && !/^https?:\/\//.test(url))
    throw new CliConfigError('ALCHEMY_NOTIFY_API_URL', `must be an http or https URL, got ${JSON.stringify(url)}`)
  return { authToken, ...(url ? { notifyApiUrl: url } : {}) }
}

/**
 * Adds the owners to the variable (creating it if need be); the zero address always goes with them,
 * so the variable is never empty.
 */
export async function watchOwners(access: AlchemyNotifyAccess, variable: string, owners: readonly string[]): Promise<void> {
  const topics = [...new Set([NO_OWNER_TOPIC, ...owners.map(ownerTopic)])]
  const url = `${(access.notifyApiUrl ?? NOTIFY_API).replace(/\/+$/, '')}/graphql/variables/${encodeURIComponent(variable)}`
  for (let at = 0; at < topics.length; at += ITEMS_PER_REQUEST) {
    const items: Hex[] = topics.slice(at, at + ITEMS_PER_REQUEST)
    let status: number
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-alchemy-token': access.authToken },
        body: JSON.stringify({ items }),
        signal: AbortSignal.timeout(30_000),
      })
      status = res.status
      await res.body?.cancel()
    } catch (e) {
      throw new CliRefusedError(
        'ALCHEMY_NOTIFY_TOKEN',
        `Alchemy Notify did not answer adding to variable ${variable} (${e instanceof Error ? e.name : 'error'})`,
      )
    }
    // The answer's text is Alchemy's; only its status is reported, never the token.
    if (status < 200 || status >= 300)
      throw new CliRefusedError('ALCHEMY_NOTIFY_TOKEN', `Alchemy Notify refused adding to variable ${variable} (status ${status})`)
  }
}

/** The owners of every Golem in the store that is not dead (the due list holds each such Golem once). */
export async function livingOwners(store: Store): Promise<Address[]> {
  const owners = new Map<string, Address>()
  let cursor: string | null = null
  do {
    const page = await store.listDueGolems({ now: Number.MAX_SAFE_INTEGER, cursor })
    for (const g of await store.getGolems(page.golems.map((d) => d.golemId)))
      if (g.status !== 'dead') owners.set(g.owner.toLowerCase(), getAddress(g.owner))
    cursor = page.cursor
  } while (cursor !== null)
  return [...owners.values()]
}
