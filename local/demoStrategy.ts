// The local demo's DCA strategy, sized to its life: one slice per tick of its own, each small enough
// that every beat of the life fits the swap's daily spend limit, so the demo's swaps keep being accepted
// from birth to death. The strategy document and what it compiles to are untouched: only the slice the
// demo asks for each beat is scaled. After a rotation its actions are granted to the new key.
import type { Address } from 'viem'
import { dailyLimitPerSpender, type PermissionPlan } from '../core/permissions/index.ts'
import { parseGolemProfile } from '../core/lifecycle/profile.ts'
import type { Store } from '../core/store/index.ts'
import { saveActionGrant } from '../app/actions/actionGrantStore.ts'
import type { AttachedDevnet, OwnerAccount } from './devnet.ts'
import { signPlanActions } from './provision.ts'

/** The slice a beat asks for at most (1 USDC): a life long enough for bigger slices still swaps this. */
export const DEMO_MAX_SLICE_USDC = 1_000_000n

/** The spend limit's window: DailySpendLimit counts a day. */
const LIMIT_WINDOW_SECONDS = 86_400

/**
 * The most strategy beats the demo runs within one window of its spend limit: one per tick of its own
 * (at most one every `tickSeconds` of chain time), the first at birth.
 */
export function demoBeatsPerWindow(o: { lifeSeconds: number; tickSeconds: number }): number {
  return Math.floor(Math.min(o.lifeSeconds, LIMIT_WINDOW_SECONDS) / o.tickSeconds) + 1
}

/**
 * The demo's slice in USDC base units: the swap's daily limit spread over every beat in a window, in
 * whole cents when that is at least a cent, never above DEMO_MAX_SLICE_USDC. Every beat is counted as
 * spending, the ones custody refuses too, so the fit never depends on how many are refused.
 */
export function demoSliceUsdc(o: {
  plan: Pick<PermissionPlan, 'approvals' | 'dailyUsdcCap'>
  lifeSeconds: number
  tickSeconds: number
}): bigint {
  const limit = dailyLimitPerSpender(o.plan)
  const even = limit / BigInt(demoBeatsPerWindow(o))
  const slice = even >= 10_000n ? (even / 10_000n) * 10_000n : even
  return slice > DEMO_MAX_SLICE_USDC ? DEMO_MAX_SLICE_USDC : slice
}

/**
 * The demo owner grants the strategy's actions to the demo's new key after a rotation (the same plan, to
 * the runway's end): action grants name the key they were granted to, and the tick's rotation renews the
 * runway and gas grants only. Answers with a console line; a failure is that line, the rotation stands.
 */
export async function regrantDemoActions(
  o: { devnet: AttachedDevnet; store: Store; owner: OwnerAccount; plan: PermissionPlan },
  newKey: Address,
): Promise<string> {
  try {
    const record = await o.store.getGolem('demo')
    if (!record?.profile) return 'actions not re-granted: the demo has no custody profile'
    const now = (await o.devnet.publicClient.getBlock()).timestamp
    const entries = await signPlanActions(o.devnet, {
      deployment: o.devnet.deployment,
      owner: o.owner,
      plan: { ...o.plan, sessionKey: newKey },
      startDate: now,
      expiresAt: parseGolemProfile(record.profile).runway.expiresAt,
    })
    await saveActionGrant(o.store, { golemId: 'demo', entries, now: Number(now) * 1000 })
    return `the owner granted the strategy's ${entries.length} action delegation(s) to the new key`
  } catch (e) {
    return `actions not re-granted to the new key: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`
  }
}
