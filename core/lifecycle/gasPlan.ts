// When a tick tops its key up with gas from the owner's grant. Pure: the chain read comes in, the step
// goes out; functions/tick sends it through the `gas` slot of its period, so it happens at most once a
// period however often the tick is delivered.
import { isAddressEqual, type Address } from 'viem'
import type { ObservedGolem } from './observation.ts'
import { Phase } from './phase.ts'
import type { GolemProfile } from './profile.ts'

/**
 * The key is topped up when its balance falls below this share of one period's gas allowance (half):
 * low enough that a Golem paying little gas never redeems, high enough that the top-up lands while the
 * key can still pay for the redemption itself.
 */
export const GAS_THRESHOLD_BPS = 5_000n

/**
 * What the operator fronts a key that starts empty (at onboarding, and the new key of a rotation, whose
 * old key's funds went home): enough to pay for its first top-up from the owner's gas grant.
 */
export const GAS_BOOTSTRAP = 1_000_000_000_000_000n

export type GasStep =
  | { kind: 'redeem'; slot: { period: bigint; step: typeof GAS_STEP }; amount: bigint; recipient: Address }
  | { kind: 'none'; reason: string }

/** The slot step of a gas period's top-up (its later attempts: `attemptStep`). */
export const GAS_STEP = 'gas'

export function gasThreshold(periodAmount: bigint): bigint {
  return (periodAmount * GAS_THRESHOLD_BPS) / 10_000n
}

/** The gas grant's absolute period at `now`: the key of its slot (a renewed grant never reopens one). */
export function gasPeriodAt(gas: NonNullable<GolemProfile['gas']>, now: bigint): bigint {
  const { periodStart, periodDuration } = gas
  if (periodDuration === 0n || now < periodStart) return periodStart / (periodDuration === 0n ? 1n : periodDuration)
  return (periodStart + ((now - periodStart) / periodDuration) * periodDuration) / periodDuration
}

/**
 * Redeem the whole of what the period still allows when the key's balance is below the threshold.
 * Never while the Golem dies (the death protocol returns the ETH instead), never in Terminal (the phase
 * gate admits only settlement), and never on a grant made to another key (a rotated key's old grant).
 */
export function planGas(profile: GolemProfile, read: ObservedGolem, dying: boolean): GasStep {
  const gas = profile.gas
  if (!gas) return { kind: 'none', reason: 'no gas grant' }
  if (dying || read.phase >= Phase.Terminal) return { kind: 'none', reason: 'Terminal: no top-up' }
  if (!isAddressEqual(gas.chain[0]!.delegate, profile.golemKey)) return { kind: 'none', reason: 'the gas grant names another key' }
  if (read.ethBalance === undefined || read.gasAvailableInPeriod === undefined || read.gasAvailableInPeriod === null)
    return { kind: 'none', reason: 'no read of the key balance' }
  const threshold = gasThreshold(gas.periodAmount)
  if (read.ethBalance >= threshold) return { kind: 'none', reason: `balance ${read.ethBalance} is at or above the threshold ${threshold}` }
  const amount = read.gasAvailableInPeriod < gas.periodAmount ? read.gasAvailableInPeriod : gas.periodAmount
  if (amount === 0n) return { kind: 'none', reason: "this period's gas allowance is spent" }
  return { kind: 'redeem', slot: { period: gasPeriodAt(gas, read.timestamp), step: GAS_STEP }, amount, recipient: profile.golemKey }
}
