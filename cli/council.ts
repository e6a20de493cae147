// `bardo council form` and `bardo council list`: the owner's Coordination Councils through the API. The
// CLI asks the API for the draft (the council's MultiSig DeleGator and the owner's bounded delegation to
// it), checks that what it is asked to sign is the owner's own delegation to that council, signs it with
// the owner key (BARDO_OWNER_KEY, the signer of the owner's smart account, as the wallet would) and posts
// it back; the API checks it in full, deploys the council and keeps it.
import type { Delegation } from '@metamask/smart-accounts-kit'
import { isAddress, isAddressEqual, parseUnits, type Address, type Hex } from 'viem'
import type { OwnerAccount } from '../local/devnet.ts'
import { delegationTypedData } from '../core/delegations/typedData.ts'
import { CliRefusedError, CliUsageError } from './errors.ts'
import { chainTime } from './output.ts'

/** The ERC-20 transfer(address,uint256) selector: the council's default function. */
export const TRANSFER_SELECTOR = '0xa9059cbb'

export type CouncilScopeFlags = {
  targets: Address[]
  selectors: Hex[]
  receivers: { receiver: Address; startIndex: number }[]
  dailyLimitUsd: string
  feeds?: { token: Address; feed: Address; decimals: number }[]
  endsAt?: number
}

type CouncilMemberJson = { golemId: string; signer: Address }
type ScopeJson = { dailyLimitUsd: string; targets: Address[]; receivers: { receiver: Address }[]; endsAt: number }
type DraftAnswer = {
  council: Address
  owner: Address
  members: CouncilMemberJson[]
  threshold: number
  scope: ScopeJson & Record<string, unknown>
  salt: Hex
  delegation: Delegation
  typedData: { domain: { chainId: number; verifyingContract: Address } }
  delegationHash: Hex
}
export type CouncilAnswer = {
  council: Address
  owner: Address
  chainId: number
  members: CouncilMemberJson[]
  threshold: number
  scope: ScopeJson
  delegationHash: Hex
  formedAt: number
  deployTxHash: Hex | null
}
type ErrorAnswer = { code?: string; message?: string; details?: { field?: string; issues?: { path?: string }[] } }

/** The flag that sets a field the API named, so a refusal points at what to change. */
function flagOf(field: string | undefined): string {
  if (!field) return '--golems'
  if (field.startsWith('golems')) return '--golems'
  if (field === 'threshold') return '--threshold'
  if (field.startsWith('scope.receivers')) return '--receiver'
  if (field.startsWith('scope.targets')) return '--target'
  if (field.startsWith('scope.selectors')) return '--selector'
  if (field.startsWith('scope.dailyLimitUsd')) return '--daily-usd'
  if (field.startsWith('scope.feeds')) return '--feed'
  if (field.startsWith('scope.endsAt')) return '--days'
  if (field.startsWith('delegation')) return 'BARDO_OWNER_KEY'
  return field
}

/** A 2xx answer's body; any other answer is refused naming the flag behind the field the API named. */
async function answerOf<T>(res: Response): Promise<T> {
  const body = (await res.json().catch(() => ({}))) as T & ErrorAnswer
  if (!res.ok) {
    const field = body.details?.field ?? body.details?.issues?.[0]?.path
    throw new CliRefusedError(flagOf(field), `the API refused: ${res.status} ${body.code ?? ''} ${body.message ?? ''}`.trim(), {
      code: body.code ?? `HTTP_${res.status}`,
    })
  }
  return body
}

const post = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
})

/** A council in one line: who, k of n, what it may spend, until when. */
export const councilLine = (c: Pick<CouncilAnswer, 'council' | 'members' | 'threshold' | 'scope'>): string =>
  `council ${c.council}: ${c.threshold} of ${c.members.length} (${c.members.map((m) => m.golemId).join(', ')}), $${c.scope.dailyLimitUsd}/day to ${c.scope.receivers.map((r) => r.receiver).join(', ')}, until ${chainTime(c.scope.endsAt)}`

export async function formCouncil(o: {
  api: string
  owner: OwnerAccount
  golems: string[]
  threshold: number
  scope: CouncilScopeFlags
  progress(line: string): void
  fetch?: typeof fetch
}): Promise<CouncilAnswer & { created: boolean }> {
  const send = o.fetch ?? fetch
  const request = { golems: o.golems, threshold: o.threshold, scope: o.scope }
  const draft = await answerOf<DraftAnswer>(await send(`${o.api}/api/v1/councils/draft`, post(request)))
  // The key signs only the owner's own delegation to the council drafted, as a wallet shows it before signing.
  if (!isAddressEqual(draft.owner, o.owner.address) || !isAddressEqual(draft.delegation.delegator, o.owner.address))
    throw new CliRefusedError('--golems', `the Golems are ${draft.owner}'s, not the smart account of BARDO_OWNER_KEY (${o.owner.address})`)
  if (!isAddressEqual(draft.delegation.delegate, draft.council))
    throw new CliRefusedError('draft.delegation', `must be a delegation to the council ${draft.council}`)
  o.progress(`draft         ${councilLine(draft)}`)
  for (const m of draft.members) o.progress(`seat          ${m.golemId} (key ${m.signer})`)
  const { chainId, verifyingContract } = draft.typedData.domain
  const typedData = delegationTypedData(draft.delegation, { chainId, delegationManager: verifyingContract })
  const signature = await o.owner.signer.signTypedData(typedData as never)
  o.progress(`signed        the owner's delegation ${draft.delegationHash} to the council`)
  const res = await send(
    `${o.api}/api/v1/councils`,
    post({ ...request, scope: draft.scope, salt: draft.salt, delegation: { ...draft.delegation, signature } }),
  )
  const formed = await answerOf<CouncilAnswer>(res)
  o.progress(
    formed.deployTxHash
      ? `deployed      the council's MultiSig DeleGator in ${formed.deployTxHash}`
      : 'deployed      already: kept as it was',
  )
  return { ...formed, created: res.status === 201 }
}

export async function listCouncils(o: { api: string; owner: Address; fetch?: typeof fetch }): Promise<CouncilAnswer[]> {
  const answer = await answerOf<{ councils: CouncilAnswer[] }>(await (o.fetch ?? fetch)(`${o.api}/api/v1/councils?owner=${o.owner}`))
  return answer.councils
}

/** `--golems a,b,c`: the Golem ids, each once. */
export function golemsFlag(raw: string): string[] {
  const ids = raw.split(',').map((s) => s.trim())
  if (ids.some((id) => !/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(id)))
    throw new CliUsageError('--golems', `must be Golem ids separated by commas, got ${JSON.stringify(raw)}`)
  return ids
}

export function addressesFlag(flag: string, raws: readonly string[]): Address[] {
  return raws.map((raw) => {
    if (!isAddress(raw, { strict: false })) throw new CliUsageError(flag, `must be a 20-byte hex address, got ${JSON.stringify(raw)}`)
    return raw as Address
  })
}

export function usdFlag(raw: string): string {
  if (!/^\d{1,12}(\.\d{1,6})?$/.test(raw) || parseUnits(raw, 6) === 0n)
    throw new CliUsageError('--daily-usd', `must be US dollars above 0, such as 1000 or 250.5, got ${JSON.stringify(raw)}`)
  return raw
}

/** `--feed <token>:<feed>:<decimals>`: a price feed for a token the council moves. */
export function feedFlag(raw: string): { token: Address; feed: Address; decimals: number } {
  const [token, feed, decimals] = raw.split(':')
  if (
    !token ||
    !feed ||
    !decimals ||
    !isAddress(token, { strict: false }) ||
    !isAddress(feed, { strict: false }) ||
    !/^\d{1,2}$/.test(decimals)
  )
    throw new CliUsageError('--feed', `must be <token>:<feed>:<decimals>, got ${JSON.stringify(raw)}`)
  return { token: token as Address, feed: feed as Address, decimals: Number(decimals) }
}
