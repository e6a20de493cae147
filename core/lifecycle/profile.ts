// The Golem's custody profile: what a tick needs besides the chain. Public data only (signed
// delegations, addresses, times, a reference to where the key lives); the store refuses key material.
import * as z from '../zodMini.ts'
import { isAddress, isHex, type Address, type Hex } from 'viem'
import type { Delegation } from '@metamask/smart-accounts-kit'
import { BardoError } from '../errors.ts'
import { constitutionSchema } from '../policy/constitution.ts'

const address = z.pipe(
  z.string().check(z.refine((v) => isAddress(v, { strict: false }), 'must be an address')),
  z.transform((v: string) => v as Address),
)
const hex = z.pipe(
  z.string().check(z.refine((v) => isHex(v), 'must be 0x-prefixed hex')),
  z.transform((v: string) => v as Hex),
)
const uint = z.pipe(
  z.string().check(z.regex(/^\d+$/, 'must be a non-negative integer in decimal')),
  z.transform((v: string) => BigInt(v)),
)

/** A signed delegation as JSON keeps it (the kit's Delegation with hex fields). */
export const delegationSchema = z.object({
  delegate: address,
  delegator: address,
  authority: hex,
  caveats: z.array(z.object({ enforcer: address, terms: hex, args: hex })),
  salt: hex,
  signature: hex,
})

/** A native-token gas grant to one key: NativeTokenPeriodTransfer, plain transfers to that key only. */
const gasGrant = z.object({
  chain: z.array(delegationSchema).check(z.minLength(1)),
  periodAmount: uint,
  periodDuration: uint,
  periodStart: uint,
  periodDelegationHash: hex,
  periodTerms: hex,
  chainHashes: z.array(hex).check(z.minLength(1)),
})

/** An owner's renewal of the runway: the same token and period grid, a later window. */
const renewalSchema = z.object({
  chain: z.array(delegationSchema).check(z.minLength(1)),
  periodAmount: uint,
  periodDelegationHash: hex,
  periodTerms: hex,
  chainHashes: z.array(hex).check(z.minLength(1)),
  periodStart: uint,
  expiresAt: uint,
})

/** Where the Golem's key lives. The key itself never enters the profile. */
const signerRef = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('memory'), ref: z.string().check(z.minLength(1)) }),
  z.object({ kind: z.literal('keystore'), path: z.string().check(z.minLength(1)) }),
  z.object({ kind: z.literal('kms'), keyId: z.string().check(z.minLength(1)) }),
  /** A Privy server wallet (embedded custody): only its id; the app's credentials are the heartbeat's settings. */
  z.object({ kind: z.literal('privy'), walletId: z.string().check(z.minLength(1)) }),
])

const profileSchema = z.object({
  v: z.literal(1),
  chainId: z.number().check(z.int(), z.positive()),
  golemKey: address,
  signer: signerRef,
  /** The runway chain, leaf first (a direct grant has one delegation; the 7715 shape has two). */
  runway: z.object({
    chain: z.array(delegationSchema).check(z.minLength(1)),
    token: address,
    periodAmount: uint,
    periodDuration: uint,
    /** The period enforcer's startDate: period n starts at periodStart + (n - 1) * periodDuration. */
    periodStart: uint,
    /** The delegation holding the ERC20PeriodTransfer caveat, and that caveat's terms. */
    periodDelegationHash: hex,
    periodTerms: hex,
    /** Hash of every delegation in the chain, leaf first (any disabled one stops redemption). */
    chainHashes: z.array(hex).check(z.minLength(1)),
    /** The life window's end (golemPhase's window; a MortalityTimeWindow on older grants): the delegation's hard deadline. */
    expiresAt: uint,
    /**
     * The most of the runway token the Golem's key may hold at once: the tick redeems only what the coming
     * period needs, up to this. Absent: one period's allowance.
     */
    keyCeiling: z.optional(uint),
    /**
     * The NonceEnforcer caveat a wallet put on the grant (MetaMask puts one on every ERC-7715 grant): the
     * owner revokes every grant at once by incrementing the delegator's nonce, so the grant is revoked
     * once the enforcer's current nonce is no longer this value.
     */
    nonce: z.optional(z.object({ enforcer: address, delegator: address, value: uint })),
  }),
  /**
   * The owner's renewals not yet in force, oldest first: each starts on the runway's period grid at or
   * after the end of the grant before it, so two of the owner's runway grants never pay in one period. The
   * tick puts the first in force once the runway's end has passed (core/lifecycle/grantInForce.ts).
   */
  renewals: z._default(z.array(renewalSchema), []),
  /**
   * The owner's narrower grant (a lower period amount or an earlier end), signed and waiting for the
   * owner's transaction that disables the grants it supersedes (the runway, its queued renewals, an
   * earlier pending adjustment). Once the runway reads disabled, the tick and permission health put it in
   * force in their place instead of reading a revocation (core/lifecycle/adjustment.ts). It starts on
   * the runway's period grid at the first boundary after it was signed, so no period is paid twice.
   */
  adjustment: z.optional(z.extend(renewalSchema, { supersedes: z.array(hex).check(z.minLength(1)) })),
  /**
   * The owner's grant to the new key a rotation waits for (a direct grant only the owner can sign): the
   * next tick's rotation installs it in place of the old key's. Optional: profiles written before it parse unchanged.
   */
  rotationGrant: z.optional(
    z.extend(renewalSchema, {
      to: address,
      /** The owner's gas grant to the new key, when the old key had a direct one (it names the old key only). */
      gas: z.optional(gasGrant),
    }),
  ),
  /**
   * A key rotation that only the owner can complete (a direct grant): the new key it waits for, and when
   * the tick first asked the owner (unix seconds). The Golem keeps its old key meanwhile, and its health
   * says so. Cleared when the rotation completes.
   */
  rotationAwaits: z.optional(z.object({ to: address, requestedAt: uint })),
  /**
   * The owner's native-token gas grant (NativeTokenPeriodTransfer, plain transfers to the Golem's key
   * only): the tick tops the key up from it once a period when its balance runs low. Optional: profiles
   * written before it parse unchanged, and a Golem without it is funded by hand.
   */
  gas: z.optional(gasGrant),
  /**
   * Whether custody saved an action grant for the Golem when it was provisioned (the only time one is
   * saved; a path that saves one later sets it true). false: the tick never reads the action grant log
   * for a close-all. Absent (profiles written before it): read as before.
   */
  actionGrant: z.optional(z.boolean()),
  /**
   * When the current key took over (unix seconds): its age under the rotation policy, for keys that live
   * outside the process (KMS). Absent: since the Golem's birth (life.bornAt).
   */
  keyGrantedAt: z.optional(uint),
  /**
   * The ERC-7715 shape's Session Account, when the platform holds its key (a KMS key tagged like a SessionKey): the delegator
   * of the runway chain's leaf, which re-delegates to a new key at rotation without asking the owner.
   */
  sessionAccount: z.optional(z.object({ address, signer: signerRef })),
  life: z.object({ bornAt: uint, runwayEndsAt: uint, runwayTotalSeconds: uint, lastInsightAt: uint }),
  /**
   * Sub-delegations this Golem signed (Replicants); the death protocol disables them. `golemId` names the
   * Replicant's own record when it was spawned through the action path (absent on one signed by hand).
   */
  replicants: z._default(
    z.array(z.object({ hash: hex, delegation: delegationSchema, golemId: z.optional(z.string().check(z.minLength(1))) })),
    [],
  ),
  /**
   * A Replicant's link to the Golem that spawned it: the parent's id, the sub-delegation it redeems
   * through (its runway chain's leaf), and the action request that spawned it (a retried request spawns once).
   */
  parent: z.optional(
    z.object({ golemId: z.string().check(z.minLength(1)), delegationHash: hex, requestId: z.string().check(z.minLength(1)) }),
  ),
  known: z._default(
    z.object({
      revokedReported: z.boolean(),
      expiringWarned: z.boolean(),
      budgetWarnedPeriod: z.nullable(uint),
      /** The grant end a RenewalRequested event was recorded for (once per grant end). */
      renewalRequestedFor: z.optional(uint),
      /**
       * The latest period whose runway redemption is recorded (a RunwayRedeemed event): its slot is
       * spent, and no tick plans another redemption in it.
       */
      runwayRedeemedPeriod: z.optional(uint),
    }),
    { revokedReported: false, expiringWarned: false, budgetWarnedPeriod: null },
  ),
  /**
   * A paid feed (x402 /feed) asks the operator for an audited phase reset: a Golem a stranger fed is
   * not left in the phase its hunger put it in. The tick performs it and clears this. Optional: profiles written before it parse unchanged.
   */
  reprieve: z.optional(z.object({ requestedAt: uint, amount: uint, payer: address })),
  /**
   * Bumped by every reprieve (an audited phase reset): phase-post slots are keyed by it, so a Golem
   * that was reset from Declining to Stable can post Conservation again.
   */
  phaseEpoch: z.optional(z.number().check(z.int(), z.nonnegative())),
  /**
   * A session-key rotation in flight (app/tick/rotate.ts): the new key, where it lives and the
   * owner's renewed grant to it, written before the operator's rotateGolemKey is sent, so a tick that
   * crashes after the oracle moved the Golem's identity finishes the swap to the same key instead of
   * stranding the Golem on a dead key. Cleared when the profile switches to the new key.
   */
  pendingRotation: z.optional(
    z.object({
      to: address,
      signer: signerRef,
      reason: z.string(),
      runway: z.object({
        chain: z.array(delegationSchema).check(z.minLength(1)),
        periodDelegationHash: hex,
        periodTerms: hex,
        chainHashes: z.array(hex).check(z.minLength(1)),
        periodStart: uint,
      }),
      /** The owner's gas grant to the new key, when the rotation got one. */
      gas: z.optional(gasGrant),
      /** Chain time the rotation began (unix seconds): the new key's keyGrantedAt. */
      at: z.optional(uint),
    }),
  ),
  /**
   * x402 payments already applied to this profile (core/lifecycle/credit.ts), so a retried credit is
   * applied once. Bounded: the oldest ids are dropped and `horizonMs` remembers the newest dropped one.
   */
  /**
   * The owner's constitution (core/policy): every action custody executes for the Golem is checked against
   * it first. Optional: a Golem without one is bound by its delegations' caveats alone.
   */
  constitution: z.optional(constitutionSchema),
  credits: z.optional(
    z.object({
      applied: z.array(z.object({ id: z.string().check(z.regex(/^0x[0-9a-f]{32}$/, 'must be a payment credit id')), creditedAtMs: uint })),
      horizonMs: uint,
    }),
  ),
})

export type GolemProfile = z.output<typeof profileSchema>
export type SignerRef = GolemProfile['signer']

export class ProfileError extends BardoError {
  constructor(message: string) {
    super('INVALID_GOLEM_PROFILE', message)
  }
}

export function parseGolemProfile(text: string | null): GolemProfile {
  if (text === null) throw new ProfileError('profile: the Golem has no custody profile')
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch {
    throw new ProfileError('profile: must be JSON')
  }
  const parsed = z.safeParse(profileSchema, raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new ProfileError(`profile.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`)
  }
  return parsed.data
}

export function serializeGolemProfile(profile: GolemProfile): string {
  return JSON.stringify(profile, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))
}

export function toDelegations(chain: GolemProfile['runway']['chain']): Delegation[] {
  return chain.map((d) => ({ ...d }))
}
