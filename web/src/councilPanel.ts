// The council panel: the owner's councils (k of n, who sits, whom each may pay and how much a day), each
// with its recent proposals (state, k of n signed, the execution's transaction and whether the indexer
// has seen it), and a form that forms a new council of the owner's living Golems: drafted by the API,
// signed in the wallet, posted back. Hidden where this deployment serves no councils.
import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import { formCouncil, type Wallet } from './actions.ts'
import { answer, api, postJson, RequestError } from './api.ts'
import {
  COUNCIL_EXECUTIONS_QUERY,
  COUNCIL_READ,
  councilFormRequest,
  councilRows,
  councilSummary,
  ran,
  type Council,
  type CouncilCard,
  type CouncilProposal,
  type CouncilRow,
  type IndexedCouncilExecution,
} from './council.ts'

/** Proposals change at the pace of members signing: a read every 10 s is plenty, and keeps the read tier free for the Golem panels. */
const COUNCIL_POLL_MS = 10_000
/**
 * The owner's councils change only when the owner forms one: read once a minute (and at once after a
 * formation on this page), so a page without a council costs the read tier one request a minute.
 */
const COUNCIL_LIST_MS = 60_000
const when = (t: number) => new Date(t * 1000).toISOString().replace('T', ' ').slice(0, 19)
const short = (a: string) => `${a.slice(0, 10)}…${a.slice(-6)}`

/** The owner's councils, through the dashboard's server (which adds the read key). */
const listCouncils = (owner: string) => answer(api.api.v1.councils.$get({ query: { owner }, header: {} }))
/** A council's newest proposals. */
const listProposals = (council: string) =>
  answer(api.council.v1.proposals.$get({ query: { council, limit: String(COUNCIL_READ) }, header: {} }))

/** The owner's councils; null when this deployment serves none (501, or 404 from another proxy), so the panel stays hidden. */
export async function loadCouncils(owner: string): Promise<Council[] | null> {
  try {
    return (await listCouncils(owner)).councils
  } catch (e) {
    if (e instanceof RequestError && (e.status === 404 || e.status === 501)) return null
    throw e
  }
}

/** A council's newest proposals and what the indexer saw of them; an indexer that is down or behind marks executions as pending. */
export async function proposalRows(council: string, indexer: boolean): Promise<CouncilRow[]> {
  // The API documents an execution loosely (its shape follows how the proposal ended); the panel reads the fields it knows.
  const proposals: CouncilProposal[] = (await listProposals(council)).proposals.map((p) => ({
    ...p,
    execution: p.execution as CouncilProposal['execution'],
  }))
  const ids = proposals.filter((p) => ran(p.status)).map((p) => p.id.toLowerCase())
  let seen: IndexedCouncilExecution[] = []
  if (indexer && ids.length > 0) {
    const body = await postJson<{ data?: { councilExecutions: { items: IndexedCouncilExecution[] } } }>('/graphql', {
      query: COUNCIL_EXECUTIONS_QUERY,
      variables: { ids },
    }).catch(() => ({ data: undefined }))
    seen = body.data?.councilExecutions.items ?? []
  }
  return councilRows(proposals, seen)
}

type Seat = { id: string }

export function CouncilPanel({
  indexer,
  owner,
  golems,
  wallet,
  usdc,
}: {
  indexer: boolean
  /** The owner's smart account whose councils are shown; null until the fleet is known. */
  owner: string | null
  /** The owner's living Golems: the seats a new council may hold. */
  golems: readonly Seat[]
  wallet: Wallet | null
  usdc: string
}) {
  const [councils, setCouncils] = useState<Council[] | null>(null)
  const [rows, setRows] = useState<Record<string, CouncilRow[]>>({})
  const [formed, setFormed] = useState(0)
  // The owner's councils: on load, once a minute, and at once after a formation here.
  useEffect(() => {
    if (!owner) return
    let stopped = false
    const read = async () => {
      const next = await loadCouncils(owner).catch(() => undefined)
      if (stopped || next === undefined) return
      setCouncils(next)
      // No councils here: stop asking.
      if (next === null) clearInterval(timer)
    }
    const timer = setInterval(read, COUNCIL_LIST_MS)
    void read()
    return () => {
      stopped = true
      clearInterval(timer)
    }
  }, [owner, formed])
  // Each council's proposals, every 10 s.
  useEffect(() => {
    if (!councils || councils.length === 0) return
    let stopped = false
    const read = async () => {
      const found = await Promise.all(
        councils.map(async (c) => [c.council, await proposalRows(c.council, indexer).catch(() => undefined)] as const),
      )
      if (stopped) return
      setRows((before) => Object.fromEntries(found.map(([council, r]) => [council, r ?? before[council] ?? []])))
    }
    void read()
    const timer = setInterval(read, COUNCIL_POLL_MS)
    return () => {
      stopped = true
      clearInterval(timer)
    }
  }, [councils, indexer])
  if (councils === null) return null
  const cards: CouncilCard[] = councils.map((council) => ({ council, rows: rows[council.council] ?? [] }))
  return html`<section class="card" id="council">
    <h3>Coordination Council</h3>
    ${cards.length === 0 ? html`<p id="no-council">No council yet.</p>` : cards.map((card) => html`<${CouncilView} card=${card} />`)}
    <${FormCouncil} golems=${golems} wallet=${wallet} usdc=${usdc} onFormed=${() => setFormed((n) => n + 1)} />
  </section>`
}

function CouncilView({ card }: { card: CouncilCard }) {
  const { council, rows } = card
  return html`<div class="council" data-council=${council.council} data-threshold=${council.threshold} data-seats=${council.members.length}>
    <p class="council-summary">
      Council <code title=${council.council}>${short(council.council)}</code>: ${councilSummary(council)}, until ${when(council.scope.endsAt)}
    </p>
    ${
      rows.length === 0
        ? html`<p class="no-proposals">No proposals yet.</p>`
        : html`<table>
          <tr><th>proposal</th><th>state</th><th>signatures</th><th>deadline</th><th>execution</th><th>indexer</th></tr>
          ${rows.map(
            (r) => html`<tr class="proposal" data-id=${r.id} data-state=${r.state}>
              <td><code>${r.id}</code></td>
              <td><span class=${`badge ${r.state}`}>${r.state}</span>${r.note ? html` <span class="reason">${r.note}</span>` : null}</td>
              <td>${r.signatures}</td>
              <td>${when(r.deadline)}</td>
              <td>${r.txHash ? html`<code title=${r.txHash}>${short(r.txHash)}</code>` : '—'}</td>
              <td data-indexed=${r.indexed ?? ''}>${r.indexed === 'seen' ? 'indexed' : r.indexed === 'pending' ? 'not yet' : '—'}</td>
            </tr>`,
          )}
        </table>`
    }
  </div>`
}

/**
 * Form a council of the owner's living Golems: the seats chosen, how many must sign, whom it may pay (in
 * the chain's USDC), how much a day and for how long. The API drafts it, the wallet signs the owner's
 * delegation, the API checks it, deploys the council and keeps it.
 */
function FormCouncil({
  golems,
  wallet,
  usdc,
  onFormed,
}: {
  golems: readonly Seat[]
  wallet: Wallet | null
  usdc: string
  onFormed: () => void
}) {
  const [chosen, setChosen] = useState<string[]>([])
  const [threshold, setThreshold] = useState('2')
  const [receiver, setReceiver] = useState('')
  const [dailyUsd, setDailyUsd] = useState('100')
  const [days, setDays] = useState('30')
  const [status, setStatus] = useState('')
  const toggle = (id: string) => setChosen((all) => (all.includes(id) ? all.filter((g) => g !== id) : [...all, id]))
  const value = (set: (v: string) => void) => (e: Event) => set((e.target as HTMLInputElement).value)
  const form = async () => {
    setStatus('form a council: waiting for the wallet…')
    try {
      const request = councilFormRequest({ golems: chosen, threshold, receiver, dailyUsd, days }, usdc, Date.now() / 1000)
      const r = await formCouncil(wallet!, request)
      setStatus(`formed council ${r.council}`)
      setChosen([])
      setReceiver('')
      onFormed()
    } catch (e) {
      setStatus(`form a council failed: ${e instanceof Error ? e.message : String(e)}`)
    }
  }
  return html`<fieldset id="form-council" disabled=${!wallet}>
    <legend>Form a council</legend>
    <p class="seats">
      ${
        // In a fixed order and keyed by Golem, so a poll that brings the fleet in another order, or a Golem
        // coming alive, never moves a box under the owner's pointer or carries one's tick to another.
        [...golems]
          .sort((a, b) => a.id.localeCompare(b.id))
          .map(
            (g) =>
              html`<label class="seat" key=${g.id}><input type="checkbox" name="council-golem" value=${g.id} checked=${chosen.includes(g.id)} onChange=${() => toggle(g.id)} /> ${g.id}</label>`,
          )
      }
    </p>
    <label>signatures needed <input id="council-threshold" inputmode="numeric" value=${threshold} onInput=${value(setThreshold)} /></label>
    <label>pays only <input id="council-receiver" placeholder="0x…" value=${receiver} onInput=${value(setReceiver)} /></label>
    <label>USD a day <input id="council-daily-usd" inputmode="decimal" value=${dailyUsd} onInput=${value(setDailyUsd)} /></label>
    <label>days <input id="council-days" inputmode="numeric" value=${days} onInput=${value(setDays)} /></label>
    <button id="form-council-button" disabled=${!wallet || chosen.length < 2 || receiver.trim() === ''} onClick=${form}>Form a council</button>
    ${wallet ? null : html`<span class="reason">connect the owner's wallet first</span>`}
    <p class="reason" id="council-status">${status}</p>
  </fieldset>`
}
