// A new Golem from the owner's wallet: a STRATEGY.md becomes a draft (the plan in words and what the
// wallet is asked to grant), the wallet grants it, and the API registers the Golem for the next heartbeat.
// An owner with a separate MetaMask smart account signs each drafted delegation (eth_signTypedData_v4);
// an owner whose wallet account is itself the smart account grants Advanced Permissions
// (wallet_requestExecutionPermissions). `?onboard=<id>` opens a draft made elsewhere (the CLI's hand-off).
import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import { formatEther, formatUnits } from 'viem'
import type { Wallet } from './actions.ts'
import { answer, api } from './api.ts'
import { signTypedData, type TypedData } from './wallet.ts'

const onboarding = api.api.v1.onboarding
export type OnboardingDraft = Awaited<ReturnType<typeof loadDraft>>
type Shape = OnboardingDraft['shape']
export type Registered = { golemId: string; account: string; golemKey: string }

const loadDraft = (id: string) => answer(onboarding[':id'].$get({ param: { id } }))

const when = (t: number) => new Date(t * 1000).toISOString().replace('T', ' ').slice(0, 19)
const duration = (s: number) => (s % 86_400 === 0 ? `${s / 86_400} d` : s % 3_600 === 0 ? `${s / 3_600} h` : `${s} s`)

/** The wallet's answer to the draft, posted to the API: registered, or an error naming what was refused. */
async function grant(wallet: Wallet, draft: OnboardingDraft): Promise<Registered> {
  const param = { id: draft.golemId }
  if (draft.shape === 'permissions') {
    const permissions = (await wallet.provider.request({
      method: 'wallet_requestExecutionPermissions',
      params: draft.request as unknown[],
    })) as Record<string, unknown>[]
    return answer(onboarding[':id'].grant.$post({ param, json: { permissions } }))
  }
  const signatures: { hash: `0x${string}`; signature: `0x${string}` }[] = []
  for (const d of draft.delegations)
    signatures.push({
      hash: d.hash as `0x${string}`,
      signature: await signTypedData(wallet.provider, wallet.address, d.typedData as TypedData),
    })
  return answer(onboarding[':id'].grant.$post({ param, json: { signatures } }))
}

function DraftView({ draft }: { draft: OnboardingDraft }) {
  return html`<div id="draft" data-golem=${draft.golemId} data-status=${draft.status}>
    <p>
      ${`Golem ${draft.golemId} for `}<code id="draft-account">${draft.account}</code>
      ${`: ${formatUnits(BigInt(draft.periodAmount), 6)} USDC and ${formatEther(BigInt(draft.gasPeriodAmount))} ETH of gas per ${duration(draft.periodSeconds)}, from ${when(draft.startDate)} to ${when(draft.expiresAt)}. Grant by ${when(draft.answerBy)}.`}
    </p>
    <ul id="plan-lines">
      ${draft.plan.lines.map((l) => html`<li>${l}</li>`)}
    </ul>
    ${
      draft.shape === 'delegations'
        ? html`<ol id="draft-delegations">
            ${draft.delegations.map((d) => html`<li data-role=${d.role}>${d.label}</li>`)}
          </ol>
          ${draft.deploy ? html`<p>Your smart account is not deployed yet: Bardo deploys it when you grant.</p>` : null}`
        : html`<p>Your wallet is asked for two Advanced Permissions: the runway in USDC and the gas in ETH, per period, to the Golem's session account.</p>`
    }
  </div>`
}

export function NewGolem({ wallet, onRegistered }: { wallet: Wallet | null; onRegistered: (r: Registered) => void }) {
  const handoff = new URLSearchParams(location.search).get('onboard')
  const [golemId, setGolemId] = useState('')
  const [strategy, setStrategy] = useState('')
  const [shape, setShape] = useState<Shape>('delegations')
  const [draft, setDraft] = useState<OnboardingDraft | null>(null)
  const [status, setStatus] = useState('')
  useEffect(() => {
    if (handoff) loadDraft(handoff).then(setDraft, (e: Error) => setStatus(`draft ${handoff}: ${e.message}`))
  }, [handoff])

  const run = (name: string, act: () => Promise<string>) => async () => {
    setStatus(`${name}…`)
    try {
      setStatus(await act())
    } catch (e) {
      setStatus(`${name} failed: ${e instanceof Error ? e.message : String(e)}`)
    }
  }
  const makeDraft = run('draft', async () => {
    const made = await answer(onboarding.$post({ json: { golemId, owner: wallet!.address, strategy, shape } }))
    setDraft(made)
    return `draft ${made.golemId}: read the plan, then grant it in your wallet`
  })
  const grantDraft = run('grant', async () => {
    const r = await grant(wallet!, draft!)
    onRegistered(r)
    setDraft(await loadDraft(r.golemId))
    return `registered Golem ${r.golemId} (key ${r.golemKey}): the next heartbeat ticks it`
  })
  const waiting = draft?.status === 'waiting'
  return html`<section class="card" id="new-golem">
    <h3>New Golem</h3>
    ${
      draft
        ? html`<${DraftView} draft=${draft} />`
        : html`<label>Golem id <input id="new-golem-id" value=${golemId} onInput=${(e: Event) => setGolemId((e.target as HTMLInputElement).value)} /></label>
          <label>
            Your account
            <select id="new-golem-shape" value=${shape} onChange=${(e: Event) => setShape((e.target as HTMLSelectElement).value as Shape)}>
              <option value="delegations">a separate MetaMask smart account (signs delegations)</option>
              <option value="permissions">this wallet account (Advanced Permissions)</option>
            </select>
          </label>
          <label>STRATEGY.md
            <textarea id="new-golem-strategy" rows="10" value=${strategy} onInput=${(e: Event) => setStrategy((e.target as HTMLTextAreaElement).value)}></textarea>
          </label>
          <button id="draft-golem" disabled=${!wallet || !golemId || !strategy} onClick=${makeDraft}>Read the plan</button>`
    }
    ${draft && waiting ? html`<button id="grant-golem" disabled=${!wallet} onClick=${grantDraft}>Grant in wallet</button>` : null}
    ${draft && !waiting ? html`<p id="draft-ended">This draft is ${draft.status}.</p>` : null}
    ${wallet ? null : html`<span class="reason">connect the owner's wallet first</span>`}
    <p id="new-golem-status">${status}</p>
  </section>`
}
