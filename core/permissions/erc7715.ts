import type {
  Erc20TokenPeriodicPermission,
  ExpiryRule,
  NativeTokenPeriodicPermission,
  PermissionRequest,
} from '@metamask/7715-permission-types'
import type { PermissionRequestParameter } from '@metamask/smart-accounts-kit/actions'
import { formatEther, getAddress, hexToBigInt, isAddress, toHex, type Address, type Hex } from 'viem'
import { z } from 'zod/v4'
import { formatUsdc } from './budget.ts'
import { PERIOD_SECONDS, type PermissionPlan } from './compileStrategy.ts'
import { StrategyCompileError } from './errors.ts'

/** The two requests a Golem's runway needs, in `wallet_requestExecutionPermissions` params order. */
export type RunwayPermissionRequests = readonly [
  PermissionRequest<Erc20TokenPeriodicPermission>,
  PermissionRequest<NativeTokenPeriodicPermission>,
]

const address = z.custom<Address>((v) => typeof v === 'string' && isAddress(v), { message: 'must be a checksum-valid address' })
/** A JSON-RPC quantity as viem's toHex writes it: lower-case, no leading zeros, and here never zero. */
const positiveQuantity = z.custom<Hex>((v) => typeof v === 'string' && /^0x[1-9a-f][0-9a-f]*$/.test(v), {
  message: 'must be a positive hex quantity',
})
const expiryRule = z.strictObject({
  type: z.literal('expiry'),
  data: z.strictObject({ timestamp: z.number().int().positive() }),
})
const periodicData = {
  periodAmount: positiveQuantity,
  periodDuration: z.literal(PERIOD_SECONDS),
  startTime: z.number().int().positive(),
  justification: z.string().min(1).max(500),
}
const envelope = {
  chainId: positiveQuantity,
  from: address,
  to: address,
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
  .refine(([usdc, gas]) => usdc.chainId === gas.chainId && usdc.from === gas.from && usdc.to === gas.to, {
    message: 'both requests must share chainId, from and to',
  })
  .refine(([usdc, gas]) => usdc.rules[0].data.timestamp === gas.rules[0].data.timestamp, {
    message: 'both requests must share one expiry',
  })
  .refine(([usdc]) => usdc.rules[0].data.timestamp > usdc.permission.data.startTime, {
    message: 'expiry must be after startTime',
  })

/** Human-legible: the wallet shows it to the owner in the consent dialog. */
export function runwayJustification(plan: PermissionPlan): string {
  const what = plan.capabilities.length === 0 ? 'runway only' : plan.capabilities.join(', ')
  return `Bardo runway subscription: ${formatUsdc(plan.dailyUsdcCap)} USDC/day for ${plan.runwayDays} days (${what})`
}

export function gasJustification(plan: PermissionPlan): string {
  return `Bardo Golem gas: ${formatEther(plan.dailyGasCap)} ETH/day for ${plan.runwayDays} days`
}

/**
 * The plan as today's ERC-7715 request (no `signer`; `to` is the Golem's session account,
 * `from` the owner's smart account, the expiry a rule). `isAdjustmentAllowed` is false: the plan is the
 * compiled minimum and the Bardo re-delegation's caveats are derived from the same numbers.
 */
export function toErc7715Request(plan: PermissionPlan): RunwayPermissionRequests {
  const common = {
    chainId: toHex(plan.chainId),
    from: plan.owner,
    to: plan.sessionKey,
    rules: [{ type: 'expiry', data: { timestamp: plan.expiry } } satisfies ExpiryRule],
  }
  const justification = runwayJustification(plan)
  const requests: RunwayPermissionRequests = [
    {
      ...common,
      permission: {
        type: 'erc20-token-periodic',
        isAdjustmentAllowed: false,
        data: {
          tokenAddress: plan.usdc,
          periodAmount: toHex(plan.dailyUsdcCap),
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
        isAdjustmentAllowed: false,
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
    owner: getAddress(usdc.from ?? ''),
    sessionKey: getAddress(usdc.to),
    usdc: getAddress(usdc.permission.data.tokenAddress),
    dailyUsdcCap: hexToBigInt(usdc.permission.data.periodAmount),
    dailyGasCap: hexToBigInt(gas.permission.data.periodAmount),
    period: usdc.permission.data.periodDuration,
    startTime: usdc.permission.data.startTime ?? 0,
    expiry: usdc.rules?.[0]?.data.timestamp as number,
  }
}

/**
 * The same two requests as parameters for the kit's `requestExecutionPermissions` (numbers and bigints;
 * the kit converts them to the RPC shape above). erc7715.test.ts proves both paths send identical params.
 */
export function toKitPermissionRequests(plan: PermissionPlan): PermissionRequestParameter[] {
  const justification = runwayJustification(plan)
  const common = { chainId: plan.chainId, from: plan.owner, to: plan.sessionKey, expiry: plan.expiry }
  return [
    {
      ...common,
      permission: {
        type: 'erc20-token-periodic',
        isAdjustmentAllowed: false,
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
        isAdjustmentAllowed: false,
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
