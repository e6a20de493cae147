// applyPaymentCredit on the Golem its caller already read: the first compare-and-swap is tried on that
// read, a version conflict decides again on the record the store answers with, and only a conflict
// the store answers without a record reads the Golem again. On the in-memory store.
import type { Address, Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { InMemoryStore } from '../../adapters/store/index.ts'
import type { SettledPaymentRecord, Store } from '../store/index.ts'
import { applyPaymentCredit, type CreditOptions, type ReadGolem } from './applyPaymentCredit.ts'
import { parseGolemProfile, serializeGolemProfile } from './profile.ts'
import { born, golemKey, testProfile } from '../../test/support/lifecycle/profile.ts'

const PAYER: Address = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
const NONCE: Hex = `0x${'ab'.repeat(32)}`
const PRICE = 500_000n
const NOW_MS = Number(born) * 1000

const payment: SettledPaymentRecord = {
  status: 'settled',
  payer: PAYER,
  nonce: NONCE,
  golemId: 'g-1',
  kind: 'extend',
  amount: PRICE,
  txHash: `0x${'cd'.repeat(32)}`,
  creditedAt: NOW_MS,
}

/** A store with one Golem, counting its record reads; `current` false makes a conflict answer without the record. */
async function setup(o: { current?: boolean } = {}) {
  const inner = new InMemoryStore()
  await inner.createGolem({
    golemId: 'g-1',
    owner: '0x00000000000000000000000000000000000000aa',
    sessionKeyAddress: golemKey,
    custodyMode: 'Delegation',
    profile: serializeGolemProfile(testProfile()),
    nextTickAt: 0,
    now: NOW_MS,
  })
  const reads = { getGolem: 0 }
  const store = new Proxy(inner, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown
      if (typeof value !== 'function') return value
      return async (...args: unknown[]) => {
        if (name === 'getGolem') reads.getGolem++
        const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args)
        if (name === 'updateGolem' && o.current === false) return { ...(result as object), current: null }
        return result
      }
    },
  }) as Store
  const options: CreditOptions = { store, runtimeCostPerHour: PRICE, chainNow: async () => born, sleep: async () => {} }
  const record = (await inner.getGolem('g-1'))!
  const read: ReadGolem = { golemId: 'g-1', version: record.version, status: record.status, profile: parseGolemProfile(record.profile) }
  /** Another writer (a tick) bumps the record, so `read` is stale. */
  const bump = async () => {
    const now = (await inner.getGolem('g-1'))!
    await inner.updateGolem({ golemId: 'g-1', expectedVersion: now.version, patch: { nextTickAt: now.nextTickAt + 1 }, now: NOW_MS })
  }
  return { inner, reads, options, read, bump }
}

describe('applyPaymentCredit on a read the caller hands in', () => {
  it('credits on that read without reading the Golem', async () => {
    const { inner, reads, options, read } = await setup()
    const applied = await applyPaymentCredit(options, 'g-1', payment, { payment, golem: read })
    expect(applied).toMatchObject({ applied: true, seconds: 3600n, attempts: 1 })
    expect(reads.getGolem).toBe(0)
    expect(parseGolemProfile((await inner.getGolem('g-1'))!.profile).credits?.applied).toHaveLength(1)
  })

  it('on a stale read, decides again on the record the conflict answered with, without a read', async () => {
    const { inner, reads, options, read, bump } = await setup()
    await bump()
    const applied = await applyPaymentCredit(options, 'g-1', payment, { payment, golem: read })
    expect(applied).toMatchObject({ applied: true, attempts: 2 })
    expect(reads.getGolem).toBe(0)
    // The other writer's change survived: the credit was merged into the current record.
    expect((await inner.getGolem('g-1'))!.nextTickAt).toBe(1)
  })

  it('reads the Golem again only when a conflict comes without the current record', async () => {
    const { reads, options, read, bump } = await setup({ current: false })
    await bump()
    expect(await applyPaymentCredit(options, 'g-1', payment, { payment, golem: read })).toMatchObject({ applied: true, attempts: 2 })
    expect(reads.getGolem).toBe(1)
  })

  it('refuses a read of another Golem, naming the field, and changes nothing', async () => {
    const { inner, reads, options, read } = await setup()
    const before = await inner.getGolem('g-1')
    await expect(applyPaymentCredit(options, 'g-1', payment, { payment, golem: { ...read, golemId: 'g-2' } })).rejects.toThrow(
      'golem.golemId: must be the credited Golem g-1, got g-2',
    )
    expect(reads.getGolem).toBe(0)
    expect(await inner.getGolem('g-1')).toEqual(before)
    expect((await inner.listEvents({ golemId: 'g-1', limit: 10 })).events).toEqual([])
  })
})
