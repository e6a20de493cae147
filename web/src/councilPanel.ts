// The council panel: every recent proposal with its state, its signatures (k of n, t needed), the
// execution's transaction and whether the indexer has seen it. Hidden where no council is served.
import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import { answer, api, postJson, RequestError } from './api.ts'
import {
  COUNCIL_EXECUTIONS_QUERY,
  COUNCIL_READ,
  councilRows,
  ran,
  type CouncilProposal,
  type CouncilRow,
  type IndexedCouncilExecution,
} from './council.ts'

/** Proposals change at the pace of members signing: a read every 10 s is plenty, and keeps the read tier free for the Golem panels. */
const COUNCIL_POLL_MS = 10_000
const when = (t: number) => new Date(t * 1000).toISOString().replace('T', ' ').slice(0, 19)
const short = (a: string) => `${a.slice(0, 10)}…${a.slice(-6)}`

/** The newest proposals, through the dashboard's server (which adds the read key, and says `served: false` for an API without a council). */
const list = () => answer(api.council.v1.proposals.$get({ query: { limit: String(COUNCIL_READ) }, header: {} }))

/**
 * The newest proposals and what the indexer saw of them; null when this deployment serves no council
 * (the local dashboard says `served: false`, another proxy may answer 404), so the panel stays hidden. An indexer that is down or behind marks executions as pending.
 */
export async function loadCouncil(indexer: boolean): Promise<CouncilRow[] | null> {
  let proposals: CouncilProposal[]
  try {
    const page: { served?: false } & Awaited<ReturnType<typeof list>> = await list()
    if (page.served === false) return null
    // The API documents an execution loosely (its shape follows how the proposal ended); the panel reads the fields it knows.
    proposals = page.proposals.map((p) => ({ ...p, execution: p.execution as CouncilProposal['execution'] }))
  } catch (e) {
    if (e instanceof RequestError && e.status === 404) return null
    throw e
  }
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

export function CouncilPanel({ indexer }: { indexer: boolean }) {
  const [rows, setRows] = useState<CouncilRow[] | null>(null)
  useEffect(() => {
    let stopped = false
    let timer: ReturnType<typeof setInterval> | undefined
    const poll = async () => {
      const next = await loadCouncil(indexer).catch(() => undefined)
      if (stopped || next === undefined) return
      setRows(next)
      // No council here: stop asking.
      if (next === null && timer !== undefined) clearInterval(timer)
    }
    void poll()
    timer = setInterval(poll, COUNCIL_POLL_MS)
    return () => {
      stopped = true
      clearInterval(timer)
    }
  }, [indexer])
  if (rows === null) return null
  return html`<section class="card" id="council">
    <h3>Coordination Council</h3>
    ${
      rows.length === 0
        ? html`<p>No proposals yet.</p>`
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
  </section>`
}
