import { describe, expect, it } from 'vitest'
import { decodeFunctionData, type Address, type Hex } from 'viem'
import type { Delegation } from '@metamask/smart-accounts-kit'
import { InMemoryStore } from '../../adapters/store/memoryStore.ts'
import { DelegationManagerAbi } from '../delegations/frameworkAbi.ts'
import { grantHash, grantsOfProfile, loadOwnerGrants, parseOwnerGrant, recordOwnerGrants, type OwnerGrant } from './grantLedger.ts'
import { ownerSignedGrants, planRevocation } from './revocationPlan.ts'
import { testProfile } from '../../test/support/lifecycle/profile.ts'

const owner: Address = '0x1111111111111111111111111111111111111111'
const stranger: Address = '0x2222222222222222222222222222222222222222'
const golemKey: Address = '0x3333333333333333333333333333333333333333'
const dm: Address = '0x4444444444444444444444444444444444444444'

const delegation = (salt: Hex, delegator: Address = owner, signature: Hex = '0xab'): Delegation => ({
  delegate: golemKey,
  delegator,
  authority: `0x${'f'.repeat(64)}`,
  caveats: [{ enforcer: dm, terms: '0x01', args: '0x' }],
  salt,
  signature,
})

const grant = (kind: OwnerGrant['kind'], d: Delegation): OwnerGrant => ({ kind, label: kind, delegation: d })

describe("the owner's one act of revocation", () => {
  const runway = grant('runway', delegation('0x01'))
  const renewal = grant('runway', delegation('0x02'))
  const gas = grant('gas', delegation('0x03'))
  const action = grant('action', delegation('0x04'))

  it("takes every distinct delegation the owner signed, once, and only the owner's", () => {
    const signed = ownerSignedGrants(owner, [
      runway,
      renewal,
      gas,
      action,
      // The same grant known twice (the ledger and the profile), a re-delegation the owner did not sign, an unsigned draft.
      { ...runway, label: 'from the profile' },
      grant('runway', delegation('0x05', stranger)),
      grant('action', delegation('0x06', owner, '0x')),
    ])
    expect(signed.map((g) => g.hash)).toEqual([runway, renewal, gas, action].map((g) => grantHash(g.delegation)))
  })

  it('disables in one batch what the chain still holds enabled, and lists the rest', () => {
    const disabled = new Set([grantHash(renewal.delegation)])
    const plan = planRevocation({ owner, delegationManager: dm, grants: [runway, renewal, gas, action], disabled })
    expect(plan.alreadyDisabled).toEqual([grantHash(renewal.delegation)])
    expect(plan.calls.map((c) => c.kind)).toEqual(['runway', 'gas', 'action'])
    const byHash = new Map([runway, gas, action].map((g) => [grantHash(g.delegation), g.delegation]))
    for (const call of plan.calls) {
      expect(call).toMatchObject({ to: dm, value: 0n })
      const decoded = decodeFunctionData({ abi: DelegationManagerAbi, data: call.data })
      expect(decoded.functionName).toBe('disableDelegation')
      const [sent] = decoded.args as unknown as [{ delegator: Address; salt: bigint }]
      expect(sent.delegator).toBe(owner)
      expect(sent.salt).toBe(BigInt(byHash.get(call.hash)!.salt))
    }
    expect(
      planRevocation({ owner, delegationManager: dm, grants: [runway], disabled: new Set([grantHash(runway.delegation)]) }).calls,
    ).toEqual([])
  })

  it("reads the profile's grants: runway, queued renewals, gas and a rotation in flight", () => {
    const profile = testProfile()
    const kinds = grantsOfProfile(profile).map((g) => `${g.kind}:${g.label}`)
    expect(kinds).toEqual(['runway:runway'])
  })

  it('keeps every grant in an append-only ledger, read back whole and in order', async () => {
    const store = new InMemoryStore()
    await recordOwnerGrants(store, 'g1', [runway, gas], 1_000)
    await recordOwnerGrants(store, 'g1', [renewal, grant('action', delegation('0x07', owner, '0x'))], 2_000)
    const back = await loadOwnerGrants(store, 'g1')
    expect(back.map((g) => grantHash(g.delegation))).toEqual([runway, gas, renewal].map((g) => grantHash(g.delegation)))
    expect(await loadOwnerGrants(store, 'other')).toEqual([])
  })

  it('refuses a malformed ledger record, naming the field', () => {
    const good = { kind: 'runway', label: 'runway', delegation: { ...runway.delegation } }
    expect(parseOwnerGrant(good).kind).toBe('runway')
    expect(() => parseOwnerGrant({ ...good, kind: 'everything' })).toThrow(/^grant\.kind: /)
    expect(() => parseOwnerGrant({ ...good, delegation: { ...good.delegation, delegator: 'me' } })).toThrow(
      /^grant\.delegation\.delegator: must be an address/,
    )
    expect(() => parseOwnerGrant({ ...good, label: 'x'.repeat(201) })).toThrow(/^grant\.label: /)
  })
})
