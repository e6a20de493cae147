// The chain's head block number as the API learns it: one eth_blockNumber shared by every request that
// asks while it is in flight. A request is only ever answered by a head read sent after it arrived, so a
// block mined before a request came in is always seen by it (answers are never older than the head the
// request found), however many requests share the read.

export type ReadHead = () => Promise<bigint>

export class HeadBlock {
  readonly #read: ReadHead
  #inFlight: Promise<bigint> | undefined
  #next: Promise<bigint> | undefined

  constructor(read: ReadHead) {
    this.#read = read
  }

  /** The head block number, from a read sent after this call. */
  latest(): Promise<bigint> {
    if (this.#inFlight === undefined) return this.#start()
    // The read in flight was sent before this caller arrived and may miss a block mined since: the caller
    // waits for the next read, which every caller arriving meanwhile shares.
    this.#next ??= this.#inFlight
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
    const read = this.#read().finally(() => {
      if (this.#inFlight === read) this.#inFlight = undefined
    })
    this.#inFlight = read
    return read
  }
}
