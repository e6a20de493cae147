// The heartbeat anomaly's rule: consecutive failed ticks against the configured limit, the limit's
// parsing (a bad one refused, naming the field and the rule), and the reason kept without secrets.
import { describe, expect, it } from 'vitest'
import { SignerNotHeldError, SignerResolutionError } from '../custody/errors.ts'
import {
  afterFailedTick,
  countsAsFailure,
  DEFAULT_MAX_CONSECUTIVE_FAILURES,
  failureReason,
  HeartbeatAnomalyConfigError,
  isHalted,
  liftHalt,
  MAX_REASON_LENGTH,
  parseMaxConsecutiveFailures,
  RESUMED_OUTCOME,
} from './heartbeatAnomaly.ts'

describe('afterFailedTick', () => {
  it('counts one more failure and halts at the limit, not before', () => {
    expect(afterFailedTick(0, 3)).toEqual({ failures: 1, halt: false })
    expect(afterFailedTick(1, 3)).toEqual({ failures: 2, halt: false })
    expect(afterFailedTick(2, 3)).toEqual({ failures: 3, halt: true })
    expect(afterFailedTick(0, 1)).toEqual({ failures: 1, halt: true })
  })

  it('starts from zero after a success (no count, or a count that is not one)', () => {
    expect(afterFailedTick(Number.NaN, 2)).toEqual({ failures: 1, halt: false })
    expect(afterFailedTick(-4, 2)).toEqual({ failures: 1, halt: false })
  })

  it('refuses a bad limit', () => {
    expect(() => afterFailedTick(0, 0)).toThrow(HeartbeatAnomalyConfigError)
  })
})

describe('parseMaxConsecutiveFailures', () => {
  it(`defaults to ${DEFAULT_MAX_CONSECUTIVE_FAILURES} when unset`, () => {
    expect(DEFAULT_MAX_CONSECUTIVE_FAILURES).toBe(5)
    for (const unset of [undefined, null, '']) expect(parseMaxConsecutiveFailures(unset)).toBe(5)
  })

  it('takes a whole number from 1 to 1000, as a number or a setting text', () => {
    expect(parseMaxConsecutiveFailures(1)).toBe(1)
    expect(parseMaxConsecutiveFailures('12')).toBe(12)
    expect(parseMaxConsecutiveFailures(1000)).toBe(1000)
  })

  it('refuses anything else, naming the field and the rule', () => {
    for (const bad of [0, -1, 1.5, 1001, '3x', 'five', Number.NaN, true, {}]) {
      expect(() => parseMaxConsecutiveFailures(bad)).toThrow(
        'heartbeatAnomaly.maxConsecutiveFailures: must be a whole number from 1 to 1000',
      )
    }
    expect(() => parseMaxConsecutiveFailures('0', 'BARDO_MAX_FAILED_TICKS')).toThrow(
      'BARDO_MAX_FAILED_TICKS: must be a whole number from 1 to 1000',
    )
    try {
      parseMaxConsecutiveFailures(0)
    } catch (e) {
      expect(e).toMatchObject({ code: 'HEARTBEAT_ANOMALY_CONFIG', details: { field: 'heartbeatAnomaly.maxConsecutiveFailures' } })
    }
  })
})

describe('countsAsFailure', () => {
  it("counts every error but a heartbeat's refusal of a Golem whose kind of key it holds none of", () => {
    expect(countsAsFailure(new Error('boom'))).toBe(true)
    expect(countsAsFailure(new SignerResolutionError('signer: no session key in memory for 0x1'))).toBe(true)
    expect(countsAsFailure(new SignerNotHeldError('signer: this heartbeat holds no kms keys'))).toBe(false)
    expect(countsAsFailure('text')).toBe(true)
  })

  it('never counts a platform error (the endpoint down, slow or throttling), however deep in the cause chain', () => {
    const named = (name: string, cause?: unknown) => Object.assign(new Error(name, cause === undefined ? {} : { cause }), { name })
    expect(countsAsFailure(named('HttpRequestError'))).toBe(false)
    expect(countsAsFailure(named('CallExecutionError', named('TimeoutError')))).toBe(false)
    expect(countsAsFailure(named('TransactionExecutionError', named('RpcRequestError')))).toBe(false)
    expect(countsAsFailure(named('KmsSignerError', named('ThrottlingException')))).toBe(false)
    expect(countsAsFailure(named('ContractFunctionExecutionError', named('ContractFunctionRevertedError')))).toBe(true)
  })

  it('never counts the chain forgetting a transaction it answered before (a reorg, a lagging node)', () => {
    const named = (name: string) => Object.assign(new Error(name), { name })
    for (const name of ['TransactionNotFoundError', 'TransactionReceiptNotFoundError', 'BlockNotFoundError'])
      expect(countsAsFailure(named(name)), name).toBe(false)
  })
})

describe('isHalted', () => {
  it('is the halted outcome only', () => {
    expect(isHalted({ outcome: 'halted' })).toBe(true)
    for (const t of [null, undefined, { outcome: 'running' }, { outcome: 'confirmed' }]) expect(isHalted(t)).toBe(false)
  })
})

describe('failureReason', () => {
  it("keeps the error's name and first line", () => {
    expect(failureReason(new TypeError('signer unavailable\n    at resolve (x.ts:1)'))).toBe('TypeError: signer unavailable')
    expect(failureReason('plain')).toBe('Error: plain')
  })

  it('never repeats 32 bytes of hex or more (a key, a signature)', () => {
    const key = `0x${'ab'.repeat(32)}`
    const reason = failureReason(new Error(`cannot use key ${key} or ${'cd'.repeat(65)}`))
    expect(reason).toBe('Error: cannot use key [hex] or [hex]')
    // An address stays: it is public, and says which account.
    expect(failureReason(new Error(`no gas at 0x${'1'.repeat(40)}`))).toContain(`0x${'1'.repeat(40)}`)
  })

  it(`is at most ${MAX_REASON_LENGTH} characters`, () => {
    expect(failureReason(new Error('x'.repeat(500))).length).toBe(MAX_REASON_LENGTH)
  })
})

describe('lifting a halt', () => {
  const halted = { at: 1_000, period: 3n, outcome: 'halted', txHash: null, failures: 5 }
  it('clears the count and leaves an outcome the walk hands over at once', () => {
    expect(liftHalt({ status: 'alive', lastTick: halted })).toEqual({
      lastTick: { at: 1_000, period: 3n, outcome: RESUMED_OUTCOME, txHash: null },
      failures: 5,
    })
    // A death the halt caught midway runs again.
    expect(liftHalt({ status: 'dying', lastTick: halted })).toMatchObject({ failures: 5 })
  })

  it('refuses a Golem that is not halted, or dead, naming the rule', () => {
    expect(liftHalt({ status: 'alive', lastTick: { ...halted, outcome: 'confirmed' } })).toEqual({
      refused: 'must name a Golem the heartbeat anomaly halted',
    })
    expect(liftHalt({ status: 'alive', lastTick: null })).toEqual({ refused: 'must name a Golem the heartbeat anomaly halted' })
    expect(liftHalt({ status: 'dead', lastTick: halted })).toEqual({ refused: 'names a dead Golem: nothing ticks for it again' })
  })
})
