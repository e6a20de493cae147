// The owner's acts from the browser wallet, drafted by the API: revoke (one user operation from the
// owner's smart account disabling every grant of the Golems named, signed in the wallet and submitted from
// the owner's own wallet account), renew (the superseding grant signed in the wallet, posted to the API),
// adjust (a narrower grant posted to the API, then one user operation disabling what it supersedes), grant
// and revoke a read-only observer (a grant posted to the API; one user operation disabling it), and
// pay extend/feed with x402 (the stock @x402 client logic, signing the EIP-3009 authorization with
// eth_signTypedData_v4).
import { registerExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment, x402Client } from '@x402/fetch'
import { postJson, RequestError, type Config, type Draft } from './api.ts'
import type { councilFormRequest } from './council.ts'
import type { UserOperationDraft } from './userOperation.ts'
import { signTypedData, submitUserOperation, type Eip1193Provider } from './wallet.ts'

export type Wallet = { provider: Eip1193Provider; address: `0x${string}` }

export type Revoked = { txHash: string; grants: number }

/**
 * The owner's one act: every grant the owner signed for these Golems, disabled in one user operation
 * signed in the wallet; then each Golem is told, so its next heartbeat runs the death protocol.
 */
export async function revoke(wallet: Wallet, golemIds: readonly string[]): Promise<Revoked> {
  const draft = await postJson<Draft<UserOperationDraft & { grants: unknown[] }>>('/api/v1/revocation-draft', { golems: golemIds })
  const signature = await signTypedData(wallet.provider, wallet.address, draft.typedData)
  const txHash = await submitUserOperation(wallet.provider, wallet.address, draft, signature)
  for (const id of golemIds) await postJson(`/api/v1/golems/${encodeURIComponent(id)}/revocation`)
  return { txHash, grants: draft.grants.length }
}

/**
 * The renewal starts on the grant's next period boundary as of the draft. An owner who signs after that
 * boundary has passed is refused (the period is the old grant's by then), and is asked once more with a
 * fresh draft rather than shown the refusal.
 */
export async function renew(wallet: Wallet, golemId: string): Promise<{ delegationHash: string; grant_ends_at: number }> {
  for (let attempt = 1; ; attempt++) {
    const draft = await postJson<Draft<{ delegation: Record<string, unknown> }>>(
      `/api/v1/golems/${encodeURIComponent(golemId)}/renewal-draft`,
    )
    const signature = await signTypedData(wallet.provider, wallet.address, draft.typedData)
    try {
      return await postJson(`/api/v1/golems/${encodeURIComponent(golemId)}/renewal`, { delegation: { ...draft.delegation, signature } })
    } catch (error) {
      const boundaryPassed =
        error instanceof RequestError && error.code === 'RENEWAL_REFUSED' && error.field === 'erc20PeriodTransfer.startDate'
      if (!boundaryPassed || attempt === 2) throw error
    }
  }
}

/**
 * The owner's answer to a key rotation only the owner can complete: the grant to the new key, drafted by
 * the API (the newest grant's runway and end, from the runway grid's next boundary), signed in the wallet
 * and given to the API, which keeps it for the next heartbeat to install.
 */
export async function answerRotation(wallet: Wallet, golemId: string): Promise<{ to: string; periodStart: number }> {
  const id = encodeURIComponent(golemId)
  type GrantDraft = Draft<{ delegation: Record<string, unknown> }>
  const draft = await postJson<GrantDraft & { gas?: GrantDraft }>(`/api/v1/golems/${id}/rotation-grant-draft`)
  const signature = await signTypedData(wallet.provider, wallet.address, draft.typedData)
  // The old key's gas grant names the old key only: the new key's is signed beside the runway's.
  const gas = draft.gas
    ? { gas: { ...draft.gas.delegation, signature: await signTypedData(wallet.provider, wallet.address, draft.gas.typedData) } }
    : {}
  return postJson(`/api/v1/golems/${id}/rotation-grant`, { delegation: { ...draft.delegation, signature }, ...gas })
}

type CouncilDraft = { salt: string; threshold: number; scope: Record<string, unknown>; delegation: Record<string, unknown> }

/**
 * The owner forms a council of the owner's Golems: the API drafts the council (its MultiSig DeleGator)
 * and the owner's bounded delegation to it, the wallet signs the delegation, and the API checks it,
 * deploys the council and keeps it; its members then propose and sign through the API.
 */
export async function formCouncil(wallet: Wallet, request: ReturnType<typeof councilFormRequest>): Promise<{ council: string }> {
  const draft = await postJson<Draft<CouncilDraft>>('/api/v1/councils/draft', request)
  const signature = await signTypedData(wallet.provider, wallet.address, draft.typedData)
  return postJson('/api/v1/councils', {
    golems: request.golems,
    threshold: draft.threshold,
    scope: draft.scope,
    salt: draft.salt,
    delegation: { ...draft.delegation, signature },
  })
}

export type Adjusted = { delegationHash: string; periodAmount: string; periodStart: number; grant_ends_at: number; txHash: string }

/**
 * The owner lowers the period amount or ends the grant earlier without revoking it: the narrower grant is
 * signed in the wallet and given to the API, then one user operation from the owner's account, also signed
 * in the wallet, disables every grant it supersedes. The Golem switches to it at its next heartbeat.
 */
export async function adjust(wallet: Wallet, golemId: string, change: { periodAmount?: string; endsAt?: number }): Promise<Adjusted> {
  const id = encodeURIComponent(golemId)
  for (let attempt = 1; ; attempt++) {
    const draft = await postJson<Draft<{ delegation: Record<string, unknown>; disable: Draft<UserOperationDraft & { grants: string[] }> }>>(
      `/api/v1/golems/${id}/adjustment-draft`,
      change,
    )
    const signature = await signTypedData(wallet.provider, wallet.address, draft.typedData)
    let adjusted: Omit<Adjusted, 'txHash'>
    try {
      adjusted = await postJson(`/api/v1/golems/${id}/adjustment`, { delegation: { ...draft.delegation, signature } })
    } catch (error) {
      // Like a renewal, the adjustment starts at the next boundary as of the draft: one that passed while
      // the owner signed is drafted and asked once more.
      const boundaryPassed =
        error instanceof RequestError && error.code === 'ADJUSTMENT_REFUSED' && error.field === 'erc20PeriodTransfer.startDate'
      if (!boundaryPassed || attempt === 2) throw error
      continue
    }
    const disabling = await signTypedData(wallet.provider, wallet.address, draft.disable.typedData)
    const txHash = await submitUserOperation(wallet.provider, wallet.address, draft.disable, disabling)
    return { ...adjusted, txHash }
  }
}

/** An observer grant as the API keeps and lists it. */
export type ObserverGrant = {
  delegationHash: string
  observer: string
  publish: string[]
  expiresAt: number | null
  maxCalls: number | null
  status: 'active' | 'revoked' | 'expired'
}

/**
 * The owner grants a read-only observer (docs/observer.md): the API drafts the delegation from the
 * owner's account (publish to the Dream and Daimon oracles, nothing else), the wallet signs it, and the
 * API keeps it once the signature checks out against the owner's account.
 */
export async function grantObserver(
  wallet: Wallet,
  golemId: string,
  request: { observer: string; publish?: string[]; expiresAt?: number },
): Promise<ObserverGrant> {
  const id = encodeURIComponent(golemId)
  const draft = await postJson<Draft<{ delegation: Record<string, unknown> }>>(`/api/v1/golems/${id}/observer-draft`, request)
  const signature = await signTypedData(wallet.provider, wallet.address, draft.typedData)
  return postJson(`/api/v1/golems/${id}/observers`, { delegation: { ...draft.delegation, signature } })
}

/** The owner revokes an observer grant: one user operation from the owner's account, signed in the wallet and sent by it. */
export async function revokeObserver(wallet: Wallet, golemId: string, delegationHash: string): Promise<Revoked> {
  const draft = await postJson<Draft<UserOperationDraft & { grants: string[] }>>(
    `/api/v1/golems/${encodeURIComponent(golemId)}/observers/revocation-draft`,
    { delegationHash },
  )
  const signature = await signTypedData(wallet.provider, wallet.address, draft.typedData)
  return { txHash: await submitUserOperation(wallet.provider, wallet.address, draft, signature), grants: draft.grants.length }
}

/** Largest payment the page signs without asking again (20 USDC: a feed is the death reserve, 12 USDC). */
const MAX_PAYMENT = '20000000'

export async function pay(
  wallet: Wallet,
  config: Config,
  kind: 'extend' | 'feed',
  golemId: string,
): Promise<{ credit: { kind: string; amount: string } }> {
  const client = new x402Client()
  registerExactEvmScheme(client, {
    signer: { address: wallet.address, signTypedData: (m) => signTypedData(wallet.provider, wallet.address, m as never) },
  })
  // The local TestUSDC is no default asset of the client: allowed explicitly, with a per-payment cap.
  client.setSpendControls({ allowedAssets: [{ network: config.network, asset: config.usdc, maxAmountPerPayment: MAX_PAYMENT }] })
  const paying = wrapFetchWithPayment(fetch, client)
  const res = await paying(`/api/v1/${kind}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(kind === 'extend' ? { golemId, hours: 1 } : { golemId }),
  })
  const body = (await res.json()) as { credit: { kind: string; amount: string }; code?: string; message?: string }
  if (!res.ok) throw new Error(`${kind}: ${res.status} ${body.code ?? ''} ${body.message ?? ''}`.trim())
  return body
}
