// `bardo rotate` for a Golem whose session key a running local stack holds (the demo of `npm start`, or a
// Golem it onboarded; a keystore file of the stack's own, its secret the stack's): the key cannot leave the stack, so the owner signs the rotation
// text and the stack rotates between two heartbeats, through the tick's own rotation. Nothing is written
// here: no keystore, no store record.
import type { Address } from 'viem'
import type { GolemProfile } from '../core/lifecycle/profile.ts'
import type { OwnerAccount } from '../local/devnet.ts'
import { localRotationMessage } from '../local/rotationRequest.ts'
import { CliConfigError, CliRefusedError } from './errors.ts'
import { httpUrl } from './feed.ts'

export async function rotateInStack(o: {
  env: NodeJS.ProcessEnv
  chainId: number
  owner: OwnerAccount
  golemId: string
  profile: GolemProfile
  fetch?: typeof fetch
  progress(line: string): void
}): Promise<{ golemId: string; from: Address; to: Address }> {
  const raw = o.env.BARDO_DASHBOARD_URL
  if (!raw)
    throw new CliConfigError(
      'BARDO_DASHBOARD_URL',
      `must be the running local stack's dashboard: Golem ${o.golemId}'s key is held by that stack (give the CLI the stack's state directory)`,
    )
  const dashboard = httpUrl('BARDO_DASHBOARD_URL', raw)
  const message = localRotationMessage({ golemId: o.golemId, golemKey: o.profile.golemKey, chainId: o.chainId })
  const signature = await o.owner.signer.signMessage({ message })
  const url = new URL(`/local/golems/${encodeURIComponent(o.golemId)}/rotation`, dashboard)
  const res = await (o.fetch ?? fetch)(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ signature }),
  }).catch((e: unknown) => {
    throw new CliConfigError(
      'BARDO_DASHBOARD_URL',
      `must answer: ${url.origin} did not (${e instanceof Error ? e.name : 'error'}); is npm start running?`,
    )
  })
  const body = (await res.json().catch(() => ({}))) as { from?: Address; to?: Address; code?: string; field?: string; rule?: string }
  if (!res.ok || !body.from || !body.to) {
    const field = body.field === 'signature' ? 'BARDO_OWNER_KEY' : '--golem'
    throw new CliRefusedError(field, body.rule ?? `the stack answered ${res.status}`, { code: body.code ?? `HTTP_${res.status}` })
  }
  o.progress(`rotated       ${body.from} -> ${body.to} by the running stack, which holds the key; the old key is dead on the oracle`)
  return { golemId: o.golemId, from: body.from, to: body.to }
}
