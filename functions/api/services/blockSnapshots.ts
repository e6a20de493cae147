// One chain read per key and block, shared: every request that asks for the same key at the same block
// gets the same read (in flight or done); a request at a newer block starts a new read and replaces the
// entry. A failed read is forgotten, so the next request tries again.

export type BlockSnapshotsOptions = {
  /** Keys kept at most; the one whose read is oldest is dropped first. */
  maxEntries?: number
}

type Entry<V> = { blockNumber: bigint; value: Promise<V> }

export class BlockSnapshots<V> {
  readonly #entries = new Map<string, Entry<V>>()
  readonly #maxEntries: number

  constructor(options: BlockSnapshotsOptions = {}) {
    this.#maxEntries = options.maxEntries ?? 10_000
    if (!Number.isInteger(this.#maxEntries) || this.#maxEntries < 1) throw new RangeError('maxEntries: must be a positive integer')
  }

  /** The read of `key` at `blockNumber`: the shared one when it exists, otherwise `read()` started now. */
  at(key: string, blockNumber: bigint, read: () => Promise<V>): Promise<V> {
    const entry = this.#entries.get(key)
    // An older answer than the one cached for a newer block is never wanted: a caller that learned an older
    // head while another learned a newer one is still answered at least as fresh as its own head.
    if (entry && entry.blockNumber >= blockNumber) return entry.value
    const value = read()
    const fresh: Entry<V> = { blockNumber, value }
    this.#entries.delete(key)
    this.#entries.set(key, fresh)
    if (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!)
    value.catch(() => {
      if (this.#entries.get(key) === fresh) this.#entries.delete(key)
    })
    return value
  }

  get size(): number {
    return this.#entries.size
  }
}
