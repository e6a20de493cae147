import { recoverTransactionAddress } from 'viem'
import { describe, expect, it } from 'vitest'
import { createGolemSigner } from '../../adapters/signers/createGolemSigner.ts'
import { SessionKeyZeroedError } from './errors.ts'
import type { SessionKeyEvent } from './events.ts'
import { GolemSigner } from './golemSigner.ts'
import { SessionKey, rotateSessionKey } from './sessionKey.ts'
import { DELEGATION_MANAGER, PARENT_HASH, policy, subDelegation, tx } from '../../test/support/custody/fixtures.ts'

const T0 = 1_750_000_000
const DAY = 86_400
const make = (over: Partial<Parameters<typeof SessionKey.generate>[0]> = {}) => {
  const events: SessionKeyEvent[] = []
  const sk = SessionKey.generate({
    expiresAt: T0 + 30 * DAY,
    initialBudget: 1_000_000_000n,
    now: T0,
    onEvent: (e) => events.push(e),
    ...over,
  })
  const golem = new GolemSigner({ signer: sk.signer, policy: policy(), recorder: sk })
  return { sk, golem, events }
}

describe('SessionKey lifecycle', () => {
  it('generate emits Generated with the address and expiry, never key material', () => {
    const { sk, events } = make()
    expect(events).toEqual([{ type: 'Generated', at: T0, address: sk.address, expiresAt: T0 + 30 * DAY }])
    expect(sk.grantedAt).toBe(T0)
    expect(sk.rotationPolicy).toEqual({ maxOperations: 10_000, maxAgeSeconds: 7 * DAY, budgetFloorFraction: 0.1 })
  })

  it('use: each signature is counted and its spend charged to the budget', async () => {
    const { sk, golem, events } = make()
    const signed = await golem.signRedemptionTransaction(tx(), { spent: 250_000_000n })
    await golem.signDelegation(subDelegation(sk.address))
    expect(sk.operationsSigned).toBe(2)
    expect(sk.remainingBudget).toBe(750_000_000n)
    const ops = events.filter((e) => e.type === 'OperationSigned')
    expect(ops).toHaveLength(2)
    expect(ops[0]).toMatchObject({ purpose: 'redemption', spent: 250_000_000n, remainingBudget: 750_000_000n })
    expect(ops[1]).toMatchObject({ purpose: 'sub-delegation', spent: 0n })
    expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(sk.address)
  })

  it('refused requests are not counted', async () => {
    const { sk, golem } = make()
    await expect(golem.account.signMessage({ message: 'x' })).rejects.toThrow()
    await expect(golem.signOracleUpdate(tx())).rejects.toThrow()
    expect(sk.operationsSigned).toBe(0)
  })

  it('zero: every later signing fails, through every path', async () => {
    const { sk, golem } = make()
    await golem.signRedemptionTransaction(tx())
    sk.zero()
    expect(sk.zeroed).toBe(true)
    await expect(golem.signRedemptionTransaction(tx())).rejects.toThrow(SessionKeyZeroedError)
    await expect(golem.signDelegation(subDelegation(sk.address))).rejects.toThrow(SessionKeyZeroedError)
    await expect(golem.account.signTransaction(tx())).rejects.toThrow(SessionKeyZeroedError)
    await expect(sk.signer.signTransaction(tx())).rejects.toThrow(SessionKeyZeroedError)
    await expect(sk.signer.signTypedData(golem.delegationTypedData(subDelegation(sk.address)))).rejects.toThrow(/was zeroed/)
    // A GolemSigner built after zeroing fails the same way.
    const later = new GolemSigner({ signer: sk.signer, policy: policy() })
    await expect(later.signRedemptionTransaction(tx())).rejects.toThrow(SessionKeyZeroedError)
    sk.zero() // idempotent
    expect(sk.operationsSigned).toBe(1)
  })

  it('BudgetWarning fires once when the budget crosses 25%, with an estimate of operations left', async () => {
    const { golem, events } = make()
    for (let i = 0; i < 4; i++) await golem.signRedemptionTransaction(tx({ nonce: i }), { spent: 200_000_000n })
    const warnings = events.filter((e) => e.type === 'BudgetWarning')
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatchObject({ remainingPct: 20, estimatedOperationsLeft: 1 })
  })

  it('reconcileBudget takes the chain as truth and can re-arm the warning', async () => {
    const { sk, golem, events } = make()
    await golem.signRedemptionTransaction(tx(), { spent: 900_000_000n })
    sk.reconcileBudget(800_000_000n, T0)
    expect(sk.remainingBudget).toBe(800_000_000n)
    sk.reconcileBudget(50_000_000n, T0)
    expect(events.filter((e) => e.type === 'BudgetWarning')).toHaveLength(2)
    expect(() => sk.reconcileBudget(-1n)).toThrow(/remaining/)
  })

  it('shouldRotate follows the policy: operations, age, budget floor', async () => {
    const a = make({ rotationPolicy: { maxOperations: 3 } })
    for (let i = 0; i < 3; i++) await a.golem.signRedemptionTransaction(tx({ nonce: i }))
    expect(a.sk.shouldRotate(T0)).toMatchObject({ rotate: true, reasons: ['max-operations'] })
    const b = make()
    expect(b.sk.shouldRotate(T0 + 7 * DAY - 1).rotate).toBe(false)
    expect(b.sk.shouldRotate(T0 + 7 * DAY)).toMatchObject({ rotate: true, reasons: ['max-age'] })
    await b.golem.signRedemptionTransaction(tx(), { spent: 900_000_000n })
    expect(b.sk.shouldRotate(T0)).toMatchObject({ rotate: true, reasons: ['budget-floor'] })
  })

  it('rotateSessionKey generates the next key, emits RotationTriggered, zeroes the old one', async () => {
    const { sk, golem, events } = make()
    expect(rotateSessionKey(sk, { now: T0 + DAY, expiresAt: T0 + 31 * DAY, initialBudget: 500n })).toMatchObject({ rotated: false })
    const result = rotateSessionKey(sk, { now: T0 + 7 * DAY, expiresAt: T0 + 37 * DAY, initialBudget: 500n })
    if (!result.rotated) throw new Error('expected a rotation')
    const { next } = result
    expect(next.address).not.toBe(sk.address)
    expect(sk.zeroed).toBe(true)
    await expect(golem.signRedemptionTransaction(tx())).rejects.toThrow(SessionKeyZeroedError)
    const rotation = events.find((e) => e.type === 'RotationTriggered')
    expect(rotation).toMatchObject({ reasons: ['max-age'], oldAddress: sk.address, newAddress: next.address, at: T0 + 7 * DAY })
    // Listeners follow the switch: the new key's Generated lands on the same stream, just before it.
    expect(events.slice(-2).map((e) => e.type)).toEqual(['Generated', 'RotationTriggered'])
    expect(events.at(-2)).toEqual({ type: 'Generated', at: T0 + 7 * DAY, address: next.address, expiresAt: T0 + 37 * DAY })
    expect(next.initialBudget).toBe(500n)
    const forced = rotateSessionKey(next, { now: T0 + 7 * DAY, expiresAt: T0 + 37 * DAY, initialBudget: 500n, force: true })
    expect(forced).toMatchObject({ rotated: true })
    expect(events.filter((e) => e.type === 'RotationTriggered').at(-1)).toMatchObject({ reason: 'forced', reasons: [] })
  })

  it('DelegationGranted and Revoked carry hashes, caveat names and causes', () => {
    const { sk, events } = make()
    sk.delegationGranted({ delegationHash: PARENT_HASH, caveats: ['GolemPhase', 'DailySpendLimit'], now: T0 })
    sk.revoked({ kind: 'RevokedByOwner', revokedAt: BigInt(T0 + 5), txHash: PARENT_HASH }, T0 + 5)
    sk.revoked({ kind: 'Expired', expiredAt: BigInt(T0 + 30 * DAY) })
    sk.revoked({ kind: 'Exhausted', totalCalls: 500n })
    expect(events.map((e) => e.type)).toEqual(['Generated', 'DelegationGranted', 'Revoked', 'Revoked', 'Revoked'])
    expect(events[1]).toEqual({
      type: 'DelegationGranted',
      at: T0,
      address: sk.address,
      delegationHash: PARENT_HASH,
      caveats: ['GolemPhase', 'DailySpendLimit'],
    })
    expect(events[2]).toMatchObject({ cause: { kind: 'RevokedByOwner', txHash: PARENT_HASH } })
  })

  it('a throwing listener cannot block signing', async () => {
    const { sk, golem } = make()
    sk.subscribe(() => {
      throw new Error('listener bug')
    })
    await expect(golem.signRedemptionTransaction(tx())).resolves.toMatch(/^0x/)
  })

  it('isExpired compares against expiresAt', () => {
    const { sk } = make()
    expect(sk.isExpired(T0 + 30 * DAY)).toBe(false)
    expect(sk.isExpired(T0 + 30 * DAY + 1)).toBe(true)
  })

  it('validates its parameters, naming the field', () => {
    expect(() => SessionKey.generate({ expiresAt: 0, initialBudget: 1n })).toThrow(/expiresAt/)
    expect(() => SessionKey.generate({ expiresAt: T0, initialBudget: -1n })).toThrow(/initialBudget/)
    expect(() => SessionKey.generate({ expiresAt: T0, initialBudget: 1n, rotationPolicy: { maxOperations: -1 } })).toThrow(/maxOperations/)
  })

  it('Delegation custody mode builds a GolemSigner over the session key', async () => {
    const { sk } = make()
    const { signer, sessionKey } = await createGolemSigner(
      { mode: 'Delegation', smartAccount: DELEGATION_MANAGER, caveatEnforcers: [] },
      { policy: policy(), sessionKey: sk },
    )
    expect(sessionKey).toBe(sk)
    expect(signer.address).toBe(sk.address)
    await signer.signRedemptionTransaction(tx())
    expect(sk.operationsSigned).toBe(1)
    await expect(
      createGolemSigner({ mode: 'Delegation', smartAccount: DELEGATION_MANAGER, caveatEnforcers: [] }, { policy: policy() }),
    ).rejects.toThrow(/sessionKey/)
  })
})
