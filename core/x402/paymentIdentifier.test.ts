import { describe, expect, it } from 'vitest'
import type { ParsedPaymentPayload } from './header.ts'
import { differingTerm, PAYMENT_ID_RULE, paymentIdentifierOf } from './paymentIdentifier.ts'

const withExtensions = (extensions?: Record<string, unknown>) => ({ extensions }) as unknown as ParsedPaymentPayload
const FIELD = 'extensions.payment-identifier.info'

describe('paymentIdentifierOf', () => {
  it('reads no identifier when the payment has none, or echoes the declaration without an id', () => {
    expect(paymentIdentifierOf(withExtensions())).toEqual({ ok: true, id: null })
    expect(paymentIdentifierOf(withExtensions({ bazaar: {} }))).toEqual({ ok: true, id: null })
    expect(paymentIdentifierOf(withExtensions({ 'payment-identifier': { info: { required: false } } }))).toEqual({ ok: true, id: null })
  })

  it('reads a well-formed identifier', () => {
    const id = 'pay_7d5d747be160e280504c099d984bcfe0'
    expect(paymentIdentifierOf(withExtensions({ 'payment-identifier': { info: { required: false, id } } }))).toEqual({ ok: true, id })
  })

  it('refuses a malformed one, naming the field and the rule', () => {
    for (const id of ['short', 'x'.repeat(129), 'has spaces in it, sixteen+', 42, null]) {
      expect(paymentIdentifierOf(withExtensions({ 'payment-identifier': { info: { id } } }))).toEqual({
        ok: false,
        message: `${FIELD}.id: ${PAYMENT_ID_RULE}`,
      })
    }
    for (const extension of [null, 'pay_0123456789abcdef', { info: 'x' }, { info: [] }, {}]) {
      expect(paymentIdentifierOf(withExtensions({ 'payment-identifier': extension }))).toEqual({
        ok: false,
        message: `${FIELD}: must be an object`,
      })
    }
  })

  it('never compiles the schema a client echoes back', () => {
    // A schema that would reject everything, or not compile at all: ignored, only info.id is read.
    const echoed = { info: { required: false, id: 'pay_0123456789abcdef' }, schema: { type: 'object', pattern: '(', not: {} } }
    expect(paymentIdentifierOf(withExtensions({ 'payment-identifier': echoed }))).toEqual({ ok: true, id: 'pay_0123456789abcdef' })
  })
})

describe('differingTerm', () => {
  const named = { golemId: 'g-1', kind: 'extend' as const, amount: 500_000n }
  it('is null for the same payment and names the first term that differs otherwise', () => {
    expect(differingTerm(named, { ...named })).toBeNull()
    expect(differingTerm(named, { ...named, golemId: 'g-2' })).toBe('golemId')
    expect(differingTerm(named, { ...named, kind: 'feed' })).toBe('kind')
    expect(differingTerm(named, { ...named, amount: 1_000_000n })).toBe('amount')
  })
})
