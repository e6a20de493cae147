// `bardo observer grant | list | revoke`: the owner's read-only observers of a Golem, through the API's
// drafts as the dashboard makes them. The owner's key (BARDO_OWNER_KEY) signs only what this process has
// checked: the observer delegation from the owner's account (core/custody checkObserverDraft, the rule
// the API applies to what it keeps) and a user operation of the owner's account whose every call is
// DelegationManager.disableDelegation, each signed over typed data built here from the draft's parts. The
// signed operation goes to EntryPoint.handleOps from BARDO_SUBMITTER_KEY or the owner's own key.
import { existsSync } from 'node:fs'
import type { Delegation } from '@metamask/smart-accounts-kit'
import { getAddress, isAddressEqual, parseEventLogs, type Account, type Address, type Hex } from 'viem'
import { entryPoint07Abi, toPackedUserOperation } from 'viem/account-abstraction'
import { estimateContractGasWithHeadroom } from '../adapters/chain/gasHeadroom.ts'
import { ownerOperationCalls, ownerOperationTypedData } from '../adapters/chain/userOperation.ts'
import { OBSERVER_PUBLISH_METHODS, type ObserverPublishMethod } from '../core/caveats/observerScope.ts'
import { DISABLE_DELEGATION_SELECTOR } from '../core/custody/policy.ts'
import { checkObserverDraft, ObserverGrantError } from '../core/custody/observerGrant.ts'
import { delegationDomainOf, delegationTypedData } from '../core/delegations/typedData.ts'
import type { OwnerAccount } from '../local/devnet.ts'
import { signedUserOperation, type UserOperationDraft } from '../web/src/userOperation.ts'
import { accessToken, authFilePath, type AuthIo } from './auth.ts'
import type { CliChain, CliDeployment } from './context.ts'
import { CliConfigError, CliRefusedError, CliUsageError } from './errors.ts'
import { chainTime } from './output.ts'
import { sendingAs, submitterRole } from './unfunded.ts'

/** An observer grant as the API answers it. */
export type ObserverView = {
  delegationHash: Hex
  observer: Address
  publish: ObserverPublishMethod[]
  expiresAt: number | null
  maxCalls: number | null
  status: 'active' | 'revoked' | 'expired'
  delegation: Delegation
}

/** The API's fields, as the flags that set them. */
const FLAG_OF: Record<string, string> = {
  observer: '--observer',
  publish: '--publish',
  expiresAt: '--expires',
  maxCalls: '--max-calls',
  delegationHash: '--delegation',
  golem: '--golem',
  id: '--golem',
}

type ErrorAnswer = { code?: string; message?: string; details?: { field?: string; issues?: { path?: string }[] } }

/** The API's answer; a refusal names the flag behind the field the API names. */
async function answerOf<T>(res: Response): Promise<T> {
  const body = (await res.json().catch(() => ({}))) as T & ErrorAnswer
  if (!res.ok) {
    const field = body.details?.field ?? body.details?.issues?.[0]?.path?.split('.')[0]
    const flag = field === undefined ? '--golem' : (FLAG_OF[field] ?? `api.${field}`)
    throw new CliRefusedError(flag, `the API refused: ${res.status} ${body.code ?? ''} ${body.message ?? ''}`.trim(), { code: body.code })
  }
  return body
}

const call = async <T>(send: typeof fetch, url: string, init?: RequestInit): Promise<T> => answerOf<T>(await send(url, init))

const post = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
})

export function publishFlag(raw: string | undefined): ObserverPublishMethod[] | undefined {
  if (raw === undefined) return undefined
  const names = Object.keys(OBSERVER_PUBLISH_METHODS)
  const methods = raw.split(',').map((m) => m.trim())
  const wrong = methods.find((m) => !names.includes(m))
  if (wrong !== undefined || methods.length === 0)
    throw new CliUsageError('--publish', `must be a comma-separated list of ${names.join(', ')}, got ${JSON.stringify(raw)}`)
  return methods as ObserverPublishMethod[]
}

const SPAN: Record<string, bigint> = { s: 1n, m: 60n, h: 3600n, d: 86_400n }

/** `--expires`: a span from chain time now (90m, 24h, 7d) or an ISO 8601 time; unix seconds. */
export function expiresFlag(raw: string | undefined, now: bigint): bigint | undefined {
  if (raw === undefined) return undefined
  const span = /^([1-9]\d{0,9})([smhd])$/.exec(raw)
  if (span) return now + BigInt(span[1]!) * SPAN[span[2]!]!
  const at = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/.test(raw) ? Date.parse(raw) : Number.NaN
  if (!Number.isFinite(at))
    throw new CliUsageError(
      '--expires',
      `must be a span from now such as 90m, 24h or 7d, or an ISO 8601 time such as 2030-01-01T00:00:00Z, got ${JSON.stringify(raw)}`,
    )
  return BigInt(Math.floor(at / 1000))
}

export async function grantObserver(o: {
  api: string
  chain: CliChain
  deployment: CliDeployment
  owner: OwnerAccount
  golemId: string
  observer: Address
  publish?: ObserverPublishMethod[]
  expiresAt?: bigint
  maxCalls?: number
  fetch?: typeof fetch
  progress(line: string): void
}): Promise<ObserverView & { golemId: string; recorded: boolean }> {
  const send = o.fetch ?? fetch
  const base = `${o.api}/api/v1/golems/${encodeURIComponent(o.golemId)}`
  const draft = await call<{ delegation: Delegation }>(
    send,
    `${base}/observer-draft`,
    post({
      observer: o.observer,
      ...(o.publish ? { publish: o.publish } : {}),
      ...(o.expiresAt === undefined ? {} : { expiresAt: Number(o.expiresAt) }),
      ...(o.maxCalls === undefined ? {} : { maxCalls: o.maxCalls }),
    }),
  )
  // What the owner's key signs is checked here first, as a wallet shows a grant before signing it.
  const unsigned = { ...draft.delegation, signature: '0x' as const }
  if (!isAddressEqual(unsigned.delegator, o.owner.address))
    throw new CliRefusedError(
      'BARDO_OWNER_KEY',
      `its smart account ${o.owner.address} is not the owner of Golem ${o.golemId} (${getAddress(unsigned.delegator)})`,
    )
  if (!isAddressEqual(unsigned.delegate, o.observer))
    throw new CliRefusedError('--observer', `the API drafted a grant to ${unsigned.delegate}, not to ${o.observer}`)
  const now = (await o.chain.publicClient.getBlock()).timestamp
  try {
    checkObserverDraft({
      delegation: unsigned,
      owner: o.owner.address,
      deployment: o.deployment,
      environment: o.deployment.environment,
      now,
    })
  } catch (error) {
    if (error instanceof ObserverGrantError)
      throw new CliRefusedError('draft', `the API drafted more than an observer's grant: ${error.message}`)
    throw error
  }
  const signature = await o.owner.signer.signTypedData(delegationTypedData(unsigned, delegationDomainOf(o.deployment)) as never)
  o.progress(`signed        the observer grant to ${o.observer} with the owner's key`)
  const res = await send(`${base}/observers`, post({ delegation: { ...unsigned, signature } }))
  const kept = await answerOf<ObserverView>(res)
  return { golemId: o.golemId, recorded: res.status === 201, ...kept }
}

/**
 * The read credential for the list: BARDO_READ_API_KEY (the local stack's, from its state directory),
 * else the owner's sign-in (`bardo login`) to this API.
 */
export async function readerHeaders(env: NodeJS.ProcessEnv, api: string, io: AuthIo): Promise<Record<string, string>> {
  if (env.BARDO_READ_API_KEY) return { 'x-api-key': env.BARDO_READ_API_KEY }
  const file = authFilePath(env)
  if (existsSync(file)) {
    const auth = await accessToken({ file, io })
    if (auth.api === api) return { authorization: `Bearer ${auth.accessToken}` }
  }
  throw new CliConfigError(
    'BARDO_READ_API_KEY',
    `must be a read key of ${api} to list observers (or sign in there as the owner with bardo login)`,
  )
}

export async function listObservers(o: {
  api: string
  golemId: string
  headers: Record<string, string>
  fetch?: typeof fetch
}): Promise<{ golemId: string; owner: Address; observers: ObserverView[] }> {
  return call(o.fetch ?? fetch, `${o.api}/api/v1/golems/${encodeURIComponent(o.golemId)}/observers`, { headers: o.headers })
}

export function observerLines(golemId: string, observers: readonly ObserverView[]): string[] {
  if (observers.length === 0) return [`Golem ${golemId}: no observers`]
  return [
    `Golem ${golemId}: ${observers.length} observer(s)`,
    ...observers.map(
      (v) =>
        `  ${v.observer}  ${v.status.padEnd(7)}  ${v.publish.join(',')}  ${v.expiresAt === null ? 'no expiry' : `until ${chainTime(v.expiresAt)}`}  ${v.maxCalls === null ? 'no call limit' : `${v.maxCalls} calls`}  ${v.delegationHash}`,
    ),
  ]
}

export async function revokeObserver(o: {
  api: string
  chain: CliChain
  deployment: CliDeployment
  owner: OwnerAccount
  submitter: Account
  golemId: string
  which: { observer: Address } | { delegationHash: Hex }
  fetch?: typeof fetch
  progress(line: string): void
}): Promise<{ golemId: string; disabled: Hex[]; txHash: Hex }> {
  const url = `${o.api}/api/v1/golems/${encodeURIComponent(o.golemId)}/observers/revocation-draft`
  const draft = await call<UserOperationDraft & { grants: Hex[] }>(o.fetch ?? fetch, url, post(o.which))
  const { EntryPoint, DelegationManager } = o.deployment.environment
  const userOperation = signedUserOperation(draft, '0x')
  if (!isAddressEqual(userOperation.sender, o.owner.address))
    throw new CliRefusedError(
      'BARDO_OWNER_KEY',
      `its smart account ${o.owner.address} is not the owner of Golem ${o.golemId} (${userOperation.sender})`,
    )
  if (!isAddressEqual(draft.entryPoint, EntryPoint))
    throw new CliRefusedError('draft', `the API names EntryPoint ${draft.entryPoint}, not ${EntryPoint}`)
  // The owner's key signs an operation whose every call disables a delegation, and nothing else.
  const calls = ownerOperationCalls(userOperation.callData)
  const other = calls.find(
    (c) => !isAddressEqual(c.to, DelegationManager) || c.value !== 0n || !c.data.startsWith(DISABLE_DELEGATION_SELECTOR),
  )
  if (other || calls.length !== draft.grants.length)
    throw new CliRefusedError('draft', `the API drafted a call other than DelegationManager.disableDelegation (to ${other?.to ?? '?'})`)
  const signature = await o.owner.signer.signTypedData(ownerOperationTypedData(userOperation, o.chain.chainId, EntryPoint) as never)
  const packed = toPackedUserOperation({ ...userOperation, signature })
  const submitter = o.chain.wallet(o.submitter)
  const handleOps = { address: EntryPoint, abi: entryPoint07Abi, functionName: 'handleOps', args: [[packed], o.submitter.address] } as const
  const txHash = await sendingAs(
    estimateContractGasWithHeadroom(submitter, handleOps).then((gas) => submitter.writeContract({ ...handleOps, gas })),
    submitterRole(o.chain, o.submitter),
  )
  const receipt = await o.chain.publicClient.waitForTransactionReceipt({ hash: txHash })
  // handleOps succeeds even when the operation's call reverts; its UserOperationEvent says so.
  const ran = parseEventLogs({ abi: entryPoint07Abi, eventName: 'UserOperationEvent', logs: receipt.logs })
  if (receipt.status !== 'success' || ran.length === 0 || ran.some((e) => !e.args.success))
    throw new CliRefusedError('--golem', `the owner's revocation reverted in ${txHash}`)
  o.progress(`revoked       ${draft.grants.length} observer grant(s) disabled by the owner's smart account in ${txHash}`)
  return { golemId: o.golemId, disabled: draft.grants, txHash }
}
