// `bardo onboard` through the API's onboarding: the CLI asks the API for the Golem's draft, and the owner
// answers it either in the browser (the CLI prints the dashboard's page for the draft, `?onboard=<id>`,
// where the owner reads the plan and grants in MetaMask, and waits until the API says the Golem is
// registered or the draft lapsed; the CLI holds no owner key) or, in development, with the owner's key
// here, signing each drafted delegation as the wallet would. Either way the deployment issues the
// Golem's key, so its own heartbeat ticks the Golem.
import type { Delegation } from '@metamask/smart-accounts-kit'
import { getAddress, isAddress, isAddressEqual, type Address, type Hex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { delegationTypedData } from '../core/delegations/typedData.ts'
import { keyFrom } from './context.ts'
import { httpUrl } from './feed.ts'
import { ONBOARDING_SHAPES, type OnboardingShape } from '../core/onboarding/golemDraft.ts'
import { CliRefusedError, CliUsageError } from './errors.ts'

export function checkShape(raw: string | undefined): OnboardingShape {
  if (raw === undefined) return 'delegations'
  if (!(ONBOARDING_SHAPES as readonly string[]).includes(raw))
    throw new CliUsageError('--shape', `must be one of ${ONBOARDING_SHAPES.join(', ')}, got ${JSON.stringify(raw)}`)
  return raw as OnboardingShape
}

export function dashboardUrlOf(env: NodeJS.ProcessEnv): string {
  const url = env.BARDO_DASHBOARD_URL
  if (!url) throw new CliUsageError('BARDO_DASHBOARD_URL', "must be the dashboard's URL, where the owner grants from the wallet")
  return httpUrl('BARDO_DASHBOARD_URL', url)
}

/**
 * Who answers `bardo onboard`'s draft, or undefined for the direct path (the owner key signs here and
 * the Golem's key is a keystore file or a KMS key this CLI makes):
 * - `--owner <address>`, or no BARDO_OWNER_KEY: the owner, in the browser;
 * - an owner key, an API and neither `--kms` nor BARDO_KEYSTORE_PASSPHRASE (a running `npm start`): the
 *   key signs the API's draft, and the deployment issues the Golem's key its heartbeat resolves.
 */
export function onboardingAnswerer(
  flags: { owner?: unknown; shape?: unknown; kms?: unknown },
  env: NodeJS.ProcessEnv,
): DraftAnswerer | undefined {
  if (flags.owner !== undefined || !env.BARDO_OWNER_KEY) {
    if (flags.owner === undefined)
      throw new CliUsageError('--owner', 'is required without BARDO_OWNER_KEY: the wallet account that grants in the browser')
    if (typeof flags.owner !== 'string' || !isAddress(flags.owner, { strict: false }))
      throw new CliUsageError('--owner', `must be a 20-byte hex address, got ${JSON.stringify(flags.owner)}`)
    return {
      kind: 'browser',
      dashboard: dashboardUrlOf(env),
      owner: getAddress(flags.owner),
      shape: checkShape(flags.shape as string | undefined),
    }
  }
  if (flags.kms === true || env.BARDO_KEYSTORE_PASSPHRASE || !env.BARDO_API_URL) return undefined
  return { kind: 'key', owner: keyFrom(env, 'BARDO_OWNER_KEY') }
}

type DraftAnswer = {
  golemId: string
  status: 'waiting' | 'registered' | 'expired'
  account: Address
  golemKey: Address
  answerBy: number
  plan: { lines: string[] }
  delegations: {
    hash: Hex
    label: string
    delegation: Delegation
    typedData: { domain: { chainId: number; verifyingContract: Address } }
  }[]
}
type ErrorAnswer = { code?: string; message?: string; details?: { field?: string } }

export type ApiOnboardResult = { golemId: string; golemKey: Address; account: Address; grantPage?: string }

/** Who answers the draft: the owner in the browser, or (development) the owner's key in this process. */
export type DraftAnswerer =
  | { kind: 'browser'; dashboard: string; owner: Address; shape: OnboardingShape }
  | { kind: 'key'; owner: PrivateKeyAccount }

export async function onboardThroughApi(o: {
  api: string
  answerer: DraftAnswerer
  golemId: string
  strategy: string
  progress(line: string): void
  /** How often the draft is read while the owner decides (default 2 s). */
  pollMs?: number
  fetch?: typeof fetch
}): Promise<ApiOnboardResult> {
  const send = o.fetch ?? fetch
  const call = async (path: string, init?: RequestInit): Promise<DraftAnswer> => {
    const res = await send(`${o.api}${path}`, init)
    const body = (await res.json().catch(() => ({}))) as DraftAnswer & ErrorAnswer
    if (!res.ok) {
      const field = body.details?.field
      throw new CliRefusedError(
        field ? `draft.${field}` : '--golem',
        `the API refused: ${res.status} ${body.code ?? ''} ${body.message ?? ''}`.trim(),
      )
    }
    return body
  }
  const owner = o.answerer.kind === 'key' ? o.answerer.owner.address : o.answerer.owner
  const shape = o.answerer.kind === 'key' ? 'delegations' : o.answerer.shape
  const json = (body: unknown): RequestInit => ({
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const draft = await call('/api/v1/onboarding', json({ golemId: o.golemId, owner, strategy: o.strategy, shape }))
  for (const line of draft.plan.lines) o.progress(`plan: ${line}`)
  const path = `/api/v1/onboarding/${encodeURIComponent(o.golemId)}`
  if (o.answerer.kind === 'key') {
    const signatures = []
    for (const [i, d] of draft.delegations.entries()) {
      // The key signs only the owner's own grants to this Golem, as a wallet shows them before signing.
      if (!isAddressEqual(d.delegation.delegator, draft.account) || !isAddressEqual(d.delegation.delegate, draft.golemKey))
        throw new CliRefusedError(`draft.delegations[${i}]`, `must be a grant from ${draft.account} to the Golem's key ${draft.golemKey}`)
      const { chainId, verifyingContract } = d.typedData.domain
      const typedData = delegationTypedData(d.delegation, { chainId, delegationManager: verifyingContract })
      signatures.push({ hash: d.hash, signature: await o.answerer.owner.signTypedData(typedData as never) })
      o.progress(`signed the ${d.label} delegation ${d.hash}`)
    }
    const registered = await call(`${path}/grant`, json({ signatures }))
    return { golemId: registered.golemId, golemKey: registered.golemKey, account: registered.account }
  }
  const grantPage = `${o.answerer.dashboard}/?onboard=${encodeURIComponent(draft.golemId)}`
  o.progress(`open ${grantPage} and grant from the wallet ${owner} (by ${new Date(draft.answerBy * 1000).toISOString()})`)
  for (;;) {
    const now = await call(path)
    if (now.status === 'registered') return { golemId: now.golemId, golemKey: now.golemKey, account: now.account, grantPage }
    if (now.status === 'expired')
      throw new CliRefusedError('--golem', `the draft of ${o.golemId} lapsed before the owner granted it: run bardo onboard again`)
    await new Promise((r) => setTimeout(r, o.pollMs ?? 2_000))
  }
}
