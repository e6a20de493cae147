// `bardo onboard` without the owner's key: the owner grants from the wallet, in the browser. The CLI asks
// the API for the Golem's draft, prints the dashboard's page for it (`?onboard=<id>`), where the owner
// reads the plan and grants in MetaMask, and waits until the API says the Golem is registered, or the
// draft lapsed. The CLI never holds the owner's key on this path.
import type { Address } from 'viem'
import { CliRefusedError, CliUsageError } from './errors.ts'

export type OnboardingShape = 'delegations' | 'permissions'
export const SHAPES: readonly OnboardingShape[] = ['delegations', 'permissions']

export function checkShape(raw: string | undefined): OnboardingShape {
  if (raw === undefined) return 'delegations'
  if (!(SHAPES as readonly string[]).includes(raw))
    throw new CliUsageError('--shape', `must be one of ${SHAPES.join(', ')}, got ${JSON.stringify(raw)}`)
  return raw as OnboardingShape
}

export function dashboardUrlOf(env: NodeJS.ProcessEnv): string {
  const url = env.BARDO_DASHBOARD_URL
  if (!url) throw new CliUsageError('BARDO_DASHBOARD_URL', "must be the dashboard's URL, where the owner grants from the wallet")
  if (!/^https?:\/\//.test(url)) throw new CliUsageError('BARDO_DASHBOARD_URL', `must be an http or https URL, got ${JSON.stringify(url)}`)
  return url.replace(/\/+$/, '')
}

type DraftAnswer = { golemId: string; status: 'waiting' | 'registered' | 'expired'; account: Address; golemKey: Address; answerBy: number }
type ErrorAnswer = { code?: string; message?: string; details?: { field?: string } }

export type HandoffResult = { golemId: string; golemKey: Address; account: Address; grantPage: string }

export async function onboardByBrowser(o: {
  api: string
  dashboard: string
  golemId: string
  owner: Address
  strategy: string
  shape: OnboardingShape
  progress(line: string): void
  /** How often the draft is read while the owner decides (default 2 s). */
  pollMs?: number
  fetch?: typeof fetch
}): Promise<HandoffResult> {
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
  const draft = await call('/api/v1/onboarding', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ golemId: o.golemId, owner: o.owner, strategy: o.strategy, shape: o.shape }),
  })
  const grantPage = `${o.dashboard}/?onboard=${encodeURIComponent(draft.golemId)}`
  o.progress(`open ${grantPage} and grant from the wallet ${o.owner} (by ${new Date(draft.answerBy * 1000).toISOString()})`)
  for (;;) {
    const now = await call(`/api/v1/onboarding/${encodeURIComponent(o.golemId)}`)
    if (now.status === 'registered') return { golemId: now.golemId, golemKey: now.golemKey, account: now.account, grantPage }
    if (now.status === 'expired')
      throw new CliRefusedError('--golem', `the draft of ${o.golemId} lapsed before the owner granted it: run bardo onboard again`)
    await new Promise((r) => setTimeout(r, o.pollMs ?? 2_000))
  }
}
