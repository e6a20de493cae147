// A Golem's draft: what onboarding prepared for the owner to grant, kept until the owner's wallet answers.
// Two shapes, by the owner's account:
// - `delegations`: the owner has a separate MetaMask smart account (a Hybrid DeleGator whose signer is
//   the wallet's account). The wallet signs each drafted delegation as EIP-712 typed data; the smart
//   account is their delegator, so MetaMask signs them (it refuses only delegations from its own accounts).
// - `permissions`: the owner's account is the wallet's own (an EIP-7702 account, as MetaMask makes one).
//   The wallet grants through ERC-7715 (`wallet_requestExecutionPermissions`) to the Golem's Session
//   Account, which re-delegates to the Golem's key with Bardo's caveats.
// Public data only: addresses, unsigned delegations, where a key lives, never the key.
import type { Address, Hex } from 'viem'
import type { Delegation } from '@metamask/smart-accounts-kit'
import { BardoError } from '../errors.ts'
import { delegationSchema, type SignerRef } from '../lifecycle/profile.ts'
import type { JsonInputObject } from '../store/records.ts'
import * as z from '../zodMini.ts'

export const ONBOARDING_SHAPES = ['delegations', 'permissions'] as const
export type OnboardingShape = (typeof ONBOARDING_SHAPES)[number]

/** A new Golem's id: it names the Golem in the store, the API, the CLI and the dashboard for good. */
export const NEW_GOLEM_ID = /^[a-z0-9][a-z0-9-]{0,62}$/
export const NEW_GOLEM_ID_RULE = 'must be 1-63 lowercase letters, digits or dashes, starting with a letter or digit'

/** How long the owner has to answer a draft, in seconds: a grant signed later is refused and a new draft is asked for. */
export const DRAFT_TTL_SECONDS = 3_600n

/**
 * A refused onboarding request. `code` says which: the draft request (DRAFT_REFUSED), no such draft
 * (DRAFT_NOT_FOUND), a draft past its time (DRAFT_EXPIRED), a Golem that exists already (GOLEM_EXISTS),
 * or the owner's grant (GRANT_REFUSED). `field` and `rule` say what is wrong. Nothing was written.
 */
export class OnboardingError extends BardoError {
  readonly field: string
  readonly rule: string
  constructor(code: 'DRAFT_REFUSED' | 'DRAFT_NOT_FOUND' | 'DRAFT_EXPIRED' | 'GOLEM_EXISTS' | 'GRANT_REFUSED', field: string, rule: string) {
    super(code, `${field}: ${rule}`, { details: { field, rule } })
    this.field = field
    this.rule = rule
  }
}

export function checkNewGolemId(id: unknown): string {
  if (typeof id !== 'string' || !NEW_GOLEM_ID.test(id)) throw new OnboardingError('DRAFT_REFUSED', 'golemId', NEW_GOLEM_ID_RULE)
  return id
}

/** A delegation the owner is asked to sign: its role in the Golem's custody and its words. */
export type DraftedDelegation = { role: 'runway' | 'gas' | 'actions'; label: string; hash: Hex; delegation: Delegation }

export type GolemDraft = {
  v: 1
  golemId: string
  shape: OnboardingShape
  /** The wallet's account that answers the draft. */
  owner: Address
  /** The granting account: the owner's smart account (`delegations`) or the wallet's own account (`permissions`). */
  account: Address
  golemKey: Address
  signer: SignerRef
  /** The `permissions` shape's Session Account: the delegate of the wallet's grant. */
  sessionAccount?: { address: Address; signer: SignerRef }
  token: Address
  /** The runway asked for, per period (the wallet may grant less or another period: the grant says what holds). */
  periodAmount: bigint
  periodSeconds: bigint
  gasPeriodAmount: bigint
  /** The life window: its first second and its last (inclusive). */
  startDate: bigint
  expiresAt: bigint
  /** The owner answers by this time (unix seconds), or asks for a new draft. */
  answerBy: bigint
  /** The plan in words, as the owner reads it before granting. */
  plan: { capabilities: string[]; lines: string[] }
  /** `delegations`: what the wallet signs, in order (runway, gas, then the plan's actions and approvals). */
  delegations: DraftedDelegation[]
  /** `delegations`: the smart account's factory call when it is not deployed yet (onboarding deploys it). */
  deploy?: { factory: Address; factoryData: Hex }
  /** `permissions`: the `wallet_requestExecutionPermissions` params, as sent to the wallet. */
  request?: unknown
}

const address = z.pipe(
  z.string(),
  z.transform((v: string) => v as Address),
)
const hex = z.pipe(
  z.string(),
  z.transform((v: string) => v as Hex),
)
const uint = z.pipe(
  z.string().check(z.regex(/^\d+$/, 'must be a non-negative integer in decimal')),
  z.transform((v: string) => BigInt(v)),
)
const signerRef = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('memory'), ref: z.string() }),
  z.object({ kind: z.literal('keystore'), path: z.string() }),
  z.object({ kind: z.literal('kms'), keyId: z.string() }),
])

const draftSchema = z.object({
  v: z.literal(1),
  golemId: z.string(),
  shape: z.enum(ONBOARDING_SHAPES),
  owner: address,
  account: address,
  golemKey: address,
  signer: signerRef,
  sessionAccount: z.optional(z.object({ address, signer: signerRef })),
  token: address,
  periodAmount: uint,
  periodSeconds: uint,
  gasPeriodAmount: uint,
  startDate: uint,
  expiresAt: uint,
  answerBy: uint,
  plan: z.object({ capabilities: z.array(z.string()), lines: z.array(z.string()) }),
  delegations: z.array(
    z.object({ role: z.enum(['runway', 'gas', 'actions']), label: z.string(), hash: hex, delegation: delegationSchema }),
  ),
  deploy: z.optional(z.object({ factory: address, factoryData: hex })),
  request: z.optional(z.unknown()),
})

/** The store's log of a Golem's draft: the draft first, then its registration. */
export const draftLog = (golemId: string): string => `golemDraft:${golemId}`

/** The draft as the store keeps it (JSON: bigints as decimal strings). */
export function serializeGolemDraft(draft: GolemDraft): JsonInputObject {
  return JSON.parse(JSON.stringify(draft, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))) as JsonInputObject
}

export function parseGolemDraft(raw: unknown): GolemDraft {
  const parsed = z.safeParse(draftSchema, raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new BardoError('INVALID_GOLEM_DRAFT', `draft.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`)
  }
  return parsed.data as GolemDraft
}
