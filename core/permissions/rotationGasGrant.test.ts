// The gas grant a rotation's answer carries: exactly onboarding's gas grant to the new key, for the old
// grant's allowance, over the runway answer's window; anything else is refused naming the field.
import type { Delegation } from '@metamask/smart-accounts-kit'
import { hashDelegation } from '@metamask/smart-accounts-kit/utils'
import { getAddress, pad, toHex, type Address } from 'viem'
import { describe, expect, it } from 'vitest'
import { DEPLOYMENT as CAVEATS_DEPLOYMENT, ENV } from '../../test/support/caveats/fixtures.ts'
import type { BardoDeployment } from '../deployment.ts'
import { DelegationTree } from '../delegations/tree.ts'
import { RotationGrantError } from '../lifecycle/rotationGrant.ts'
import type { GolemProfile } from '../lifecycle/profile.ts'
import { draftGasGrant, gasOfSigned } from './golemGrants.ts'
import { checkRotationGasGrant, type RotationGasInput } from './rotationGasGrant.ts'

const DEPLOYMENT: BardoDeployment = { ...CAVEATS_DEPLOYMENT, chainId: 84532, startBlock: 0n, environment: ENV }
const at = (n: number): Address => getAddress(pad(toHex(n), { size: 20 }))
const OWNER = at(0xa11ce)
const OLD_KEY = at(0x01d)
const NEW_KEY = at(0x9e3)
const DAILY = 10n ** 16n
const END = 2_000_000n
const START = 1_086_400n

function gasDraft(p: {
  owner?: Address
  key?: Address
  periodAmount?: bigint
  startDate?: bigint
  expiresAt?: bigint
  now?: bigint
}): Delegation {
  const now = p.now ?? 1_000_000n
  const tree = new DelegationTree({ environment: ENV, deployment: DEPLOYMENT, now: () => now })
  return draftGasGrant(tree, {
    deployment: DEPLOYMENT,
    owner: p.owner ?? OWNER,
    golemKey: p.key ?? NEW_KEY,
    periodAmount: p.periodAmount ?? DAILY,
    startDate: p.startDate ?? START,
    expiresAt: p.expiresAt ?? END,
    now,
  }).delegation
}

const oldGas = (() => {
  const delegation = gasDraft({ key: OLD_KEY, startDate: 900_000n, now: 900_000n })
  return gasOfSigned(DEPLOYMENT, { hash: hashDelegation(delegation), delegation }, { periodAmount: DAILY, startDate: 900_000n })
})()
const profile = { gas: oldGas } as unknown as GolemProfile
const refuse = (field: string, rule: string) => new RotationGrantError(field, rule)

function check(candidate: Delegation | undefined, over: Partial<RotationGasInput> = {}) {
  return checkRotationGasGrant(
    {
      profile,
      candidate,
      candidateHash: candidate ? hashDelegation(candidate) : undefined,
      deployment: DEPLOYMENT,
      environment: ENV,
      to: NEW_KEY,
      periodStart: START,
      expiresAt: END,
      ...over,
    },
    refuse,
  )
}

function refusedField(f: () => unknown): string {
  try {
    f()
  } catch (error) {
    expect(error).toBeInstanceOf(RotationGrantError)
    return (error as RotationGrantError).field
  }
  throw new Error('not refused')
}

describe('the gas grant a rotation answer carries', () => {
  it("takes onboarding's gas grant to the new key, for the old allowance, from the runway answer's first period", () => {
    const candidate = gasDraft({})
    const gas = check(candidate)!
    expect(gas.chain[0]!.delegate).toBe(NEW_KEY)
    expect(gas).toMatchObject({ periodAmount: DAILY, periodStart: START, periodDelegationHash: hashDelegation(candidate) })
  })

  it('wants none where the old key had no direct gas grant, and refuses one sent anyway', () => {
    const noGas = { profile: {} as GolemProfile }
    expect(check(undefined, noGas)).toBeUndefined()
    expect(refusedField(() => check(gasDraft({}), noGas))).toBe('gas')
  })

  const cases: [string, () => Delegation | undefined][] = [
    ['gas', () => undefined],
    ['gas.delegator', () => gasDraft({ owner: at(0xbad) })],
    ['gas.delegate', () => gasDraft({ key: OLD_KEY })],
    ['gas.nativeTokenPeriodTransfer.periodAmount', () => gasDraft({ periodAmount: 2n * DAILY })],
    ['gas.nativeTokenPeriodTransfer.startDate', () => gasDraft({ startDate: START - 86_400n })],
    ['gas.golemPhase.endTime', () => gasDraft({ expiresAt: END + 1n })],
    [
      'gas.caveats',
      (): Delegation => {
        const d = gasDraft({})
        return { ...d, caveats: [...d.caveats, d.caveats[0]!] }
      },
    ],
    ['gas.authority', () => ({ ...gasDraft({}), authority: pad('0x01', { size: 32 }) })],
  ]
  it.each(cases)('refuses naming %s', (field, candidate) => {
    expect(refusedField(() => check(candidate()))).toBe(field)
  })
})
