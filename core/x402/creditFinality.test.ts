import { describe, expect, it } from 'vitest'
import { grantedRuntime, judgeCredit } from './creditFinality.ts'

const gone = { kind: 'gone' as const, authorizationUsed: false, hasSignedTx: true, now: 100n, validBefore: 200n }

describe('judgeCredit', () => {
  it('is final at the confirmation depth, the mining block counting as one', () => {
    expect(judgeCredit({ kind: 'receipt', blockNumber: 10n, head: 12n }, 3)).toEqual({ kind: 'final', confirmations: 3 })
  })
  it('is confirming below the depth', () => {
    expect(judgeCredit({ kind: 'receipt', blockNumber: 10n, head: 11n }, 3)).toEqual({ kind: 'confirming', confirmations: 2, needed: 3 })
  })
  it('waits on a settlement in the pool', () => {
    expect(judgeCredit({ kind: 'known' }, 3)).toEqual({ kind: 'wait' })
  })
  it('re-broadcasts a gone settlement whose authorization is unused and valid', () => {
    expect(judgeCredit(gone, 3)).toEqual({ kind: 'rebroadcast' })
  })
  it('reverses a gone settlement whose authorization expired unused', () => {
    expect(judgeCredit({ ...gone, now: 200n }, 3)).toEqual({ kind: 'reverse', reason: 'authorization-expired' })
  })
  it('never reverses when the authorization was used elsewhere: the money moved', () => {
    expect(judgeCredit({ ...gone, authorizationUsed: true, now: 300n }, 3)).toEqual({ kind: 'landedElsewhere' })
  })
  it('leaves a gone, valid settlement with no signed bytes for later', () => {
    expect(judgeCredit({ ...gone, hasSignedTx: false }, 3)).toEqual({ kind: 'unknown' })
  })
})

describe('grantedRuntime', () => {
  it('grants runtime only for a final credit', () => {
    expect(grantedRuntime('final', 3600n)).toBe(3600n)
    expect(grantedRuntime('pending', 3600n)).toBe(0n)
    expect(grantedRuntime('reversed', 3600n)).toBe(0n)
  })
})
