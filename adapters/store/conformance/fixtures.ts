// Shared fixtures for the store conformance suite. Addresses and hashes are synthetic.
import { getAddress, type Address, type Hex } from 'viem'
import type { CouncilStore } from '../../../core/council/store.ts'
import type { CreateGolemInput, Store } from '../../../core/store/store.ts'

export type Backend = {
  /** A fresh, empty store for each test (every store also keeps the council's records). */
  newStore(): Promise<Store & CouncilStore>
}

export const T0 = 1_750_000_000_000

export const hex32 = (n: number | bigint): Hex => `0x${BigInt(n).toString(16).padStart(64, '0')}`
export const addr = (n: number): Address => `0x${n.toString(16).padStart(40, '0')}`
/** A mixed-case (checksummed) address, to check that the store lowercases. */
export const CHECKSUMMED = getAddress('0xabcdefabcdefabcdefabcdefabcdefabcdefabcd')
/** A well-formed secp256k1 private key shape (never a real one). */
export const KEY_LIKE = `0x${'4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318'}` as const

export function golemInput(golemId: string, overrides: Partial<CreateGolemInput> = {}): CreateGolemInput {
  return {
    golemId,
    owner: addr(1),
    sessionKeyAddress: addr(2),
    custodyMode: 'Delegation',
    profile: JSON.stringify({
      delegate: addr(2),
      delegator: addr(1),
      authority: hex32(0xff),
      caveats: [],
      salt: '0x01',
      signature: `0x${'ab'.repeat(65)}`,
    }),
    nextTickAt: T0,
    now: T0 - 60_000,
    ...overrides,
  }
}

/** Runs `count` copies of `task` at once and returns their results. */
export function concurrently<T>(count: number, task: (i: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => task(i)))
}
