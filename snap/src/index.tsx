// The Bardo Snap: the owner's Golem console inside MetaMask. Each handler is a few lines that wire
// MetaMask's APIs to the pure pieces (cronjob, alerts, insights, format).
import {
  InvalidParamsError,
  MethodNotFoundError,
  UnauthorizedError,
  type Json,
  type OnCronjobHandler,
  type OnHomePageHandler,
  type OnRpcRequestHandler,
  type OnSignatureHandler,
  type OnTransactionHandler,
  type OnUserInputHandler,
} from '@metamask/snaps-sdk'
import { Banner, Bold, Box, Button, Divider, Heading, Link, Text } from '@metamask/snaps-sdk/jsx'
import type { Alert } from './alerts.ts'
import { API_URL, PORTAL_ORIGINS, PORTAL_URL } from './config.ts'
import { runCronjob } from './cronjob.ts'
import { golemLines } from './format.ts'
import { describeSignature, describeTransaction, type Insight } from './insights.ts'
import { getState, setState } from './state.ts'
import { completePairing, PairingError, requestPairingChallenge, type Fetch } from './statusClient.ts'
import type { SnapState } from './types.ts'

/**
 * MetaMask runs the Snap in a sandboxed iframe, so its requests carry `Origin: null`, which the API's
 * Snap routes require. The header is said here too for runtimes without that iframe (the Snaps
 * simulator's Node fetch); a browser drops it as a forbidden header and sends its own, the same `null`.
 */
const snapFetch: Fetch = async (input, init = {}) => fetch(input, { ...init, headers: { ...init.headers, origin: 'null' } })

async function notify(alert: Alert): Promise<void> {
  await snap.request({ method: 'snap_notify', params: { type: 'inApp', message: alert.long.slice(0, 500) } })
  // MetaMask rate-limits native notifications; the in-app one above is the record that always lands.
  await snap.request({ method: 'snap_notify', params: { type: 'native', message: alert.short } }).catch(() => undefined)
}

export const onCronjob: OnCronjobHandler = async ({ request }) => {
  if (request.method !== 'heartbeat') throw new MethodNotFoundError({ method: request.method })
  return runCronjob({ apiUrl: API_URL, fetch: snapFetch, getState, setState, notify })
}

/** MetaMask links only https pages; a local Portal (http://localhost) is shown as its address. */
const PortalLink = ({ path = '' }: { path?: string }) => {
  const href = `${PORTAL_URL}${path}`
  return href.startsWith('https:') ? <Link href={href}>Open the Portal</Link> : <Text>{`Open the Portal: ${href}`}</Text>
}

/** Where the Portal takes over a revocation: one transaction for every Golem named. */
export const revokePath = (golems: readonly string[]) => `/?revoke=${golems.map(encodeURIComponent).join(',')}`

function Console({ state }: { state: SnapState }) {
  const now = state.lastFetchAt
  return (
    <Box>
      <Heading>BARDO GOLEM CONSOLE</Heading>
      {state.authToken === null ? (
        <Banner title="Not paired" severity="warning">
          <Text>
            {state.authProblem === 'refused'
              ? "The API no longer accepts this Snap's token. Pair it again in the Portal."
              : 'Pair this Snap in the Bardo Portal to see your Golems.'}
          </Text>
          <PortalLink />
        </Banner>
      ) : null}
      <Divider />
      {state.golems.length === 0 ? <Text>No Golems yet.</Text> : null}
      {state.golems.map((g) => {
        const l = golemLines(g, now)
        return (
          <Box>
            <Text>
              <Bold>{l.title}</Bold>
            </Text>
            {l.life === null ? null : <Text>{l.life}</Text>}
            <Text>{l.permission}</Text>
            <Text>{l.heartbeat}</Text>
          </Box>
        )
      })}
      <Divider />
      {state.revokeRequest ? (
        <Banner title="Revocation requested" severity="info">
          <Text>{`Sign the revocation of ${state.revokeRequest.golems.length} Golem(s) in the Portal: one transaction from your account.`}</Text>
          <PortalLink path={revokePath(state.revokeRequest.golems)} />
        </Banner>
      ) : null}
      {state.golems.some((g) => g.lifecycle !== 'dead') ? <Button name="revoke-all">Revoke all</Button> : null}
    </Box>
  )
}

export const onHomePage: OnHomePageHandler = async () => ({ content: <Console state={await getState()} /> })

/** Asks the owner to confirm revoking `golems`; on yes, records the request for the Portal to carry out. */
async function confirmRevoke(state: SnapState, golems: string[]): Promise<boolean> {
  const names = state.golems.filter((g) => golems.includes(g.id)).map((g) => g.name)
  const approved = await snap.request({
    method: 'snap_dialog',
    params: {
      type: 'confirmation',
      content: (
        <Box>
          <Heading>{`Revoke ${golems.length} Golem(s)?`}</Heading>
          <Text>{names.length > 0 ? names.join(', ') : golems.join(', ')}</Text>
          <Text>
            Every grant you signed for each Golem is disabled in one transaction once you sign it in the Portal. A revoked Golem dies at its
            next heartbeat and its unspent runway comes back to your account; this cannot be undone.
          </Text>
        </Box>
      ),
    },
  })
  if (approved === true) await setState({ ...(await getState()), revokeRequest: { golems, at: Math.floor(Date.now() / 1000) } })
  return approved === true
}

export const onUserInput: OnUserInputHandler = async ({ id, event }) => {
  if (event.type !== 'ButtonClickEvent' || event.name !== 'revoke-all') return
  const state = await getState()
  await confirmRevoke(
    state,
    state.golems.filter((g) => g.lifecycle !== 'dead').map((g) => g.id),
  )
  await snap.request({ method: 'snap_updateInterface', params: { id, ui: <Console state={await getState()} /> } })
}

function InsightPanel({ insight }: { insight: Insight }) {
  return (
    <Box>
      {insight.severity === 'warning' ? (
        <Banner title={insight.title} severity="warning">
          <Text>Check the details below before you sign.</Text>
        </Banner>
      ) : (
        <Heading>{insight.title}</Heading>
      )}
      {insight.lines.map((line) => (
        <Text>{line}</Text>
      ))}
    </Box>
  )
}

const insightResponse = (insight: Insight | null) =>
  insight === null
    ? null
    : { content: <InsightPanel insight={insight} />, ...(insight.severity === 'critical' ? { severity: 'critical' as const } : {}) }

export const onTransaction: OnTransactionHandler = async ({ transaction, chainId, transactionOrigin }) => {
  const { deployment } = await getState()
  return insightResponse(
    describeTransaction({
      to: transaction.to,
      data: transaction.data,
      chainId,
      origin: transactionOrigin,
      deployment,
      allowedOrigins: PORTAL_ORIGINS,
    }),
  )
}

export const onSignature: OnSignatureHandler = async ({ signature, signatureOrigin }) => {
  const { deployment } = await getState()
  return insightResponse(
    describeSignature({
      signatureMethod: signature.signatureMethod,
      data: signature.data,
      origin: signatureOrigin,
      deployment,
      allowedOrigins: PORTAL_ORIGINS,
    }),
  )
}

const TOKEN = /^bardo_snap_[0-9a-f]{40}\.[A-Za-z0-9_-]{43}$/u
const ADDRESS = /^0x[0-9a-fA-F]{40}$/u

function param<T>(params: unknown, name: string, check: (v: unknown) => v is T, rule: string): T {
  const value = params !== null && typeof params === 'object' ? (params as Record<string, unknown>)[name] : undefined
  if (!check(value)) throw new InvalidParamsError(`${name}: ${rule}`)
  return value
}
const isString = (v: unknown): v is string => typeof v === 'string'
/** An API's origin: scheme, host and optional port, nothing else (a path or credentials would be read as part of every call). */
const isApiOrigin = (v: unknown): v is string => isString(v) && /^https?:\/\/[A-Za-z0-9.-]+(:[0-9]{1,5})?$/u.test(v)
const isText =
  (max: number) =>
  (v: unknown): v is string =>
    typeof v === 'string' && v.length > 0 && v.length <= max

export const onRpcRequest: OnRpcRequestHandler = async ({ origin, request }): Promise<Json> => {
  if (!PORTAL_ORIGINS.includes(origin)) throw new UnauthorizedError(`origin: ${origin} is not the Bardo Portal`)
  const params = request.params
  switch (request.method) {
    case 'getGolemsStatus': {
      const s = await getState()
      return {
        paired: s.authToken !== null,
        authProblem: s.authProblem,
        owner: s.owner,
        lastFetchAt: s.lastFetchAt,
        golems: s.golems as unknown as Json[],
        revokeRequest: s.revokeRequest,
      }
    }
    case 'showApprovalDialog': {
      const title = param(params, 'title', isText(100), 'must be 1-100 characters')
      const body = param(params, 'body', isText(2000), 'must be 1-2000 characters')
      const approved = await snap.request({
        method: 'snap_dialog',
        params: {
          type: 'confirmation',
          content: (
            <Box>
              <Heading>{title}</Heading>
              <Text>{body}</Text>
            </Box>
          ),
        },
      })
      return { approved: approved === true }
    }
    case 'showPlanSummary': {
      const plan = param(
        params,
        'plan',
        (v): v is { golem: string; dailyCapUsdc: string; days: number; caveats: string[] } => {
          const p = v as Record<string, unknown> | null
          return (
            p !== null &&
            typeof p === 'object' &&
            isText(64)(p.golem) &&
            typeof p.dailyCapUsdc === 'string' &&
            /^\d+(\.\d{1,6})?$/u.test(p.dailyCapUsdc) &&
            Number.isInteger(p.days) &&
            (p.days as number) > 0 &&
            Array.isArray(p.caveats) &&
            p.caveats.every(isText(300))
          )
        },
        'must be { golem, dailyCapUsdc (decimal), days (positive integer), caveats (strings) }',
      )
      const approved = await snap.request({
        method: 'snap_dialog',
        params: {
          type: 'confirmation',
          content: (
            <Box>
              <Heading>{`Runway for ${plan.golem}`}</Heading>
              <Text>{`${plan.dailyCapUsdc} USDC a day for ${plan.days} days (at most ${String(Number(plan.dailyCapUsdc) * plan.days)} USDC).`}</Text>
              {plan.caveats.map((c) => (
                <Text>{`• ${c}`}</Text>
              ))}
            </Box>
          ),
        },
      })
      return { approved: approved === true }
    }
    case 'triggerRevoke': {
      const state = await getState()
      const golems = param(
        params,
        'golems',
        (v): v is string[] => Array.isArray(v) && v.length > 0 && v.every(isText(64)),
        'must be a non-empty list of Golem ids',
      )
      const unknown = golems.filter((id) => !state.golems.some((g) => g.id === id))
      if (unknown.length > 0) throw new InvalidParamsError(`golems: ${unknown.join(', ')} not among this owner's Golems`)
      return { approved: await confirmRevoke(state, golems), golems }
    }
    case 'updateAuthToken': {
      const token = param(
        params,
        'token',
        (v): v is string => isString(v) && TOKEN.test(v),
        "must be a Snap token 'bardo_snap_<owner>.<secret>'",
      )
      await setState({ ...(await getState()), authToken: token, authProblem: null })
      return { updated: true }
    }
    case 'startPairing': {
      const owner = param(params, 'owner', (v): v is string => isString(v) && ADDRESS.test(v), 'must be a 20-byte 0x-prefixed hex address')
      // The Portal says where its API is (the local stack picks its port at start): nothing is baked in
      // but the build's default, and the Snap keeps the URL once the owner's signature pairs it.
      const given = params !== null && typeof params === 'object' ? (params as Record<string, unknown>).apiUrl : undefined
      const apiUrl =
        given === undefined
          ? ((await getState()).apiUrl ?? API_URL)
          : param(params, 'apiUrl', isApiOrigin, 'must be an http(s) origin such as http://127.0.0.1:8787 (no path, query or credentials)')
      const pairing = await requestPairingChallenge(snapFetch, apiUrl, owner).catch(rethrowPairing)
      await setState({ ...(await getState()), pairing: { ...pairing, apiUrl } })
      return { message: pairing.message }
    }
    case 'completePairing': {
      const signature = param(
        params,
        'signature',
        (v): v is string => isString(v) && /^0x[0-9a-fA-F]+$/u.test(v),
        'must be 0x-prefixed hex',
      )
      const state = await getState()
      if (state.pairing === null) throw new InvalidParamsError('signature: no pairing was started (call startPairing first)')
      const apiUrl = state.pairing.apiUrl ?? state.apiUrl ?? API_URL
      const paired = await completePairing(snapFetch, apiUrl, state.pairing, signature).catch(rethrowPairing)
      // The token stays inside the Snap: the page that asked for pairing never sees it.
      await setState({
        ...state,
        apiUrl,
        authToken: paired.token,
        authProblem: null,
        owner: paired.owner,
        deployment: paired.deployment,
        pairing: null,
      })
      return { paired: true, owner: paired.owner }
    }
    default:
      throw new MethodNotFoundError({ method: request.method })
  }
}

function rethrowPairing(error: unknown): never {
  if (error instanceof PairingError) throw new InvalidParamsError(`${error.code}: ${error.message}`)
  throw error
}
