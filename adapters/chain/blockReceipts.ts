// Waiting for transaction receipts by block: one watcher per client reads each new block's receipts
// once (`eth_getBlockReceipts`) and answers every transaction waiting in this process, instead of each
// transaction polling `eth_getTransactionReceipt` until it is mined.
//
// A receipt can still be missed by the block reads: a transaction mined in a block read before it was
// waited for (the watcher was idle and starts at the head, or read that block between the broadcast
// and the wait), or a block anvil reports before its receipts are readable (foundry-rs/foundry#10944;
// on an automining chain with nothing else to mine no later block comes). So every waiter also looks
// its own receipt up directly: at once when the watcher starts with it, then after a few rounds
// without an answer, and less and less often after that.
import {
  formatTransactionReceipt,
  numberToHex,
  TransactionReceiptNotFoundError,
  WaitForTransactionReceiptTimeoutError,
  type Chain,
  type Client,
  type Hash,
  type RpcTransactionReceipt,
  type TransactionReceipt,
  type Transport,
} from 'viem'
import { getBlockNumber, getTransactionReceipt } from 'viem/actions'

type ReceiptClient = Client<Transport, Chain | undefined>

export type BlockReceiptParameters = {
  hash: Hash
  /** Milliseconds before giving up with viem's WaitForTransactionReceiptTimeoutError. Default 180,000 (viem's). */
  timeout?: number
}

type Waiter = {
  hash: string
  resolve(receipt: TransactionReceipt): void
  reject(error: unknown): void
  deadline: number
  /** The round at which this waiter next looks its receipt up directly. */
  lookupAt: number
  lookups: number
}

/** Rounds without an answer before a waiter's first direct lookup (it then doubles, up to MAX_LOOKUP_GAP). */
const FIRST_LOOKUP_AFTER = 3
const MAX_LOOKUP_GAP = 48
/** Receipts of blocks already read, kept so a transaction waited for just after its block was read is answered. */
const RECENT_RECEIPTS = 4096

export class BlockReceiptWatcher {
  readonly #client: ReceiptClient
  readonly #interval: number
  readonly #waiters = new Map<string, Waiter[]>()
  readonly #recent = new Map<string, TransactionReceipt>()
  /** The next block whose receipts are unread; null while idle (a restart begins at the head). */
  #next: bigint | null = null
  #running = false
  #round = 0
  #wake: (() => void) | null = null

  constructor(client: ReceiptClient, interval = client.pollingInterval) {
    this.#client = client
    this.#interval = interval
  }

  wait(p: BlockReceiptParameters): Promise<TransactionReceipt> {
    const hash = p.hash.toLowerCase()
    const known = this.#recent.get(hash)
    if (known) return Promise.resolve(known)
    return new Promise<TransactionReceipt>((resolve, reject) => {
      const waiter: Waiter = {
        hash,
        resolve,
        reject,
        deadline: Date.now() + (p.timeout ?? 180_000),
        // A watcher that starts now begins at the head: a block before it may hold this transaction.
        lookupAt: this.#running ? this.#round + FIRST_LOOKUP_AFTER : 0,
        lookups: 0,
      }
      this.#waiters.set(hash, [...(this.#waiters.get(hash) ?? []), waiter])
      if (this.#running) this.#wake?.()
      else void this.#run()
    })
  }

  async #run(): Promise<void> {
    this.#running = true
    this.#round = 0
    try {
      while (this.#waiters.size > 0) {
        try {
          await this.#readNewBlocks()
          await this.#lookUpDirectly()
        } catch (error) {
          // A failing RPC is every waiter's to handle, as a failing lookup would be.
          for (const waiter of this.#all()) waiter.reject(error)
          this.#waiters.clear()
        }
        this.#expire()
        if (this.#waiters.size === 0) break
        this.#round += 1
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.#interval)
          this.#wake = () => {
            clearTimeout(timer)
            resolve()
          }
        })
        this.#wake = null
      }
    } finally {
      this.#running = false
      this.#next = null
    }
  }

  async #readNewBlocks(): Promise<void> {
    this.#next ??= await getBlockNumber(this.#client, { cacheTime: 0 })
    while (this.#waiters.size > 0) {
      const receipts = await this.#client.request({
        method: 'eth_getBlockReceipts',
        params: [numberToHex(this.#next)],
      } as never)
      // Not mined yet (or, on anvil, reported before its receipts are readable): read it again next round.
      if (receipts === null || receipts === undefined) return
      for (const raw of receipts as RpcTransactionReceipt[]) this.#answer(formatTransactionReceipt(raw) as TransactionReceipt)
      this.#next += 1n
    }
  }

  async #lookUpDirectly(): Promise<void> {
    for (const waiter of this.#all()) {
      if (waiter.lookupAt > this.#round || !this.#waiters.has(waiter.hash)) continue
      waiter.lookups += 1
      waiter.lookupAt = this.#round + Math.min(FIRST_LOOKUP_AFTER * 2 ** waiter.lookups, MAX_LOOKUP_GAP)
      try {
        this.#answer(await getTransactionReceipt(this.#client, { hash: waiter.hash as Hash }))
      } catch (error) {
        if (!(error instanceof TransactionReceiptNotFoundError)) throw error
      }
    }
  }

  #answer(receipt: TransactionReceipt): void {
    const hash = receipt.transactionHash.toLowerCase()
    this.#recent.set(hash, receipt)
    if (this.#recent.size > RECENT_RECEIPTS) this.#recent.delete(this.#recent.keys().next().value as string)
    for (const waiter of this.#waiters.get(hash) ?? []) waiter.resolve(receipt)
    this.#waiters.delete(hash)
  }

  #expire(): void {
    const now = Date.now()
    for (const waiter of this.#all()) {
      if (waiter.deadline > now) continue
      waiter.reject(new WaitForTransactionReceiptTimeoutError({ hash: waiter.hash as Hash }))
      const left = (this.#waiters.get(waiter.hash) ?? []).filter((w) => w !== waiter)
      if (left.length > 0) this.#waiters.set(waiter.hash, left)
      else this.#waiters.delete(waiter.hash)
    }
  }

  #all(): Waiter[] {
    return [...this.#waiters.values()].flat()
  }
}

const watchers = new WeakMap<object, BlockReceiptWatcher>()

/** The receipt of a transaction already broadcast, through the one watcher this client shares in the process. */
export function waitForBlockReceipt(client: ReceiptClient, p: BlockReceiptParameters): Promise<TransactionReceipt> {
  let watcher = watchers.get(client)
  if (!watcher) {
    watcher = new BlockReceiptWatcher(client)
    watchers.set(client, watcher)
  }
  return watcher.wait(p)
}
