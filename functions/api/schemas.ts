// Request and response schemas of the HTTP API. Requests are validated with them at runtime; responses
// are documented with them in /openapi.json (and checked against them in tests).
import { getAddress, isAddress, maxUint256, type Address } from 'viem'
// z from @hono/zod-openapi: zod itself, with .openapi() (which names the Error component) added.
import { z } from '@hono/zod-openapi'
import { phaseNames } from '../../core/lifecycle/phase.ts'
import { NEW_GOLEM_ID, NEW_GOLEM_ID_RULE } from '../../core/onboarding/golemDraft.ts'

const vitalSeconds = z.number().int().nonnegative()

/** The vital signs the API answers with (functions/api/vitals.ts computes them). */
export const vitalSignsResponse = z
  .object({
    lifecycle: z.enum(['alive', 'dying', 'dead']),
    phase: z.enum(phaseNames).meta({ description: 'the oracle phase; Terminal once dead' }),
    vitality: z.number().min(0).max(1).meta({ description: "the last tick's vitality; 0 once dead" }),
    survivalScoreBps: z.number().int().min(0).max(10_000),
    livesSeconds: vitalSeconds.meta({
      description: 'seconds it still lives without a renewal: until its runway or its grant ends; 0 once dead',
    }),
    endsBy: z.enum(['runway', 'grant']).meta({ description: 'the clock that ends its life first' }),
    runwayEndsAt: vitalSeconds.meta({ description: 'the paid TTL, unix seconds' }),
    grantEndsAt: vitalSeconds.meta({ description: "the end of the owner's newest grant, unix seconds" }),
    grantEndsInSeconds: vitalSeconds,
    recovered: z.boolean().meta({ description: 'its vitality points to an earlier phase than it holds: phases hold until a reprieve' }),
  })
  .meta({ description: 'the vital signs every surface shows (the console, the dashboard, the Snap)' })

export const addressSchema = z
  .string()
  .refine((v) => isAddress(v, { strict: false }), { message: 'must be a 20-byte 0x-prefixed hex address', abort: true })
  .transform((v): Address => getAddress(v))
  .meta({ description: '20-byte hex address (any case; answered checksummed)', example: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' })

const decimal = z
  .string()
  .regex(/^\d+$/, 'must be a non-negative integer in decimal')
  .meta({ description: 'unsigned integer as a decimal string (bigint)' })
const hash = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be 32 bytes of 0x-prefixed hex')
const unixSeconds = z.number().int().nonnegative().meta({ description: 'unix seconds' })

/** A uint256 as a decimal string. */
export const uint256 = z
  .string()
  .regex(/^\d{1,78}$/, { message: 'must be a decimal integer string of at most 78 digits', abort: true })
  .refine((v) => BigInt(v) <= maxUint256, 'must be at most 2^256 - 1 (a uint256)')

export const golemIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, "must be 1-64 letters, digits, '-' or '_' (a Golem id or its address)")
export const golemParams = z.object({ id: golemIdSchema })

export const pageQuery = z.strictObject({
  limit: z.coerce
    .number('must be a number')
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(100, 'must be at most 100')
    .default(50),
  cursor: z.string().min(1).max(512, 'must be at most 512 characters').optional(),
})

export const errorSchema = z
  .object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()) })
  .openapi('Error', { description: 'Every error: a stable code, a message naming the field and the rule, structured details.' })

const phaseName = z.enum(phaseNames)

export const permissionHealthResponse = z.object({
  golemId: z.string(),
  health: z.enum(['healthy', 'low', 'critical', 'revoked', 'dead']),
  reason: z.string().meta({ description: 'why, in one sentence (the same verdict the heartbeat logs)' }),
  remaining_today: decimal,
  days_remaining: z.number().int().nonnegative(),
  last_redemption_at: unixSeconds.meta({ description: 'unix seconds; 0 = never redeemed' }),
  total_remaining: decimal,
  revocation: z.object({ kind: z.enum(['Active', 'RevokedByOwner', 'Expired', 'Exhausted']) }).catchall(z.string()),
  grant_ends_at: unixSeconds.meta({ description: "the owner's grant ends (its life window), unix seconds" }),
  runway_ends_at: unixSeconds.meta({ description: "the Golem's TTL (moved by paid extensions), unix seconds" }),
  renewal: z
    .object({
      reason: z.literal('grant-ends-before-runway'),
      grant_ends_at: unixSeconds,
      runway_ends_at: unixSeconds,
      seconds_left: z.number().int().nonnegative(),
      days_left: z.number().nonnegative(),
    })
    .nullable()
    .meta({
      description: 'present when the grant ends before the TTL: the Golem asks its owner to renew (POST /api/v1/golems/{id}/renewal)',
    }),
  rotation: z
    .object({
      status: z.enum(['awaiting-owner', 'answered']),
      old_key: addressSchema,
      new_key: addressSchema,
      requested_at: unixSeconds,
    })
    .nullable()
    .meta({
      description:
        "present while a key rotation waits for the owner's grant to the new key (POST /api/v1/golems/{id}/rotation-grant): the Golem keeps its old key until the next tick installs the answer",
    }),
})

export const phasesResponse = z.object({
  golemId: z.string(),
  current: z.object({
    registered: z.boolean(),
    phase: phaseName.meta({ description: 'the oracle phase; Terminal once dead' }),
    survivalScore: z.number().int().meta({ description: 'basis points, as the oracle last recorded it' }),
    blockNumber: decimal,
    vitals: vitalSignsResponse,
  }),
  transitions: z
    .array(
      z.object({
        from: phaseName,
        to: phaseName,
        survivalScore: z.number().int().nullable().meta({ description: 'basis points; null for a reset' }),
        kind: z.enum(['transition', 'reset']),
        reason: z.string().nullable().meta({ description: "the operator's reason for a reset" }),
        blockNumber: decimal,
        txHash: hash,
        timestamp: unixSeconds,
      }),
    )
    .meta({ description: 'newest first, across key rotations' }),
  nextCursor: z.string().nullable(),
})

export const redemptionsResponse = z.object({
  golemId: z.string(),
  redemptions: z.array(
    z.object({
      delegationHash: hash,
      delegator: z.string().meta({ description: "the root delegator (the owner's smart account)" }),
      redeemer: z.string(),
      transfers: z.array(z.object({ token: z.string().nullable().meta({ description: 'null for native value' }), amount: decimal })),
      usd6: decimal.nullable(),
      blockNumber: decimal,
      txHash: hash,
      timestamp: unixSeconds,
    }),
  ),
  nextCursor: z.string().nullable(),
})

export const spendResponse = z.object({
  golemId: z.string(),
  current: z
    .object({
      token: z.string(),
      periodStart: unixSeconds,
      periodSeconds: z.number().int(),
      spent: decimal,
      limit: decimal,
      remaining: decimal,
      blockNumber: decimal,
    })
    .meta({ description: "the runway's ERC20PeriodTransfer period now (chain), in the token's units" }),
  periods: z
    .array(
      z.object({
        source: z.string(),
        asset: z.string().meta({ description: "token address, or 'usd' for USD with 6 decimals" }),
        periodStart: unixSeconds,
        periodEnd: unixSeconds.nullable(),
        amount: decimal,
        eventCount: z.number().int(),
      }),
    )
    .meta({ description: 'per enforcer period, newest first (indexer)' }),
  nextCursor: z.string().nullable(),
})

export const eventsResponse = z.object({
  golemId: z.string(),
  events: z.array(
    z.object({
      eventId: z.string().meta({ description: "the event's id within its Golem (one per event: a retried write records it once)" }),
      type: z.string().meta({ description: 'DelegationGranted, PhaseChanged, RunwayRedeemed, DelegationRevoked, DeathCompleted, ...' }),
      at: z.number().int().nonnegative().meta({ description: 'unix milliseconds the event happened' }),
      data: z.record(z.string(), z.unknown()).meta({ description: "the event's fields (amounts and times as decimal strings)" }),
    }),
  ),
  nextCursor: z.string().nullable(),
})

export const paymentsResponse = z.object({
  golemId: z.string(),
  payments: z.array(
    z.object({
      kind: z.enum(['extend', 'feed']).meta({ description: 'extend buys runtime; feed buys runtime and asks for a reprieve' }),
      payer: z.string().meta({ description: 'the address that signed the EIP-3009 authorization' }),
      amount: decimal.meta({ description: "the payment asset's atomic units (USDC: 6 decimals)" }),
      seconds: decimal.meta({ description: 'runway seconds credited' }),
      nonce: hash,
      txHash: hash.nullable(),
      creditedAt: z.number().int().nonnegative().meta({ description: 'unix milliseconds the credit was journaled' }),
    }),
  ),
  nextCursor: z.string().nullable(),
})

export const extendRequest = z.strictObject({
  golemId: golemIdSchema,
  hours: z
    .number('must be a number')
    .int('must be an integer')
    .min(1, 'must be at least 1 (one hour minimum)')
    .max(24 * 90, 'must be at most 2160 (90 days)'),
})
export type ExtendRequest = z.output<typeof extendRequest>

export const feedRequest = z.strictObject({ golemId: golemIdSchema })

const hexBytes = (max: number) =>
  z
    .string()
    .regex(/^0x([0-9a-fA-F]{2})*$/, 'must be 0x-prefixed hex bytes')
    .max(2 + max * 2, `must be at most ${max} bytes`)

/** A signed delegation as the MetaMask kit serialises it (hex strings, no bigints). */
export const signedDelegationSchema = z.strictObject({
  delegate: addressSchema,
  delegator: addressSchema,
  authority: hash,
  caveats: z
    .array(z.strictObject({ enforcer: addressSchema, terms: hexBytes(4096), args: hexBytes(4096) }))
    .min(1, 'must hold at least one caveat')
    .max(16, 'must hold at most 16 caveats'),
  salt: hexBytes(32),
  signature: hexBytes(4096),
})

export const renewalRequest = z.strictObject({ delegation: signedDelegationSchema })

export const renewalResponse = z.object({
  golemId: z.string(),
  delegationHash: hash,
  replaced: hash.meta({ description: 'the newest grant before it: the one it follows, which pays to its own end' }),
  grant_ends_at: unixSeconds,
  periodStart: unixSeconds.meta({ description: "the renewed grant's first period (on the old grant's grid)" }),
})
export const rotationGrantRequest = z.strictObject({
  delegation: signedDelegationSchema,
  gas: signedDelegationSchema.optional().meta({
    description:
      "the owner's signed gas grant to the new key (the draft's `gas`): required when the old key had a direct gas grant, absent otherwise",
  }),
})

export const rotationGrantResponse = z.object({
  golemId: z.string(),
  delegationHash: hash,
  gasDelegationHash: hash.nullable().meta({ description: 'the gas grant to the new key, when one was answered' }),
  to: z.string().meta({ description: 'the new key the grant names' }),
  periodStart: unixSeconds.meta({ description: "the new key's first period (the runway grid's next boundary when it was signed)" }),
  grant_ends_at: unixSeconds,
})
export const adjustmentRequest = z.strictObject({ delegation: signedDelegationSchema })

export const adjustmentResponse = z.object({
  golemId: z.string(),
  delegationHash: hash,
  supersedes: z.array(hash).meta({ description: "what the owner's one transaction must disable for the adjustment to take over" }),
  periodAmount: z.string().meta({ description: "the adjusted grant's period amount, in the runway token's base units" }),
  periodStart: unixSeconds.meta({ description: "the adjusted grant's first period: the next boundary of the current grant's grid" }),
  grant_ends_at: unixSeconds,
})
export type FeedRequest = z.output<typeof feedRequest>

export const snapStatusResponse = z.object({
  owner: z.string(),
  generatedAt: unixSeconds,
  golems: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      phase: phaseName,
      vitality: z.number().min(0).max(1),
      lifecycle: z.enum(['alive', 'dying', 'dead']),
      vitals: vitalSignsResponse.nullable().meta({ description: 'null when the profile could not be read' }),
      lastHeartbeatAt: unixSeconds.nullable(),
      permission: permissionHealthResponse
        .omit({ golemId: true })
        .nullable()
        .meta({ description: 'null when health could not be read this time' }),
    }),
  ),
  nextToken: z.string().meta({ description: 'the Snap token for the next call; the token of this call was retired by it' }),
})

export const revocationResponse = z.object({
  golemId: z.string(),
  owner: addressSchema.meta({ description: "the owner's account: the one sender of the calls" }),
  calls: z
    .array(
      z.object({
        to: addressSchema.meta({ description: 'the DelegationManager' }),
        value: decimal,
        data: z.string().meta({ description: 'disableDelegation(delegation) calldata' }),
        delegationHash: hash,
        kind: z.enum(['runway', 'gas', 'action', 'council', 'observer']),
        label: z.string(),
      }),
    )
    .meta({
      description:
        "every grant the owner signed for the Golem that the chain still holds enabled: send them as one batch from the owner's account (wallet_sendCalls, or one user operation)",
    }),
  alreadyDisabled: z.array(hash),
})

export const revocationWakeResponse = z.object({
  golemId: z.string(),
  woken: z.boolean().meta({ description: 'false when the Golem was already due or is dead' }),
})

// ---- Onboarding -------------------------------------------------------------------------------------

export const newGolemIdSchema = z.string().regex(NEW_GOLEM_ID, NEW_GOLEM_ID_RULE)
export const onboardingParams = z.object({ id: newGolemIdSchema })

export const onboardingDraftRequest = z.strictObject({
  golemId: newGolemIdSchema,
  owner: addressSchema.meta({ description: "the wallet's account (the owner)" }),
  strategy: z.string().min(1, 'must be a STRATEGY.md, not empty').max(65_536, 'must be at most 65536 characters'),
  shape: z.enum(['delegations', 'permissions']).meta({
    description:
      "`delegations`: the owner's separate MetaMask smart account signs each drafted delegation (EIP-712); `permissions`: the wallet's own account grants through ERC-7715 wallet_requestExecutionPermissions",
  }),
})

export const onboardingGrantRequest = z.union([
  z.strictObject({
    signatures: z
      .array(z.strictObject({ hash, signature: hexBytes(4096) }))
      .min(1, 'must hold a signature per drafted delegation')
      .max(64, 'must hold at most 64 signatures'),
  }),
  z.strictObject({
    permissions: z
      .array(z.record(z.string(), z.unknown()))
      .min(1, 'must hold what wallet_requestExecutionPermissions answered')
      .max(8, 'must hold at most 8 permissions'),
  }),
])

const draftedDelegation = z.object({
  role: z.enum(['runway', 'gas', 'actions']),
  label: z.string(),
  hash,
  delegation: z.record(z.string(), z.unknown()).meta({ description: 'the unsigned delegation (signature 0x)' }),
  typedData: z.record(z.string(), z.unknown()).meta({ description: 'the EIP-712 payload the wallet signs (eth_signTypedData_v4)' }),
})

export const onboardingDraftResponse = z.object({
  golemId: z.string(),
  shape: z.enum(['delegations', 'permissions']),
  status: z.enum(['waiting', 'registered', 'expired']),
  owner: z.string(),
  account: z.string().meta({ description: "the granting account: the owner's smart account, or the wallet's own account" }),
  golemKey: z.string(),
  sessionAccount: z.string().optional().meta({ description: "`permissions`: the delegate of the wallet's grant" }),
  token: z.string(),
  periodAmount: decimal,
  periodSeconds: unixSeconds.meta({ description: 'seconds per runway period' }),
  gasPeriodAmount: decimal,
  startDate: unixSeconds,
  expiresAt: unixSeconds.meta({ description: "the life window's last second" }),
  answerBy: unixSeconds.meta({ description: 'the owner grants by this time or asks for a new draft' }),
  plan: z.object({ capabilities: z.array(z.string()), lines: z.array(z.string()) }),
  delegations: z.array(draftedDelegation),
  deploy: z
    .object({ factory: z.string(), factoryData: z.string() })
    .optional()
    .meta({ description: 'the smart account is not deployed yet: onboarding deploys it with this factory call' }),
  request: z.unknown().optional().meta({ description: '`permissions`: the wallet_requestExecutionPermissions params' }),
})

export const onboardingGrantResponse = z.object({
  golemId: z.string(),
  golemKey: z.string(),
  owner: z.string(),
  account: z.string(),
  grant_ends_at: unixSeconds,
  txHashes: z.array(hash).meta({
    description: "the hashes of the operator's transactions: the account's deployment, the oracle registration, the key's first gas",
  }),
})
