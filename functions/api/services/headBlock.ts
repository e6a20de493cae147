// The chain's head block as the API learns it: one head read shared by every request that asks while it
// is in flight, and reused for `maxAgeMs` after it was sent.
//
// The freshness rule: a request is answered by a head read sent no earlier than `maxAgeMs` before the
// request arrived. With `maxAgeMs` 0 that is a read sent after it arrived, so a block mined before a
// request came in is always seen by it. With `maxAgeMs` at most half the chain's block interval, at most
// one block can be mined between the read and the request: an answer is never staler than one block,
// and a busy API makes one head read per `maxAgeMs` however many requests it serves.
//
// Read ahead: a caller answered by a read already half its age old starts the next read, in the
// background, so that under steady traffic a fresh read is always there before the old one ages out and
// no request waits for the head. The rule above is unchanged: a read answers only callers that arrived
// at most `maxAgeMs` after it was sent.

export type ReadHead<T> = () => Promise<T>

export type HeadBlockOptions = {
  /** How long after it was sent a head read may answer new callers (ms). Default 0: only reads sent after the caller arrived. */
  maxAgeMs?: number
  /** The clock reads are timed with (ms). Default Date.now. */
  now?: () => number
}

type Read<T> = { sentAt: number; value: Promise<T>; failed: boolean }

export class HeadBlock<T = bigint> {
  readonly #read: ReadHead<T>
  readonly #maxAgeMs: number
  readonly #now: () => number
  #inFlight: Read<T> | undefined
  #last: Read<T> | undefined
  #next: Promise<T> | undefined

  constructor(read: ReadHead<T>, options: HeadBlockOptions = {}) {
    this.#read = read
    this.#maxAgeMs = options.maxAgeMs ?? 0
    if (!Number.isFinite(this.#maxAgeMs) || this.#maxAgeMs < 0) throw new RangeError('maxAgeMs: must be a non-negative number')
    this.#now = options.now ?? Date.now
  }

  /** The head, from a read sent no earlier than `maxAgeMs` before this call. */
  latest(): Promise<T> {
    const arrived = this.#now()
    // A read sent strictly within the allowed age answers, done or else in flight; with age 0, none does.
    const within = (r: Read<T>) => !r.failed && r.sentAt > arrived - this.#maxAgeMs
    const last = this.#last
    if (last && within(last)) {
      // Half its age gone and nothing in flight: the next read starts now, and this caller does not wait for it.
      if (this.#inFlight === undefined && last.sentAt <= arrived - this.#maxAgeMs / 2) void this.#start()
      return last.value
    }
    const inFlight = this.#inFlight
    if (inFlight && within(inFlight)) return inFlight.value
    if (this.#inFlight === undefined) return this.#start()
    // The read in flight was sent too long before this caller arrived and may miss a block mined since:
    // the caller waits for the next read, which every caller arriving meanwhile shares.
    this.#next ??= this.#inFlight.value
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        this.#next = undefined
        return this.#start()
      })
    return this.#next
  }

  #start(): Promise<T> {
    const read: Read<T> = { sentAt: this.#now(), value: this.#read(), failed: false }
    this.#inFlight = read
    read.value.then(
      () => {
        if (this.#last === undefined || this.#last.sentAt <= read.sentAt) this.#last = read
      },
      () => {
        read.failed = true
      },
    )
    void read.value
      .finally(() => {
        if (this.#inFlight === read) this.#inFlight = undefined
      })
      .catch(() => undefined)
    return read.value
  }
}
