// The Golem's read-only observers ("Sleepwalkers", docs/observer.md): who may publish the owner account's
// dream flag and PAD vector, each active, revoked or expired as the chain says; a grant from the owner's
// wallet (an address, optionally an expiry) and a revocation through it (one user operation).
import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import { grantObserver, revokeObserver, type ObserverGrant, type Wallet } from './actions.ts'
import { getJson, RequestError } from './api.ts'

/** Observers change at the owner's hand: a read every 10 s keeps the read tier free for the Golem panels. */
const OBSERVERS_POLL_MS = 10_000
const when = (t: number) => new Date(t * 1000).toISOString().replace('T', ' ').slice(0, 19)
const short = (a: string) => `${a.slice(0, 6)}…${a.slice(-4)}`

/** The list, or the reason there is none: a page without the read key the API asks for, or an API without observers. */
async function loadObservers(golemId: string): Promise<ObserverGrant[] | string> {
  try {
    const r = await getJson<{ observers: ObserverGrant[] }>(`/api/v1/golems/${encodeURIComponent(golemId)}/observers`)
    return r.observers
  } catch (e) {
    if (e instanceof RequestError && (e.status === 401 || e.status === 403)) return 'enter the read key to see the observers'
    if (e instanceof RequestError && e.status === 501) return 'this deployment does not serve observers'
    throw e
  }
}

export function ObserversCard({
  golemId,
  shape,
  wallet,
}: {
  golemId: string
  shape: 'delegations' | 'permissions'
  wallet: Wallet | null
}) {
  const [observers, setObservers] = useState<ObserverGrant[] | string | null>(null)
  const [address, setAddress] = useState('')
  const [hours, setHours] = useState('')
  const [status, setStatus] = useState('')
  const [reads, setReads] = useState(0)
  useEffect(() => {
    let stopped = false
    const poll = () =>
      loadObservers(golemId).then(
        (next) => stopped || setObservers(next),
        () => undefined,
      )
    void poll()
    const timer = setInterval(poll, OBSERVERS_POLL_MS)
    return () => {
      stopped = true
      clearInterval(timer)
    }
  }, [golemId, reads])
  const run = (name: string, act: () => Promise<string>) => async () => {
    setStatus(`${name}: waiting for the wallet…`)
    try {
      setStatus(`${name}: ${await act()}`)
    } catch (e) {
      setStatus(`${name} failed: ${e instanceof Error ? e.message : String(e)}`)
    }
    setReads((n) => n + 1)
  }
  const grant = run('grant', async () => {
    const expiresAt = hours.trim() === '' ? undefined : Math.floor(Date.now() / 1000 + Number(hours) * 3600)
    const g = await grantObserver(wallet!, golemId, { observer: address.trim(), ...(expiresAt === undefined ? {} : { expiresAt }) })
    setAddress('')
    return `${g.observer} may publish ${g.publish.join(', ')} from your account${g.expiresAt === null ? '' : ` until ${when(g.expiresAt)}`}`
  })
  // An Advanced Permission's account signs no raw delegation (the wallet refuses): it has no observers to grant here.
  const inWallet = shape === 'permissions'
  return html`<section class="card" id="observers">
    <h3>Observers</h3>
    <p class="reason">An observer may publish your account's dream flag and PAD vector (startDream, endDream, setPAD) and nothing else: no transfer, no approval, no value.</p>
    ${
      typeof observers === 'string'
        ? html`<p class="reason" id="observers-unavailable">${observers}</p>`
        : observers === null
          ? html`<p>Loading…</p>`
          : observers.length === 0
            ? html`<p id="no-observers">No observers.</p>`
            : html`<table class="observers">
              <tbody>
                ${observers.map(
                  (o) => html`<tr class="observer" data-observer=${o.observer} data-status=${o.status} data-hash=${o.delegationHash}>
                    <td><code title=${o.observer}>${short(o.observer)}</code></td>
                    <td><span class=${`badge ${o.status === 'active' ? 'healthy' : 'revoked'}`}>${o.status}</span></td>
                    <td>${o.publish.join(', ')}</td>
                    <td>${o.expiresAt === null ? 'no expiry' : `until ${when(o.expiresAt)}`}${o.maxCalls === null ? '' : `, ${o.maxCalls} calls`}</td>
                    <td>
                      ${
                        o.status === 'active'
                          ? html`<button class="revoke-observer" disabled=${!wallet} onClick=${run('revoke', async () => {
                              const r = await revokeObserver(wallet!, golemId, o.delegationHash)
                              return `${short(o.observer)} revoked in ${r.txHash}`
                            })}>Revoke</button>`
                          : null
                      }
                    </td>
                  </tr>`,
                )}
              </tbody>
            </table>`
    }
    <fieldset id="grant-observer" disabled=${!wallet || inWallet}>
      <legend>Grant an observer</legend>
      <label>address <input id="observer-address" placeholder="0x…" value=${address} onInput=${(e: Event) => setAddress((e.target as HTMLInputElement).value)} /></label>
      <label>ends in hours <input id="observer-hours" inputmode="decimal" placeholder="never" value=${hours} onInput=${(e: Event) => setHours((e.target as HTMLInputElement).value)} /></label>
      <button id="grant-observer-button" onClick=${grant}>Grant</button>
    </fieldset>
    ${inWallet ? html`<p class="reason">Granted through your wallet's Advanced Permissions: your account signs no observer grant here.</p>` : null}
    ${wallet ? null : html`<p class="reason">connect the owner's wallet first</p>`}
    <p id="observers-status">${status}</p>
  </section>`
}
