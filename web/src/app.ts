// The owner's dashboard: the fleet, and per Golem its phase history, runway, permissions, observers,
// payments, the owner's actions and, in Terminal, the death countdown. Preact components written with htm.
import { html } from 'htm/preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { formatUnits, parseUnits } from 'viem'
import { adjust, answerRotation, pay, renew, revoke, type Revoked, type Wallet } from './actions.ts'
import {
  ACTIONS_READ,
  getJson,
  loadGolem,
  type Action,
  type ChainConfig,
  type Config,
  type FleetGolem,
  type GolemView,
  type Redemption,
} from './api.ts'
import { pageSettings } from './page.ts'
import { forgetReadKey, ReadKeyError, savedReadKey, saveReadKey, shownReadKey } from './readKey.ts'
import { CouncilPanel } from './councilPanel.ts'
import { ObserversCard } from './observers.ts'
import { NewGolem, type Registered } from './onboard.ts'
import { countdown, phaseBands, vitalityPoints } from './phaseBands.ts'
import { drawPhaseChart, PHASE_COLORS } from './phaseChart.ts'
import { vitalSignsWords } from '../../core/lifecycle/vitalSignsWords.ts'
import { vitalsAt } from './vitals.ts'
import { connectWallet, discoverWallets, type WalletDetail } from './wallet.ts'
import { pairSnap } from './snapPairing.ts'

// Eight API reads a poll (the fleet and the selected Golem's seven): 160 a minute, well inside the read tier's 300.
const POLL_MS = 3000
const usdc = (v: string | bigint) => `${formatUnits(BigInt(v), 6)} USDC`
const when = (t: number) => new Date(t * 1000).toISOString().replace('T', ' ').slice(0, 19)
const short = (a: string) => `${a.slice(0, 6)}…${a.slice(-4)}`

type Fleet = { owner: string; now: number; golems: FleetGolem[] }

/** The Golem's vital signs, as the console line and the Snap state them. */
function VitalSignsCard({ view, now }: { view: GolemView; now: number }) {
  const api = view.phases?.current.vitals
  if (!api) return html`<section class="card" id="vital-signs"><p>vital signs unknown (the indexer did not answer)</p></section>`
  const v = vitalsAt(api, now)
  return html`<section class="card" id="vital-signs" data-phase=${v.phase} data-vitality=${v.vitality.toFixed(3)} data-lifecycle=${v.lifecycle} data-lives=${v.livesSeconds}>
    <p>${vitalSignsWords(v).join(' · ')}</p>
  </section>`
}

function PhaseHistory({ golem, view, now }: { golem: FleetGolem; view: GolemView; now: number }) {
  const target = useRef<HTMLDivElement>(null)
  const moves = view.phases?.transitions ?? []
  const vitals = view.phases?.current.vitals
  const current = vitals?.phase ?? golem.phase
  const bands = phaseBands(golem.bornAt ?? now, moves, now, current)
  // The line ends at the vitality the vital signs state (the last tick's; 0 once dead).
  const vitality = vitalityPoints(moves, now, vitals ? vitals.survivalScoreBps : null)
  const key = JSON.stringify([bands, vitality])
  useEffect(() => {
    if (!target.current) return
    const chart = drawPhaseChart(target.current, bands, vitality)
    return () => chart.destroy()
  }, [key])
  const phases = [...new Set(bands.map((b) => b.phase))]
  return html`<section class="card" id="phase-history">
    <h3>Phase history</h3>
    <div ref=${target} class="chart"></div>
    <ul class="bands" data-phases=${phases.join(',')}>
      ${bands.map(
        (b) =>
          html`<li><span class="swatch" style=${{ background: PHASE_COLORS[b.phase] }}></span>${b.phase} ${when(b.start)} → ${when(b.end)}</li>`,
      )}
    </ul>
  </section>`
}

function redeemedSince(redemptions: readonly Redemption[], since: number): bigint {
  return redemptions
    .filter((r) => r.timestamp >= since)
    .flatMap((r) => r.transfers)
    .filter((t) => t.token !== null)
    .reduce((sum, t) => sum + BigInt(t.amount), 0n)
}

/** The grant's end and the renewals queued behind it; a dead Golem has no grant time left. */
function grantRows(golem: FleetGolem, health: GolemView['health'], grantEndsAt: number, now: number) {
  return html`<dt>grant left</dt>
      <dd id="grant-left">${health.health === 'dead' ? '—' : countdown(grantEndsAt - now)}</dd>
      <dt>${golem.renewals.length > 0 ? 'this grant ends' : 'grant ends'}</dt>
      <dd id="grant-ends" data-at=${health.grant_ends_at}>${when(health.grant_ends_at)}</dd>
      ${golem.renewals.map(
        (r) => html`<dt>renewal</dt>
          <dd class="renewal-queued" data-hash=${r.delegationHash}>from ${when(r.periodStart)} until ${when(r.expiresAt)}</dd>`,
      )}
      ${
        golem.adjustment
          ? html`<dt>adjustment</dt>
          <dd class="adjustment-pending" data-hash=${golem.adjustment.delegationHash}>
            ${usdc(golem.adjustment.periodAmount)} per period from ${when(golem.adjustment.periodStart)} until ${when(golem.adjustment.expiresAt)},
            once the grants it replaces are disabled
          </dd>`
          : null
      }
      ${
        golem.renewals.length > 0
          ? html`<dt>renewals end</dt>
          <dd id="grants-end" data-at=${grantEndsAt}>${when(grantEndsAt)}</dd>`
          : null
      }`
}

/** The owner's revocation in words, with its time and transaction once the API found them. */
function revokedWords(r: Record<string, string | undefined>): string {
  const { revokedAt, txHash } = r
  return `revoked by the owner${revokedAt ? ` at ${when(Number(revokedAt))}` : ''}${txHash ? ` in ${short(txHash)}` : ''}`
}

function RunwayCard({ golem, view, now }: { golem: FleetGolem; view: GolemView; now: number }) {
  const { health } = view
  // The grant's time left is the vital signs' (the newest queued renewal's end, the life window the
  // owner granted); the grant paying now keeps its own end beside it while renewals wait behind it.
  const grantEndsAt = view.phases?.current.vitals?.grantEndsAt ?? health.grant_ends_at
  // Revoked, the grant pays nothing more: its end and the renewals behind it no longer count.
  const revoked = health.revocation.kind === 'RevokedByOwner' ? health.revocation : null
  return html`<section class="card" id="runway">
    <h3>Runway</h3>
    <p>
      <span class=${`badge ${health.health}`} data-health=${health.health}>${health.health}</span>
      <span class="reason">${health.reason}</span>
    </p>
    <dl>
      <dt>cap per period</dt>
      <dd>${golem.runway ? `${usdc(golem.runway.periodAmount)} per ${countdown(golem.runway.periodSeconds)}` : '—'}</dd>
      <dt>redeemed today</dt>
      <dd>${usdc(redeemedSince(view.redemptions, now - 86_400))}</dd>
      <dt>this period</dt>
      <dd>${view.spend ? `${usdc(view.spend.current.spent)} of ${usdc(view.spend.current.limit)}` : '—'}</dd>
      ${revoked ? html`<dt>grant</dt><dd id="grant-revoked" data-tx=${revoked.txHash}>${revokedWords(revoked)}</dd>` : grantRows(golem, health, grantEndsAt, now)}
      <dt>runway (TTL) ends</dt>
      <dd id="runway-ends" data-at=${health.runway_ends_at}>${when(health.runway_ends_at)}</dd>
    </dl>
    ${health.renewal ? html`<p class="renewal">The grant ends before the paid runway: renew it (${countdown(health.renewal.seconds_left)} left).</p>` : null}
  </section>`
}

const VERBS: Record<Action['kind'], string> = {
  swap: 'swap',
  deposit: 'deposit',
  withdraw: 'withdraw',
  redeem: 'redeem shares',
  approve: 'approve',
  bridge: 'bridge',
  provideLiquidity: 'provide liquidity',
  removeLiquidity: 'remove liquidity',
  collect: 'collect',
  other: 'call',
}

/** An amount of a token in its units with its symbol; a token the deployment does not name, in base units beside its address. */
function tokenAmount(token: string | undefined, amount: string | undefined, config: Config): string {
  if (token === undefined || amount === undefined) return ''
  const known = config.tokens[token.toLowerCase()]
  return known ? `${formatUnits(BigInt(amount), known.decimals)} ${known.symbol}` : `${amount} of ${short(token)}`
}

/** What one action did, in words: "swap 10 USDC for at least 3316 of 0xC02a…", "approve 0x1234… for 10 USDC". */
function actionWords(a: Action, config: Config): string {
  const [t0, t1] = a.tokens
  const [n0, n1] = a.amounts
  switch (a.kind) {
    case 'swap':
      return `swap ${tokenAmount(t0, n0, config)} for at least ${tokenAmount(t1, n1, config)}`
    case 'approve':
      return `approve ${a.counterparty ? short(a.counterparty) : ''} for ${tokenAmount(t0, n0, config)}`
    case 'deposit':
    case 'withdraw':
      return `${a.kind} ${tokenAmount(t0, n0, config)} ${a.kind === 'deposit' ? 'into' : 'from'} vault ${short(a.target)}`
    case 'redeem':
      return `redeem ${n0 ?? ''} shares of vault ${short(a.target)}`
    case 'removeLiquidity':
      return `remove ${n1 ?? ''} liquidity from position #${n0 ?? ''} of ${short(a.target)}`
    default:
      return `call ${short(a.target)}`
  }
}

/** The Golem's key under the grant it redeems, with that grant's caveats and its Replicants. */
function keyLayer(golem: FleetGolem, grant: FleetGolem['grant']) {
  return html`<li data-layer="key">
    Golem key <code>${golem.key ? short(golem.key) : '—'}</code>
    <ul class="caveats">
      ${(grant?.caveats ?? []).map((c) => html`<li class="caveat" data-type=${c.type}>${c.words}</li>`)}
    </ul>
    ${
      golem.replicants.length > 0
        ? html`<ul>
          ${golem.replicants.map(
            (r) =>
              html`<li data-replicant=${r.golemId ?? r.hash}>Replicant ${r.golemId ? html`${r.golemId} (${r.status ?? 'unknown'}${r.phase ? `, ${r.phase}` : ''}) ` : null}<code>${short(r.delegate)}</code>: ${r.caveats.map((c) => c.words).join('; ')}</li>`,
          )}
        </ul>`
        : null
    }
  </li>`
}

function PermissionsPanel({ golem, view, now, config }: { golem: FleetGolem; view: GolemView; now: number; config: Config }) {
  const week = view.redemptions.filter((r) => r.timestamp >= now - 7 * 86_400)
  const actions = view.actions.filter((a) => Number(a.timestamp) >= now - 7 * 86_400)
  return html`<section class="card" id="permissions">
    <h3>Permissions</h3>
    ${
      view.health.revocation.kind === 'RevokedByOwner'
        ? html`<p class="reason" id="permissions-revoked">The owner revoked these grants: none of them acts any more.</p>`
        : null
    }
    ${golem.parent ? html`<p data-parent=${golem.parent}>A Replicant of ${golem.parent}: it redeems a slice of that Golem's grant and dies no later than it.</p>` : null}
    <ul class="tree">
      <li>
        owner account <code>${short(golem.owner)}</code>
        ${
          golem.redelegation && golem.grant
            ? html`<ul>
                <li data-layer="session-account">
                  Session Account <code>${short(golem.grant.delegate)}</code> (the wallet's Advanced Permission)
                  <ul class="caveats">
                    ${golem.grant.caveats.map((c) => html`<li class="caveat" data-type=${c.type}>${c.words}</li>`)}
                  </ul>
                  <ul>
                    ${keyLayer(golem, golem.redelegation)}
                  </ul>
                </li>
              </ul>`
            : html`<ul>
                ${keyLayer(golem, golem.grant)}
              </ul>`
        }
      </li>
    </ul>
    ${
      golem.gas
        ? html`<h4>Gas grant</h4>
          <p class="grant" data-grant="gas">${formatUnits(BigInt(golem.gas.periodAmount), 18)} ETH per ${countdown(golem.gas.periodSeconds)} to the Golem's key</p>
          ${
            golem.gas.availableInPeriod === null
              ? null
              : html`<p class="left" data-left="gas">${formatUnits(BigInt(golem.gas.availableInPeriod), 18)} ETH left this period</p>`
          }
          <ul class="caveats">
            ${golem.gas.caveats.map((c) => html`<li class="caveat" data-type=${c.type}>${c.words}</li>`)}
          </ul>`
        : null
    }
    ${
      golem.actionGrants.length > 0
        ? html`<h4>Action grants (${golem.actionGrants.length})</h4>
          <ul class="action-grants">
            ${golem.actionGrants.map(
              (g) => html`<li class="grant" data-grant="action" data-label=${g.label}>
                <strong>${g.label}</strong>
                ${
                  g.leftTodayUsd6 === null
                    ? null
                    : html` <span class="left" data-left="action">$${formatUnits(BigInt(g.leftTodayUsd6), 6)} left today (until ${when(g.resetsAt ?? 0)})</span>`
                }
                <ul class="caveats">
                  ${g.caveats.map((c) => html`<li class="caveat" data-type=${c.type}>${c.words}</li>`)}
                </ul>
              </li>`,
            )}
          </ul>`
        : null
    }
    <h4>Redemptions, last 7 days (${week.length})</h4>
    <table class="redemptions">
      <tbody>
        ${week.slice(0, 20).map(
          (r) => html`<tr>
            <td>${when(r.timestamp)}</td>
            <td>${r.transfers.map((t) => (t.token ? usdc(t.amount) : `${formatUnits(BigInt(t.amount), 18)} ETH`)).join(', ')}</td>
            <td>${r.usd6 === null ? '' : `$${formatUnits(BigInt(r.usd6), 6)}`}</td>
            <td><code>${short(r.txHash)}</code></td>
          </tr>`,
        )}
      </tbody>
    </table>
    <h4>Actions, last 7 days (${actions.length}${view.actions.length >= ACTIONS_READ ? '+' : ''})</h4>
    <table class="actions">
      <tbody>
        ${actions.slice(0, 20).map(
          (a) => html`<tr class="action" data-kind=${a.kind}>
            <td>${when(Number(a.timestamp))}</td>
            <td>${VERBS[a.kind]}</td>
            <td class="what">${actionWords(a, config)}</td>
            <td>${a.usd6 === null ? '' : `$${formatUnits(BigInt(a.usd6), 6)}`}</td>
            <td class="bound">bound by ${a.caveats.map((c) => c.name ?? short(c.enforcer)).join(', ')}</td>
            <td><code>${short(a.txHash)}</code></td>
          </tr>`,
        )}
      </tbody>
    </table>
  </section>`
}

function Payments({ view }: { view: GolemView }) {
  return html`<section class="card" id="payments">
    <h3>Payments (${view.payments.length})</h3>
    <table>
      <tbody>
        ${view.payments.map(
          (p) => html`<tr class="payment" data-kind=${p.kind}>
            <td>${p.kind}</td>
            <td>${usdc(p.amount)}</td>
            <td>+${countdown(Number(p.seconds))}</td>
            <td>from <code>${short(p.payer)}</code></td>
          </tr>`,
        )}
      </tbody>
    </table>
  </section>`
}

/** The custody events, newest first: each at its time with its fields in one line. */
function Timeline({ view }: { view: GolemView }) {
  const fields = (data: Record<string, unknown>) =>
    Object.entries(data)
      .map(([k, v]) => `${k} ${typeof v === 'string' && /^0x[0-9a-fA-F]{40,}$/.test(v) ? short(v) : String(v)}`)
      .join(', ')
  return html`<section class="card" id="timeline">
    <h3>Custody events (newest ${view.events.length})</h3>
    <table>
      <tbody>
        ${view.events.map(
          (e) => html`<tr class="event" data-type=${e.type}>
            <td>${when(Math.floor(e.at / 1000))}</td>
            <td>${e.type}</td>
            <td>${fields(e.data)}</td>
          </tr>`,
        )}
      </tbody>
    </table>
  </section>`
}

/**
 * What the Golem's life costs: runway redeemed, runtime it bought and gas it drew, in total and for the
 * latest periods, and how long its money projects it to live (never past the owner's grant).
 */
function MetabolismPanel({ view, dead }: { view: GolemView; dead: boolean }) {
  const m = view.metabolism
  if (m === null) return null
  const eth = (wei: string) => `${formatUnits(BigInt(wei), 18)} ETH`
  return html`<section class="card" id="metabolism">
    <h3>Metabolism</h3>
    ${
      dead
        ? html`<p class="lifespan-ended">Its life has ended: what it held went home to the owner (see above).</p>`
        : html`<p>
          Projected lifespan <strong class="lifespan">${countdown(Number(m.projectedLifespanSeconds))}</strong>, ${usdc(m.held)} held
          for runtime
        </p>`
    }
    <table>
      <thead>
        <tr><th>period</th><th>runway redeemed</th><th>runtime bought</th><th>gas</th></tr>
      </thead>
      <tbody>
        <tr class="totals">
          <td>all</td>
          <td class="runway">${usdc(m.totals.runwayRedeemed)}</td>
          <td>${usdc(m.totals.runtimeBought)}</td>
          <td>${eth(m.totals.gasRedeemed)}</td>
        </tr>
        ${m.periods
          .slice(-5)
          .reverse()
          .map(
            (p) => html`<tr class="period">
              <td>${when(Number(p.start))}</td>
              <td>${usdc(p.runwayRedeemed)}</td>
              <td>${usdc(p.runtimeBought)}</td>
              <td>${eth(p.gasRedeemed)}</td>
            </tr>`,
          )}
      </tbody>
    </table>
  </section>`
}

/** Where a dead Golem's money went, one line per asset, in the token's units. */
function returnedWords(death: NonNullable<FleetGolem['death']>, config: Config): string[] {
  return death.returned.map((f) => {
    const amount =
      f.amount === null ? '' : f.asset === 'native' ? `${formatUnits(BigInt(f.amount), 18)} ETH` : tokenAmount(f.asset, f.amount, config)
    if (f.status === 'returned') return `${amount} returned to the owner${f.txHash ? ` in ${short(f.txHash)}` : ''}`
    if (f.status === 'empty')
      return `${f.asset === 'native' ? 'ETH' : (config.tokens[f.asset.toLowerCase()]?.symbol ?? short(f.asset))}: nothing left to return`
    return `${amount} stranded on the Golem's key (${f.status})`
  })
}

/** Why the Golem died, in words, with the death's kind as the record names it. */
function deathCauseWords(death: NonNullable<FleetGolem['death']>): string {
  if (death.cause === 'OwnerRevocation') return `the owner revoked the grant (${death.kind})`
  if (death.cause === 'NaturalExpiry') return `its grant ran out (${death.kind})`
  return death.kind
}

function DeathOverlay({ golem, view, now, config }: { golem: FleetGolem; view: GolemView; now: number; config: Config }) {
  const vitals = view.phases?.current.vitals
  const dead = view.health.health === 'dead' || vitals?.lifecycle === 'dead'
  const terminal = vitals?.phase === 'Terminal'
  if (!dead && !terminal) return null
  const left = vitals ? vitalsAt(vitals, now).livesSeconds : Math.min(view.health.grant_ends_at, view.health.runway_ends_at) - now
  return html`<section class="overlay" id="death-overlay">
    ${
      dead
        ? html`<h3>This Golem has died</h3>
          ${
            golem.death
              ? html`<p id="death-cause">Cause: ${deathCauseWords(golem.death)}. Where its money went:</p>
                <ul id="money-home">
                  ${returnedWords(golem.death, config).map((line) => html`<li>${line}</li>`)}
                </ul>`
              : null
          }
          <p>Its knowledge passes on: provision a successor Golem with the same strategy to continue its line.</p>`
        : html`<h3>Terminal: death in <span class="countdown">${countdown(left)}</span></h3>
          <p>Feed it to buy a reprieve, renew its grant, or prepare its successor.</p>`
    }
  </section>`
}

const revokedLine = (r: Revoked) => `${r.grants} grant(s) disabled in ${r.txHash}`

/**
 * The Snap's "Revoke all" hands the owner here with `?revoke=<ids>`: one confirmation, one user operation
 * for every Golem named.
 */
function RevokeRequest({ ids, wallet, onDone }: { ids: string[]; wallet: Wallet | null; onDone: () => void }) {
  const [status, setStatus] = useState('')
  const act = async () => {
    setStatus('revoke all: waiting for the wallet…')
    try {
      setStatus(`revoke all: ${revokedLine(await revoke(wallet!, ids))}`)
    } catch (e) {
      setStatus(`revoke all failed: ${e instanceof Error ? e.message : String(e)}`)
    }
    onDone()
  }
  return html`<section class="card" id="revoke-request">
    <h3>Revoke ${ids.length} Golem(s): ${ids.join(', ')}</h3>
    <p>Every grant you signed for them is disabled in one transaction from your account; each dies at its next heartbeat.</p>
    <button id="revoke-all" disabled=${!wallet} onClick=${act}>Revoke all</button>
    ${wallet ? null : html`<span class="reason">connect the owner's wallet first</span>`}
    <p id="revoke-request-status">${status}</p>
  </section>`
}

/**
 * Lower the period amount or end the grant earlier without revoking it. Blank fields keep what the grant
 * says; the end is given in hours from now.
 */
function AdjustForm({
  golem,
  disabled,
  run,
  wallet,
}: {
  golem: FleetGolem
  disabled: boolean
  run: (name: string, act: () => Promise<string>) => () => Promise<void>
  wallet: Wallet | null
}) {
  const [amount, setAmount] = useState('')
  const [hours, setHours] = useState('')
  const act = run('adjust', async () => {
    const change: { periodAmount?: string; endsAt?: number } = {}
    if (amount.trim() !== '') change.periodAmount = parseUnits(amount.trim(), 6).toString()
    if (hours.trim() !== '') change.endsAt = Math.floor(Date.now() / 1000 + Number(hours) * 3600)
    const r = await adjust(wallet!, golem.id, change)
    return `${usdc(r.periodAmount)} per period from ${when(r.periodStart)} until ${when(r.grant_ends_at)}; the old grant was disabled in ${r.txHash}`
  })
  return html`<fieldset id="adjust-grant" disabled=${disabled}>
    <legend>Adjust the grant (lower or shorten, without revoking)</legend>
    <label>USDC per period <input id="adjust-amount" inputmode="decimal" placeholder=${golem.runway ? formatUnits(BigInt(golem.runway.periodAmount), 6) : ''} value=${amount} onInput=${(e: Event) => setAmount((e.target as HTMLInputElement).value)} /></label>
    <label>ends in hours <input id="adjust-hours" inputmode="decimal" value=${hours} onInput=${(e: Event) => setHours((e.target as HTMLInputElement).value)} /></label>
    <button id="adjust" onClick=${act}>Adjust grant</button>
  </fieldset>`
}

/**
 * A key rotation only the owner can complete (a direct grant): the Golem keeps its old key until the
 * owner's grant to the new one arrives, which the next heartbeat installs.
 */
function RotationCard({ golem, view, wallet, onDone }: { golem: FleetGolem; view: GolemView; wallet: Wallet | null; onDone: () => void }) {
  const [status, setStatus] = useState('')
  const rotation = view.health.rotation
  if (!rotation) return null
  const grant = async () => {
    setStatus('waiting for the wallet…')
    try {
      const r = await answerRotation(wallet!, golem.id)
      setStatus(`granted to ${r.to} from ${when(r.periodStart)}: the next heartbeat switches keys`)
    } catch (e) {
      setStatus(`the grant failed: ${e instanceof Error ? e.message : String(e)}`)
    }
    onDone()
  }
  return html`<section class="card" id="rotation" data-status=${rotation.status}>
    <h3>Key rotation</h3>
    ${
      rotation.status === 'answered'
        ? html`<p>Your grant to the new key <code>${short(rotation.new_key)}</code> arrived: the next heartbeat switches to it.</p>`
        : html`<p>The Golem's key rotation waits for your grant to the new key <code>${short(rotation.new_key)}</code> (asked ${when(rotation.requested_at)}): it keeps its old key <code>${short(rotation.old_key)}</code> meanwhile.</p>
          <button id="grant-rotation" disabled=${!wallet} onClick=${grant}>Grant the new key</button>
          ${wallet ? null : html`<p class="reason">connect the owner's wallet first</p>`}`
    }
    <p id="rotation-status">${status}</p>
  </section>`
}

function Actions({ golem, wallet, config, onDone }: { golem: FleetGolem; wallet: Wallet | null; config: Config; onDone: () => void }) {
  const [status, setStatus] = useState('')
  const run = (name: string, act: () => Promise<string>) => async () => {
    setStatus(`${name}: waiting for the wallet…`)
    try {
      setStatus(`${name}: ${await act()}`)
    } catch (e) {
      setStatus(`${name} failed: ${e instanceof Error ? e.message : String(e)}`)
    }
    onDone()
  }
  const disabled = !wallet
  // An Advanced Permission is the wallet's: the owner revokes or changes it there.
  const inWallet = golem.shape === 'permissions'
  return html`<section class="card" id="actions">
    <h3>Owner actions</h3>
    <button id="revoke" disabled=${disabled || inWallet} onClick=${run('revoke', async () => revokedLine(await revoke(wallet!, [golem.id])))}>Revoke</button>
    <button id="renew" disabled=${disabled || inWallet} onClick=${run('renew', async () => {
      const r = await renew(wallet!, golem.id)
      return `grant ${r.delegationHash} follows the current one, until ${when(r.grant_ends_at)}`
    })}>Renew grant</button>
    <${AdjustForm} golem=${golem} disabled=${disabled || inWallet} run=${run} wallet=${wallet} />
    ${
      inWallet
        ? html`<p class="reason" id="in-wallet">Granted through your wallet's Advanced Permissions: revoke or change it in MetaMask (All permissions); Bardo notices at the next heartbeat.</p>`
        : null
    }
    <button id="extend" disabled=${disabled} onClick=${run('extend', async () => {
      const r = await pay(wallet!, config, 'extend', golem.id)
      return `credited ${usdc(r.credit.amount)}`
    })}>Extend 1 h (x402)</button>
    <button id="feed" disabled=${disabled} onClick=${run('feed', async () => {
      const r = await pay(wallet!, config, 'feed', golem.id)
      return `credited ${usdc(r.credit.amount)}`
    })}>Feed (x402)</button>
    <button id="pair-snap" disabled=${disabled} onClick=${run('pair', async () => {
      const r = await pairSnap(wallet!, config, golem.owner as `0x${string}`)
      return r.paired ? `the Bardo Snap is paired for ${r.owner}; its alerts read ${config.apiUrl}` : 'the Snap did not pair'
    })}>Pair the MetaMask Snap</button>
    ${wallet ? null : html`<p class="reason">connect the owner's wallet first</p>`}
    <p id="action-status">${status}</p>
  </section>`
}

/**
 * A deployed page's read key (readKey.ts): the owner enters the key the operator gave them, kept in this
 * browser only and shown by its last four characters; a malformed key is refused naming the field.
 */
function ReadKeyCard({ onChange }: { onChange: () => void }) {
  const [kept, setKept] = useState(savedReadKey())
  const [typed, setTyped] = useState('')
  const [status, setStatus] = useState('')
  const save = () => {
    try {
      saveReadKey(typed)
      setKept(savedReadKey())
      setTyped('')
      setStatus('')
      onChange()
    } catch (e) {
      setStatus(e instanceof ReadKeyError ? e.message : String(e))
    }
  }
  const forget = () => {
    forgetReadKey()
    setKept(null)
    onChange()
  }
  return html`<section class="card" id="read-key">
    ${
      kept
        ? html`<p>reading with the read key <code>${shownReadKey(kept)}</code> <button class="forget" onClick=${forget}>Forget</button></p>`
        : html`<p>Reads without a read key are limited to 30 a minute: enter the read key your operator gave you.</p>`
    }
    <input type="password" autocomplete="off" placeholder="bardo_read_…" value=${typed}
      onInput=${(e: Event) => setTyped((e.target as HTMLInputElement).value)} />
    <button class="save" onClick=${save}>Keep in this browser</button>
    <p class="reason" id="read-key-status">${status}</p>
  </section>`
}

export function App() {
  const [config, setConfig] = useState<Config | null>(null)
  const [wallets, setWallets] = useState<WalletDetail[]>([])
  const [wallet, setWallet] = useState<Wallet | null>(null)
  const [fleet, setFleet] = useState<Fleet | null>(null)
  const [selected, setSelected] = useState<string | null>(null)
  // The view with the Golem it was read for: a view is shown only beside its own Golem.
  const [loaded, setView] = useState<{ id: string; view: GolemView } | null>(null)
  const [error, setError] = useState('')
  const [tick, setTick] = useState(0)
  // A Golem registered from this page belongs to the account that granted it: its fleet is shown.
  const [fleetOwner, setFleetOwner] = useState<string | null>(null)

  useEffect(() => discoverWallets((d) => setWallets((all) => (all.some((w) => w.info.uuid === d.info.uuid) ? all : [...all, d]))), [])
  useEffect(() => {
    // The chain's settings from the API; where the page is served decides the rest (web/src/page.ts).
    getJson<ChainConfig>('/api/v1/dashboard/config').then(
      (chain) => {
        const page = pageSettings(document)
        setConfig({ ...chain, owner: page.owner, snapId: page.snapId, apiUrl: page.apiUrl ?? location.origin, readKey: page.readKey })
      },
      (e: Error) => setError(e.message),
    )
  }, [])
  useEffect(() => {
    if (!config) return
    let stopped = false
    const owner = fleetOwner ?? new URLSearchParams(location.search).get('owner') ?? config.owner
    const poll = async () => {
      try {
        if (!owner) throw new Error('owner: name the owner smart account in the URL (?owner=0x...)')
        const f = await getJson<Fleet>(`/api/v1/fleet?owner=${owner}`)
        if (stopped) return
        setFleet(f)
        const id = selected ?? f.golems[0]?.id ?? null
        if (id !== selected) setSelected(id)
        const key = f.golems.find((g) => g.id === id)?.key ?? null
        if (id) setView({ id, view: await loadGolem(id, config.indexer ? key : null, f.now) })
        setError('')
      } catch (e) {
        if (!stopped) setError(e instanceof Error ? e.message : String(e))
      }
    }
    // One read at a time: the next starts POLL_MS after the last answered, so a slow API is never asked
    // twice over; a hidden tab reads nothing until it is shown again.
    let timer: ReturnType<typeof setTimeout> | undefined
    let reading = false
    const read = async () => {
      timer = undefined
      reading = true
      await poll()
      reading = false
      later()
    }
    const later = () => {
      if (!stopped && timer === undefined && document.visibilityState !== 'hidden') timer = setTimeout(read, POLL_MS)
    }
    const visibility = () => {
      clearTimeout(timer)
      timer = undefined
      if (document.visibilityState !== 'hidden' && !reading) void read()
    }
    void read()
    document.addEventListener('visibilitychange', visibility)
    return () => {
      stopped = true
      clearTimeout(timer)
      document.removeEventListener('visibilitychange', visibility)
    }
  }, [config, selected, tick, fleetOwner])

  const connect = async (d: WalletDetail) => {
    try {
      setWallet({ provider: d.provider, address: await connectWallet(d.provider) })
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e))
    }
  }
  const registered = (r: Registered) => {
    setFleetOwner(r.account)
    setSelected(r.golemId)
  }
  const golem = fleet?.golems.find((g) => g.id === selected)
  const view = loaded && golem && loaded.id === golem.id ? loaded.view : null
  const now = fleet?.now ?? 0
  const revokeIds = (new URLSearchParams(location.search).get('revoke') ?? '').split(',').filter((id) => id.length > 0)
  return html`<div class="page">
    <header>
      <h1>Bardo: the owner's dashboard</h1>
      <div id="wallet">
        ${
          wallet
            ? html`connected <code id="wallet-address">${wallet.address}</code>`
            : wallets.length === 0
              ? 'no wallet found (install MetaMask)'
              : wallets.map((w) => html`<button class="connect" onClick=${() => connect(w)}>Connect ${w.info.name}</button>`)
        }
      </div>
    </header>
    ${config?.readKey === 'owner' ? html`<${ReadKeyCard} onChange=${() => setTick((t) => t + 1)} />` : null}
    ${error ? html`<p class="error" id="error">${error}</p>` : null}
    ${revokeIds.length > 0 ? html`<${RevokeRequest} ids=${revokeIds} wallet=${wallet} onDone=${() => setTick((t) => t + 1)} />` : null}
    <nav id="fleet">
      <h2>Fleet ${fleet ? html`of <code>${short(fleet.owner)}</code>` : ''}</h2>
      <ul>
        ${(fleet?.golems ?? []).map(
          (g) => html`<li class=${g.id === selected ? 'selected' : ''} data-golem=${g.id}>
            <button onClick=${() => setSelected(g.id)}>${g.id}</button> ${g.phase} · ${g.status}
          </li>`,
        )}
      </ul>
    </nav>
    <${NewGolem} wallet=${wallet} onRegistered=${registered} />
    ${
      golem && view && config
        ? html`<main data-golem=${golem.id}>
          <${DeathOverlay} golem=${golem} view=${view} now=${now} config=${config} />
          <${VitalSignsCard} view=${view} now=${now} />
          <${RotationCard} golem=${golem} view=${view} wallet=${wallet} onDone=${() => setTick((t) => t + 1)} />
          <${PhaseHistory} golem=${golem} view=${view} now=${now} />
          <div class="row">
            <${RunwayCard} golem=${golem} view=${view} now=${now} />
            <${Actions} golem=${golem} wallet=${wallet} config=${config} onDone=${() => setTick((t) => t + 1)} />
          </div>
          <${PermissionsPanel} golem=${golem} view=${view} now=${now} config=${config} />
          <${ObserversCard} golemId=${golem.id} shape=${golem.shape} wallet=${wallet} />
          <${Payments} view=${view} />
          <${Timeline} view=${view} />
          <${MetabolismPanel} view=${view} dead=${golem.status === 'dead'} />
        </main>`
        : error && !fleet
          ? null
          : html`<p>Loading…</p>`
    }
    ${
      config
        ? html`<${CouncilPanel}
          indexer=${config.indexer}
          owner=${fleet?.owner ?? null}
          golems=${(fleet?.golems ?? []).filter((g) => g.status === 'alive')}
          wallet=${wallet}
          usdc=${config.usdc} />`
        : null
    }
  </div>`
}
