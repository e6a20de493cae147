import { describe, expect, it } from 'vitest'
import { CONFIRMATION_DEPTHS, FinalityConfigError, confirmationDepth, confirmationsOf, judgeSend } from './finality.ts'

describe('confirmationDepth', () => {
  it("is Base's 30 blocks, Base Sepolia's 30 and anvil's 1 by default", () => {
    expect(confirmationDepth(8453)).toBe(30)
    expect(confirmationDepth(84532)).toBe(30)
    expect(confirmationDepth(31337)).toBe(1)
    expect(CONFIRMATION_DEPTHS).toEqual({ 8453: 30, 84532: 30, 31337: 1 })
  })

  it('takes a configured depth over the default, for its chain only', () => {
    expect(confirmationDepth(31337, { 31337: 3 })).toBe(3)
    expect(confirmationDepth(8453, { 31337: 3 })).toBe(30)
    expect(confirmationDepth(10, { 10: 12 })).toBe(12)
  })

  it('refuses a chain with no depth, naming the field and the rule', () => {
    expect(() => confirmationDepth(10)).toThrowError(FinalityConfigError)
    expect(() => confirmationDepth(10)).toThrowError('confirmations[10]: no confirmation depth is set for chain 10: configure one')
  })

  it.each([
    [{ 31337: 0 }, 'confirmations[31337]: must be a whole number of blocks from 1 to 1000, got 0'],
    [{ 31337: 1.5 }, 'confirmations[31337]: must be a whole number of blocks from 1 to 1000, got 1.5'],
    [{ 31337: 1001 }, 'confirmations[31337]: must be a whole number of blocks from 1 to 1000, got 1001'],
    [{ 31337: Number.NaN }, 'confirmations[31337]: must be a whole number of blocks from 1 to 1000, got NaN'],
    [{ 8453: -1 }, 'confirmations[8453]: must be a whole number of blocks from 1 to 1000, got -1'],
  ])('refuses a bad depth %j, even for another chain', (configured, message) => {
    expect(() => confirmationDepth(31337, configured)).toThrowError(message)
  })

  it('refuses a key that is not a chain id', () => {
    expect(() => confirmationDepth(31337, { base: 3 } as unknown as Record<number, number>)).toThrowError(
      'confirmations[base]: the key must be a chain id, a positive whole number',
    )
  })
})

describe('confirmationsOf', () => {
  it('counts the mining block as one, and a head behind the block as none', () => {
    expect(confirmationsOf(10n, 10n)).toBe(1)
    expect(confirmationsOf(10n, 12n)).toBe(3)
    expect(confirmationsOf(10n, 9n)).toBe(0)
  })
})

describe('judgeSend', () => {
  it('is final once the receipt is as deep as the depth, and confirming before', () => {
    expect(judgeSend({ kind: 'receipt', blockNumber: 100n, head: 100n }, 1)).toEqual({ kind: 'final', confirmations: 1 })
    expect(judgeSend({ kind: 'receipt', blockNumber: 100n, head: 101n }, 3)).toEqual({ kind: 'confirming', confirmations: 2, needed: 3 })
    expect(judgeSend({ kind: 'receipt', blockNumber: 100n, head: 102n }, 3)).toEqual({ kind: 'final', confirmations: 3 })
    expect(judgeSend({ kind: 'receipt', blockNumber: 100n, head: 129n }, 30)).toEqual({ kind: 'final', confirmations: 30 })
  })

  it('a re-mined transaction is judged by its new receipt: a later block starts the count again', () => {
    expect(judgeSend({ kind: 'receipt', blockNumber: 105n, head: 106n }, 3)).toEqual({ kind: 'confirming', confirmations: 2, needed: 3 })
  })

  it('waits for a transaction the node still knows by hash: no re-broadcast, never a new signature', () => {
    expect(judgeSend({ kind: 'known' }, 3)).toEqual({ kind: 'wait' })
  })

  it('re-broadcasts the same signed transaction when it is gone with its nonce unused', () => {
    expect(judgeSend({ kind: 'gone', nonceUsed: false, hasSignedTx: true }, 3)).toEqual({ kind: 'rebroadcast' })
  })

  it('gives a gone transaction up only when another transaction took its nonce', () => {
    expect(judgeSend({ kind: 'gone', nonceUsed: true, hasSignedTx: true }, 3)).toEqual({ kind: 'nonceTaken' })
    expect(judgeSend({ kind: 'gone', nonceUsed: false, hasSignedTx: false }, 3)).toEqual({ kind: 'unknown' })
  })
})
