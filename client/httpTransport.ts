// The action client's HTTP transport: signs each request with the Golem's own key (EIP-712 over method,
// path, body hash, timestamp and a fresh nonce) and reads custody's answer back into an ActionOutcome-like
// JSON body. For a runtime that runs apart from custody and holds its key (LocalKey custody).
import { bytesToHex, type LocalAccount } from 'viem'
import { randomBytes } from 'node:crypto'
import { ACTION_HEADERS, actionRequestTypedData } from '../core/actions/index.ts'
import type { ExecuteActionInput } from '../app/actions/executeAction.ts'

export type HttpActionAnswer = { httpStatus: number; body: Record<string, unknown> }

/** Signs and sends one action request; `fetch` is injectable (tests pass the app's own request function). */
export async function postActionRequest(
  p: { baseUrl: string; account: LocalAccount; chainId: number; fetch?: typeof fetch; now?: () => number },
  input: ExecuteActionInput,
): Promise<HttpActionAnswer> {
  const path = `/api/v1/golems/${encodeURIComponent(input.golemId)}/actions`
  const body = JSON.stringify({ requestId: input.requestId, actions: input.actions }, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))
  const headers = await signActionHeaders(p, { method: 'POST', path, body })
  const res = await (p.fetch ?? fetch)(`${p.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  })
  return { httpStatus: res.status, body: (await res.json()) as Record<string, unknown> }
}

/** The three signature headers for one request. */
export async function signActionHeaders(
  p: { account: LocalAccount; chainId: number; now?: () => number },
  r: { method: string; path: string; body: string },
): Promise<Record<string, string>> {
  const timestamp = BigInt(Math.floor((p.now ?? Date.now)() / 1000))
  const nonce = bytesToHex(randomBytes(32))
  const signature = await p.account.signTypedData(actionRequestTypedData(p.chainId, { ...r, timestamp, nonce }))
  return { [ACTION_HEADERS.timestamp]: timestamp.toString(), [ACTION_HEADERS.nonce]: nonce, [ACTION_HEADERS.signature]: signature }
}
