// The chain's head block number as the API learns it: one eth_blockNumber shared by every request that
// asks while it is in flight, and reused for `maxAgeMs` after it was sent.
//
// The freshness rule: a request is answered by a head read sent no earlier than `maxAgeMs` before the
// request arrived. With `maxAgeMs` 0 that is a read sent after it arrived, so a block mined before a
// request came in is always seen by it. With `maxAgeMs` at most half the chain's block interval, at most
// one block can be mined between the read and the request: an answer is never staler than one block,
// and a busy API makes one head read per `maxAgeMs` however many requests it serves.

export type ReadHead = () => Promise<bigint>

export type HeadBlockOptions = {
  /** How long after it was sent a head read may answer new callers (ms). Default 0: only reads sent after the caller arrived. */
  maxAgeMs?: number
  /** The clock reads are timed with (ms). Default Date.now. */
  now?: () => number
}

type Read = { sentAt: number; value: Promise<bigint>; failed: boolean }

export class HeadBlock {
  readonly #read: ReadHead
  readonly #maxAgeMs: number
  readonly #now: () => number
  #inFlight: Read | undefined
  #last: Read | undefined
  #next: Promise<bigint> | undefined

  constructor(read: ReadHead, options: HeadBlockOptions = {}) {
    this.#read = read
    this.#maxAgeMs = options.maxAgeMs ?? 0
    if (!Number.isFinite(this.#maxAgeMs) || this.#maxAgeMs < 0) throw new RangeError('maxAgeMs: must be a non-negative number')
    this.#now = options.now ?? Date.now
  }

  /** The head block number, from a read sent no earlier than `maxAgeMs` before this call. */
  latest(): Promise<bigint> {
    const arrived = this.#now()
    // A read sent strictly within the allowed age answers (in flight or done); with age 0, none does.
    const recent = [this.#inFlight, this.#last].find((r) => r !== undefined && !r.failed && r.sentAt > arrived - this.#maxAgeMs)
    if (recent) return recent.value
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

  #start(): Promise<bigint> {
    const read: Read = { sentAt: this.#now(), value: this.#read(), failed: false }
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
