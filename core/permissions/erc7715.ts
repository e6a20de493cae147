import type { Erc20TokenPeriodicPermission, ExpiryRule, NativeTokenPeriodicPermission } from '@metamask/7715-permission-types'
import type { PermissionRequestParameter } from '@metamask/smart-accounts-kit/actions'
import { formatEther, getAddress, hexToBigInt, isAddress, toHex, type Address, type Hex } from 'viem'
import * as z from 'zod/v4'
import { formatUsdc } from './budget.ts'
import { PERIOD_SECONDS, type PermissionPlan } from './compileStrategy.ts'
import { StrategyCompileError } from './errors.ts'

/**
 * A permission request as MetaMask's permissions Snap (@metamask/gator-permissions-snap 0.7.0) takes it:
 * `address` is the owner's account the permission is asked of, `signer` the account it is granted to,
 * and the permission and every rule say whether the owner may change them in the consent dialog.
 */
export type WalletPermissionRequest<P extends Erc20TokenPeriodicPermission | NativeTokenPeriodicPermission> = {
  chainId: Hex
  address: Address
  signer: { type: 'account'; data: { address: Address } }
  permission: P
  rules: WalletRule[]
}
export type WalletRule = { type: string; isAdjustmentAllowed: boolean; data: Record<string, unknown> }

/** What the Snap answers for each granted request: the request as granted, plus the signed delegation chain. */
export type WalletPermissionResponse<P extends Erc20TokenPeriodicPermission | NativeTokenPeriodicPermission> =
  WalletPermissionRequest<P> & {
    /** `encodeDelegations([...])`, leaf first: the owner's root delegation to the signer account. */
    context: Hex
    dependencyInfo: { factory: Address; factoryData: Hex }[]
    signerMeta: { userOpBuilder?: Address; delegationManager?: Address }
  }

/** The two requests a Golem's runway needs, in `wallet_requestExecutionPermissions` params order. */
export type RunwayPermissionRequests = readonly [
  WalletPermissionRequest<Erc20TokenPeriodicPermission>,
  WalletPermissionRequest<NativeTokenPeriodicPermission>,
]

/**
 * The period durations the Snap offers (its hourly ... yearly presets); it moves any other requested
 * period to the nearest of them, so a request names one of these.
 */
export const WALLET_PERIOD_PRESETS = {
  hourly: 3_600,
  daily: 86_400,
  weekly: 604_800,
  biweekly: 1_209_600,
  monthly: 2_592_000,
  yearly: 31_536_000,
} as const

/** The Snap's justification rule: at most 120 characters, none of the markup or escape characters it refuses. */
export const JUSTIFICATION_MAX_CHARS = 120
const JUSTIFICATION_REFUSED = /[<>{}[\]"`\\&]|javascript:|data:|url\s*\(|on\w+\s*=/i

/**
 * The owner may lower the runway's and the gas's amount (or lengthen their period) in the wallet's
 * dialog, never the Golem's life: the permission is adjustable, its expiry rule is not. What the wallet
 * then grants is read back by grantedPermission.ts, which refuses anything above what was asked.
 */
export const PERMISSION_ADJUSTMENT_ALLOWED = true
export const EXPIRY_ADJUSTMENT_ALLOWED = false

const address = z.custom<Address>((v) => typeof v === 'string' && isAddress(v), { message: 'must be a checksum-valid address' })
/** A JSON-RPC quantity as viem's toHex writes it: lower-case, no leading zeros, and here never zero. */
const positiveQuantity = z.custom<Hex>((v) => typeof v === 'string' && /^0x[1-9a-f][0-9a-f]*$/.test(v), {
  message: 'must be a positive hex quantity',
})
const expiryRule = z.strictObject({
  type: z.literal('expiry'),
  isAdjustmentAllowed: z.boolean(),
  data: z.strictObject({ timestamp: z.number().int().positive() }),
})
const justification = z
  .string()
  .min(1)
  .max(JUSTIFICATION_MAX_CHARS)
  .refine((text) => !JUSTIFICATION_REFUSED.test(text), { message: 'must hold none of < > { } [ ] " ` \\ & nor a script or url' })
const periodicData = {
  periodAmount: positiveQuantity,
  periodDuration: z.literal(PERIOD_SECONDS),
  startTime: z.number().int().positive(),
  justification,
}
const envelope = {
  chainId: positiveQuantity,
  address,
  signer: z.strictObject({ type: z.literal('account'), data: z.strictObject({ address }) }),
  rules: z.tuple([expiryRule]),
}

export const erc20PeriodicRequestSchema = z.strictObject({
  ...envelope,
  permission: z.strictObject({
    type: z.literal('erc20-token-periodic'),
    isAdjustmentAllowed: z.boolean(),
    data: z.strictObject({ tokenAddress: address, ...periodicData }),
  }),
})

export const nativePeriodicRequestSchema = z.strictObject({
  ...envelope,
  permission: z.strictObject({
    type: z.literal('native-token-periodic'),
    isAdjustmentAllowed: z.boolean(),
    data: z.strictObject(periodicData),
  }),
})

export const runwayRequestsSchema = z
  .tuple([erc20PeriodicRequestSchema, nativePeriodicRequestSchema])
  .refine(
    ([usdc, gas]) => usdc.chainId === gas.chainId && usdc.address === gas.address && usdc.signer.data.address === gas.signer.data.address,
    { message: 'both requests must share chainId, address and signer' },
  )
  .refine(([usdc, gas]) => usdc.rules[0].data.timestamp === gas.rules[0].data.timestamp, {
    message: 'both requests must share one expiry',
  })
  .refine(([usdc]) => usdc.rules[0].data.timestamp > usdc.permission.data.startTime, {
    message: 'expiry must be after startTime',
  })

/** Human-legible: the wallet shows it to the owner in the consent dialog (so it keeps to the Snap's length). */
export function runwayJustification(plan: PermissionPlan): string {
  const head = `Bardo runway subscription: ${formatUsdc(plan.dailyUsdcCap)} USDC/day for ${plan.runwayDays} days`
  const what = plan.capabilities.length === 0 ? 'runway only' : plan.capabilities.join(', ')
  const full = `${head} (${what})`
  return full.length <= JUSTIFICATION_MAX_CHARS ? full : `${head} (${plan.capabilities.length} capabilities)`
}

export function gasJustification(plan: PermissionPlan): string {
  return `Bardo Golem gas: ${formatEther(plan.dailyGasCap)} ETH/day for ${plan.runwayDays} days`
}

/**
 * The plan as the ERC-7715 request MetaMask's permissions Snap 0.7.0 takes: `address` is the owner's
 * account, `signer` the Golem's session account, the expiry a rule, the period daily (one of the Snap's
 * presets). The owner may lower the amounts (PERMISSION_ADJUSTMENT_ALLOWED), not the expiry.
 */
export function toErc7715Request(plan: PermissionPlan): RunwayPermissionRequests {
  const common = {
    chainId: toHex(plan.chainId),
    address: plan.owner,
    signer: { type: 'account' as const, data: { address: plan.sessionKey } },
    rules: [
      { type: 'expiry', isAdjustmentAllowed: EXPIRY_ADJUSTMENT_ALLOWED, data: { timestamp: plan.expiry } } satisfies ExpiryRule &
        WalletRule,
    ],
  }
  const requests: RunwayPermissionRequests = [
    {
      ...common,
      permission: {
        type: 'erc20-token-periodic',
        isAdjustmentAllowed: PERMISSION_ADJUSTMENT_ALLOWED,
        data: {
          tokenAddress: plan.usdc,
          periodAmount: toHex(plan.dailyUsdcCap),
          periodDuration: plan.period,
          startTime: plan.startTime,
          justification: runwayJustification(plan),
        },
      },
    },
    {
      ...common,
      permission: {
        type: 'native-token-periodic',
        isAdjustmentAllowed: PERMISSION_ADJUSTMENT_ALLOWED,
        data: {
          periodAmount: toHex(plan.dailyGasCap),
          periodDuration: plan.period,
          startTime: plan.startTime,
          justification: gasJustification(plan),
        },
      },
    },
  ]
  parseErc7715Request(requests)
  return requests
}

/** Validates an unknown value (e.g. a stored or relayed request) against the runway request shape. */
export function parseErc7715Request(value: unknown): RunwayPermissionRequests {
  const result = runwayRequestsSchema.safeParse(value)
  if (!result.success) {
    const issue = result.error.issues[0]
    throw new StrategyCompileError(`erc7715.${issue?.path.join('.') ?? ''}`, issue?.message ?? 'invalid request')
  }
  return result.data as RunwayPermissionRequests
}

/** What a runway request grants, read back (used to check a request against its plan). */
export type RunwayTerms = {
  chainId: number
  owner: Address
  sessionKey: Address
  usdc: Address
  dailyUsdcCap: bigint
  dailyGasCap: bigint
  period: number
  startTime: number
  expiry: number
}

export function runwayTermsFromErc7715Request(value: unknown): RunwayTerms {
  const [usdc, gas] = parseErc7715Request(value)
  return {
    chainId: Number(hexToBigInt(usdc.chainId)),
    owner: getAddress(usdc.address),
    sessionKey: getAddress(usdc.signer.data.address),
    usdc: getAddress(usdc.permission.data.tokenAddress),
    dailyUsdcCap: hexToBigInt(usdc.permission.data.periodAmount),
    dailyGasCap: hexToBigInt(gas.permission.data.periodAmount),
    period: usdc.permission.data.periodDuration,
    startTime: usdc.permission.data.startTime ?? 0,
    expiry: usdc.rules[0]?.data.timestamp as number,
  }
}

/**
 * The same two requests as parameters for the kit's `requestExecutionPermissions` (numbers and bigints),
 * which sends them in the later ERC-7715 shape (`from`/`to`, rules without `isAdjustmentAllowed`) that
 * wallets after Snap 0.7.0 take. erc7715.test.ts proves both carry the same terms.
 */
export function toKitPermissionRequests(plan: PermissionPlan): PermissionRequestParameter[] {
  const justification = runwayJustification(plan)
  const common = { chainId: plan.chainId, from: plan.owner, to: plan.sessionKey, expiry: plan.expiry }
  return [
    {
      ...common,
      permission: {
        type: 'erc20-token-periodic',
        isAdjustmentAllowed: PERMISSION_ADJUSTMENT_ALLOWED,
        data: {
          tokenAddress: plan.usdc,
          periodAmount: plan.dailyUsdcCap,
          periodDuration: plan.period,
          startTime: plan.startTime,
          justification,
        },
      },
    },
    {
      ...common,
      permission: {
        type: 'native-token-periodic',
        isAdjustmentAllowed: PERMISSION_ADJUSTMENT_ALLOWED,
        data: {
          periodAmount: plan.dailyGasCap,
          periodDuration: plan.period,
          startTime: plan.startTime,
          justification: gasJustification(plan),
        },
      },
    },
  ]
}
