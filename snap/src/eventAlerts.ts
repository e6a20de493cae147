// Which custody events deserve a notification, and which of them are new. The Snap reads each paired
// Golem's events (GET /api/v1/golems/:id/events, newest first) on every cron and remembers, per Golem,
// the newest event time it has seen and the events of the last hour before it: an event alerts once,
// even one recorded with a time a little before events already seen (a retried write keeps its first
// time). The first read of a Golem only remembers: a backlog is not news, and the status alerts already
// say what holds now.
import { fitNative, type Alert } from './alerts.ts'
import type { EventCursor } from './types.ts'

/** One custody event as the API answers it. */
export type CustodyEvent = { eventId: string; type: string; at: number; data: Record<string, unknown> }

/** How far before the newest event seen a late-written event is still recognised as new. */
export const LOOKBACK_MS = 60 * 60 * 1000
/** At most this many positions are remembered per Golem. */
export const MAX_SEEN = 200
/** At most this many event notifications per Golem and cron (the newest); the rest is on the dashboard. */
export const MAX_EVENT_ALERTS = 5

const positionOf = (e: Pick<CustodyEvent, 'at' | 'eventId'>) => `${e.at}:${e.eventId}`
const atOf = (position: string) => Number(position.slice(0, position.indexOf(':')))

/**
 * The events of `read` (newest first, as the API pages them) not seen before, oldest first, and the
 * cursor to keep. Without a cursor (the first read) nothing is new.
 */
export function newEvents(cursor: EventCursor | undefined, read: readonly CustodyEvent[]): { fresh: CustodyEvent[]; cursor: EventCursor } {
  const newestAt = Math.max(cursor?.newestAt ?? 0, ...read.map((e) => e.at))
  const floor = newestAt - LOOKBACK_MS
  const seen = new Set(cursor?.seen ?? [])
  const fresh = cursor === undefined ? [] : read.filter((e) => e.at >= cursor.newestAt - LOOKBACK_MS && !seen.has(positionOf(e))).reverse()
  for (const e of read) seen.add(positionOf(e))
  const kept = [...seen]
    .filter((p) => atOf(p) >= floor)
    .sort((a, b) => atOf(b) - atOf(a))
    .slice(0, MAX_SEEN)
  return { fresh, cursor: { newestAt, seen: kept } }
}

/** A number the API wrote as a JSON number or, for a bigint, a decimal string. */
function num(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v
  if (typeof v === 'string' && /^-?\d{1,20}(\.\d+)?$/.test(v)) return Number(v)
  return undefined
}

const day = (seconds: number | undefined) =>
  seconds === undefined || seconds <= 0 ? undefined : new Date(seconds * 1000).toISOString().slice(0, 10)

const address = (v: unknown) => (typeof v === 'string' && /^0x[0-9a-fA-F]{40}$/.test(v) ? `${v.slice(0, 6)}…${v.slice(-4)}` : undefined)

/** A short word the API wrote (a reason, a cause), or undefined for anything else. */
const word = (v: unknown) => (typeof v === 'string' && /^[\w .-]{1,40}$/.test(v) ? v : undefined)

/**
 * A failure's reason as the tick recorded it (an error's name and first line), or undefined for anything
 * that could be a link or markup: only words, spaces and plain punctuation are repeated to the owner.
 */
const reasonText = (v: unknown) => (typeof v === 'string' && /^[\w .,:;'()=-]{1,160}$/.test(v) ? v.slice(0, 120) : undefined)

/**
 * The notification an event deserves, or undefined for events that need no word to the owner
 * (redemptions, phase changes the status already announces, grants the owner just signed, ...). An alert
 * whose news a status condition also carries uses that condition's key, so the two never both go out.
 */
export function eventAlert(golem: { id: string; name: string }, e: CustodyEvent): Alert | undefined {
  const { id, name } = golem
  const d = e.data
  const once = `${id}:event:${positionOf(e)}`
  const alert = (key: string, rest: (n: string) => string, long: string): Alert => ({
    key,
    short: fitNative(name, rest),
    long: long.slice(0, 500),
  })
  switch (e.type) {
    case 'DelegationRevoked': {
      const key = `${id}:health:revoked`
      if (d.cause === 'owner')
        return alert(
          key,
          (n) => `${n}: grant revoked`,
          `Golem ${name}'s grant was revoked from your account. It can no longer redeem its runway and dies at its next heartbeat; what is left comes back to your account. If you did not revoke it, check your account in MetaMask.`,
        )
      if (d.cause === 'expired')
        return alert(
          key,
          (n) => `${n}: grant expired`,
          `Golem ${name}'s grant has ended, so it can no longer redeem its runway and dies. To keep a Golem running, sign a new grant in the Portal.`,
        )
      if (d.cause === 'exhausted')
        return alert(
          key,
          (n) => `${n}: grant used up`,
          `Golem ${name} has used all of its grant and can no longer redeem its runway. To keep it running, sign a new grant in the Portal.`,
        )
      return alert(
        key,
        (n) => `${n}: grant revoked`,
        `Golem ${name}'s grant no longer works (${word(d.cause) ?? 'revoked'}). It can no longer redeem its runway. Nothing to do unless you want it to keep running: then sign a new grant in the Portal.`,
      )
    }
    case 'DelegationExpiringWarning': {
      // Under a day left is where permission health turns critical: the same news, with the hours.
      const hours = Math.floor(num(d.hoursRemaining) ?? 0)
      const when = hours < 1 ? 'under 1 h' : `${hours} h`
      return alert(
        `${id}:health:critical`,
        (n) => `${n}: grant ends in ${when}`,
        `Golem ${name}'s grant ends in ${hours < 1 ? 'under an hour' : `about ${hours} hour(s)`}. When it ends the Golem dies and what is left of its runway comes back to you. To keep it alive, sign a renewal of its grant in the Portal.`,
      )
    }
    case 'RenewalRequested': {
      const ends = day(num(d.grantEndsAt))
      const paid = day(num(d.runwayEndsAt))
      return alert(
        `${id}:grant:renewal`,
        (n) => `${n}: renew its grant`,
        `Golem ${name}'s grant ends${ends ? ` ${ends}` : ''}, before the runway paid for it${paid ? ` (until ${paid})` : ''}. Sign the renewal in the Portal, or it dies when the grant ends.`,
      )
    }
    case 'RotationRenewalRequested': {
      const to = address(d.newAddress)
      const from = day(num(d.startAt))
      const until = day(num(d.grantEndsAt))
      const window = from && until ? ` (from ${from} until ${until})` : ''
      return alert(
        once,
        (n) => `${n}: sign grant for new key`,
        `Golem ${name} is moving to a new session key${to ? ` ${to}` : ''}, and only you can sign its grant. Open the Portal and sign the grant to the new key${window}. Until you do, it keeps its current key.`,
      )
    }
    case 'SessionKeyRotated': {
      const to = address(d.newAddress)
      const reason = word(d.reason)
      return alert(
        once,
        (n) => `${n}: session key rotated`,
        `Golem ${name} now signs with a new session key${to ? ` ${to}` : ''}${reason ? ` (reason: ${reason})` : ''}; the old key is retired. Nothing to do. If you did not expect this, check the Golem in the Portal.`,
      )
    }
    case 'HeartbeatAnomaly': {
      const failures = Math.floor(num(d.failures) ?? 0)
      const reason = reasonText(d.reason)
      return alert(
        `${id}:halted`,
        (n) => `${n}: halted after ${failures} failed ticks`,
        `Golem ${name}'s heartbeat failed ${failures} times in a row${reason ? ` (last: ${reason})` : ''}, so Bardo stopped it: it no longer ticks or redeems its runway. Revoke its grant in the Portal to get back what it holds.`,
      )
    }
    case 'HeartbeatResumed': {
      // The operator lifted a halt the owner was told of: each lift is news of its own.
      const failures = Math.floor(num(d.failures) ?? 0)
      return alert(
        once,
        (n) => `${n}: heartbeat resumed`,
        `Bardo lifted the halt on Golem ${name}${failures > 0 ? ` (${failures} failed ticks in a row had stopped it)` : ''}: it ticks and redeems its runway again. Nothing to do. Should it keep failing, it is halted again and you are told.`,
      )
    }
    case 'PolicyViolation': {
      // A refusal the Golem's constitution only records is the dashboard's news; one whose rule the
      // constitution lists in revokeOn started the revocation cascade, and only the owner can finish it.
      if (d.revoke !== true) return undefined
      const rule = word(d.rule)
      return alert(
        `${id}:policy:revoked`,
        (n) => `${n}: stopped by its constitution`,
        `Golem ${name} broke its constitution${rule ? `'s ${rule} rule` : ''}, which your constitution says revokes it, so Bardo acts no more for it under this constitution. Revoke its grant in the Portal to get back what it holds, or give it a new constitution.`,
      )
    }
    case 'DeathProtocolStarted': {
      const because =
        d.trigger === 'owner-revoked'
          ? ' because its grant was revoked'
          : d.trigger === 'terminal'
            ? ' because it reached the Terminal phase'
            : d.trigger === 'delegation-expired'
              ? ' because its grant ended'
              : ''
      return alert(
        `${id}:dying`,
        (n) => `${n} is dying`,
        `Golem ${name} has started its death protocol${because}. It settles its positions and returns what is left of its runway to your account. Nothing to do; it cannot be undone.`,
      )
    }
    case 'DeathCompleted': {
      const cause = d.cause === 'OwnerRevocation' ? ' (its grant was revoked)' : d.cause === 'NaturalExpiry' ? ' (its life ran out)' : ''
      return alert(
        `${id}:dead`,
        (n) => `${n} has died`,
        `Golem ${name} has died${cause}. Its permissions are revoked and what was left of its runway went back to your account. Nothing to do.`,
      )
    }
    default:
      return undefined
  }
}

/** The notifications for one Golem's new events (oldest first), at most MAX_EVENT_ALERTS, the newest. */
export function eventAlertsOf(golem: { id: string; name: string }, fresh: readonly CustodyEvent[]): Alert[] {
  return fresh
    .map((e) => eventAlert(golem, e))
    .filter((a): a is Alert => a !== undefined)
    .slice(-MAX_EVENT_ALERTS)
}

/**
 * The status alerts and the event alerts of one cron as one list. An event alert whose key was already
 * active is dropped (the news was told); one whose key is among this cron's status alerts takes that
 * alert's place (the same news, told once, with the event's detail). Once a Golem's death is told, its
 * other event alerts (dying, a revoked or expiring grant) say nothing more. Keys shared with status
 * conditions join the active set, so the status does not tell the same news on the next cron either.
 */
export function mergeEventAlerts(
  previouslyActive: readonly string[],
  status: { alerts: Alert[]; active: string[] },
  eventAlerts: readonly Alert[],
): { alerts: Alert[]; active: string[] } {
  const before = new Set(previouslyActive)
  const byKey = new Map<string, Alert>()
  for (const a of eventAlerts) if (!before.has(a.key) && !byKey.has(a.key)) byKey.set(a.key, a)
  const golemOf = (key: string) => key.slice(0, key.indexOf(':'))
  const dead = new Set(
    [...previouslyActive, ...status.alerts.map((a) => a.key), ...byKey.keys()].filter((k) => k.endsWith(':dead')).map(golemOf),
  )
  const told = new Set<string>()
  const alerts: Alert[] = []
  for (const a of status.alerts) {
    alerts.push(byKey.get(a.key) ?? a)
    told.add(a.key)
  }
  for (const [key, a] of byKey) {
    if (told.has(key) || (dead.has(golemOf(key)) && !key.endsWith(':dead'))) continue
    alerts.push(a)
  }
  const shared = [...byKey.keys()].filter((k) => !k.includes(':event:') && alerts.some((a) => a.key === k))
  return { alerts, active: [...new Set([...status.active, ...shared])] }
}
