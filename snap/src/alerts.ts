// Which notifications a status deserves. A notification is sent when its condition becomes true (a
// Golem enters Declining, its permission turns critical, ...), not on every cron while it stays true;
// the set of true conditions is kept in state between crons.
import type { GolemStatus, SnapStatus } from './types.ts'

/** The tick scheduler's default interval, for a status that does not say a Golem's own. */
export const DEFAULT_HEARTBEAT_INTERVAL_SECONDS = 60

export type Alert = {
  /** The condition, stable across crons while it holds ("atlas:phase:Declining"). */
  key: string
  /** At most 50 characters: MetaMask's limit for a native notification. */
  short: string
  /** The in-app notification's text (at most 500 characters). */
  long: string
}

const NATIVE_LIMIT = 50

/** Fits `text` into MetaMask's native notification limit by shortening the Golem's name, never the news. */
export function fitNative(name: string, rest: (n: string) => string): string {
  const full = rest(name)
  if (full.length <= NATIVE_LIMIT) return full
  const room = NATIVE_LIMIT - rest('').length - 1
  return room > 0 ? rest(`${name.slice(0, room)}…`) : full.slice(0, NATIVE_LIMIT)
}

function conditionsOf(g: GolemStatus, now: number): Alert[] {
  const out: Alert[] = []
  const add = (kind: string, rest: (n: string) => string, long: string) =>
    out.push({ key: `${g.id}:${kind}`, short: fitNative(g.name, rest), long })
  if (g.lifecycle === 'dead') {
    add(
      'dead',
      (n) => `${n} has died`,
      `Golem ${g.name} has died. Its permissions are revoked and its remaining runway went back to your account.`,
    )
    return out
  }
  if (g.phase === 'Declining')
    add(
      'phase:Declining',
      (n) => `${n} entered Declining`,
      `Golem ${g.name} entered the Declining phase (vitality ${Math.round(g.vitality * 100)}). It now redeems a tenth of its runway and opens no new positions. Feed it to restore it.`,
    )
  if (g.phase === 'Terminal')
    add(
      'phase:Terminal',
      (n) => `${n} reached Terminal`,
      `Golem ${g.name} has reached the Terminal phase. Its MetaMask permissions are being revoked and the death protocol has begun.`,
    )
  const p = g.permission
  if (p?.health === 'critical')
    add(
      'health:critical',
      (n) => `${n}: permission critical`,
      `Golem ${g.name}'s permission is critical: ${p.days_remaining} day(s) left. Renew or feed it in the Portal.`,
    )
  if (p?.health === 'revoked')
    add(
      'health:revoked',
      (n) => `${n}: permission revoked`,
      `Golem ${g.name}'s permission was revoked. It can no longer redeem its runway.`,
    )
  const interval = g.heartbeatIntervalSeconds ?? DEFAULT_HEARTBEAT_INTERVAL_SECONDS
  if (g.lastHeartbeatAt !== null && now - g.lastHeartbeatAt > 2 * interval) {
    add(
      'heartbeat:missed',
      (n) => `${n}: heartbeat missed`,
      `Golem ${g.name} missed its heartbeat: the last one was ${Math.round((now - g.lastHeartbeatAt) / 60)} min ago (expected every ${Math.max(1, Math.round(interval / 60))} min).`,
    )
  }
  if (g.grant?.renewalNeeded === true) {
    const ends = g.grant.endsAt === undefined ? '' : ` It ends ${new Date(g.grant.endsAt * 1000).toISOString().slice(0, 10)}.`
    add(
      'grant:renewal',
      (n) => `${n}: renew its grant`,
      `Golem ${g.name}'s grant needs your renewal, or it dies when the grant ends.${ends} Renew it in the Portal.`,
    )
  }
  return out
}

/**
 * The notifications to send for `status`, given the conditions that were already true, and the new set
 * of true conditions. The API's own clock (`generatedAt`) judges heartbeats, so a wrong device clock
 * neither invents nor hides a missed heartbeat.
 */
export function planAlerts(
  previouslyActive: readonly string[],
  status: Pick<SnapStatus, 'golems' | 'generatedAt'>,
): { alerts: Alert[]; active: string[] } {
  const before = new Set(previouslyActive)
  const current = status.golems.flatMap((g) => conditionsOf(g, status.generatedAt))
  // Death supersedes the phase news of the same cron: one notification says it all.
  const dead = new Set(current.filter((a) => a.key.endsWith(':dead')).map((a) => a.key.slice(0, -':dead'.length)))
  return {
    alerts: current.filter((a) => !before.has(a.key) && (a.key.endsWith(':dead') || !dead.has(a.key.split(':')[0]!))),
    active: current.map((a) => a.key),
  }
}

/** The one notification for a Snap whose token the API refused: only pairing again helps. */
export const pairAgainAlert: Alert = {
  key: 'auth:refused',
  short: 'Bardo: pair the Snap again',
  long: "The Bardo API no longer accepts this Snap's token (it was replaced or expired). Open the Portal and pair the Snap again to keep receiving Golem alerts.",
}
