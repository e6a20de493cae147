// What a live stream of custody events has sent, so that it also sends an event written after the stream
// moved past that event's time. Writers place events at their own times (a tick at its chain second, however
// long it runs; the API at its clock; the CLI at its block's second), so an event can be written after one
// with a later time was sent: a death tick's last events, written seconds after the payment credited
// meanwhile. Resuming strictly after the last event sent would skip them. The stream keeps the keys it
// sent within a window behind its newest position, reads from the window's start, and sends what it has
// not sent yet. An event written more than the window behind the newest one sent is not sent live (the
// paged read lists it).

/** How far behind its newest event a live stream still looks for events written late: longer than a tick runs. */
export const LATE_EVENT_WINDOW_MS = 300_000

/** An event's place in a Golem's list: its time (ms), then its id. */
export type EventPosition = { at: number; eventId: string }

const keyOf = (e: EventPosition) => `${e.at}:${e.eventId}`

/** Whether `a` lists after `b` (by time, then by id, as the store lists them). */
export const listsAfter = (a: EventPosition, b: EventPosition) => a.at > b.at || (a.at === b.at && a.eventId > b.eventId)

export class LiveStreamWindow {
  readonly #sent = new Map<string, number>()
  #newest: EventPosition

  /**
   * `start`: where the stream stands (the last event a reconnecting client saw, or the newest event when a
   * new client connects). `listed`: the events the store lists from `sinceOf(start)`: those at or before
   * `start` are taken as seen by the client.
   */
  constructor(
    start: EventPosition,
    listed: readonly EventPosition[],
    readonly windowMs = LATE_EVENT_WINDOW_MS,
  ) {
    this.#newest = { at: start.at, eventId: start.eventId }
    for (const e of listed) if (!listsAfter(e, start)) this.#sent.set(keyOf(e), e.at)
  }

  /** The stream's position: the newest event sent (or the start). A reconnecting client resumes from it. */
  get position(): EventPosition {
    return { ...this.#newest }
  }

  /** The earliest time the store is read from: the window behind the newest position. */
  get since(): number {
    return LiveStreamWindow.sinceOf(this.#newest, this.windowMs)
  }

  static sinceOf(position: EventPosition, windowMs = LATE_EVENT_WINDOW_MS): number {
    return Math.max(0, position.at - windowMs)
  }

  /** Of the events listed from `since` (oldest first), the ones to send, in the store's order. */
  unsent<E extends EventPosition>(listed: readonly E[]): E[] {
    const since = this.since
    return listed.filter((e) => e.at >= since && !this.#sent.has(keyOf(e)))
  }

  /** Marks `e` sent; keys that fell out of the window are forgotten. */
  sent(e: EventPosition): void {
    this.#sent.set(keyOf(e), e.at)
    if (listsAfter(e, this.#newest)) this.#newest = { at: e.at, eventId: e.eventId }
    const since = this.since
    for (const [key, at] of this.#sent) if (at < since) this.#sent.delete(key)
  }
}
