import { createCaveat, type Caveat, type Delegation, type SmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import { createCaveatBuilder, decodeCaveat } from '@metamask/smart-accounts-kit/utils'
import { getAddress, isHex, type Address, type Hex } from 'viem'
import { decodeBardoTerms } from './decodeBardoTerms.ts'
import { encodeBardoTerms } from './encodeBardoTerms.ts'
import { CaveatConfigError, InvalidTermsError } from './errors.ts'
import { BARDO_CAVEAT_TYPES, type BardoCaveat, type BardoCaveatOf, type BardoCaveatType, type BardoDeployment } from './types.ts'

/**
 * The framework's standard caveats the attenuation and summary code reasons about, normalised so that
 * every amount, time and count is a bigint and every address is checksummed (the kit's decoders return
 * numbers and lowercase hex).
 */
export type StandardCaveat =
  | { type: 'allowedTargets'; targets: Address[] }
  | { type: 'allowedMethods'; selectors: Hex[] }
  | { type: 'valueLte'; maxValue: bigint }
  | { type: 'limitedCalls'; limit: bigint }
  | { type: 'timestamp'; afterThreshold: bigint; beforeThreshold: bigint }
  | { type: 'blockNumber'; afterThreshold: bigint; beforeThreshold: bigint }
  | { type: 'erc20PeriodTransfer'; tokenAddress: Address; periodAmount: bigint; periodDuration: bigint; startDate: bigint }
  | { type: 'nativeTokenPeriodTransfer'; periodAmount: bigint; periodDuration: bigint; startDate: bigint }
  | { type: 'erc20TransferAmount'; tokenAddress: Address; maxAmount: bigint }
  | { type: 'nativeTokenTransferAmount'; maxAmount: bigint }
  | { type: 'exactCalldata'; calldata: Hex }
  /** Calldata bytes `startIndex .. startIndex + len(value) - 1` must equal `value` (startIndex counts the selector). */
  | { type: 'allowedCalldata'; startIndex: bigint; value: Hex }
  | { type: 'redeemer'; redeemers: Address[] }

/** A standard enforcer the kit knows but this module does not reason about (it still runs on-chain). */
export type OtherStandardCaveat = { type: 'otherStandard'; name: string; enforcer: Address; terms: Hex }
/** An enforcer neither the kit's environment nor the Bardo deployment knows. */
export type UnknownCaveat = { type: 'unknown'; enforcer: Address; terms: Hex }

/** One representation for every caveat of a delegation: attenuation and summaries work on this. */
export type DecodedCaveat = BardoCaveat | StandardCaveat | OtherStandardCaveat | UnknownCaveat
export type DecodedCaveatOf<T extends DecodedCaveat['type']> = Extract<DecodedCaveat, { type: T }>

/** The enforcer's address; a deployment without the optional PolicyCageEnforcer refuses its caveat. */
export function bardoEnforcerAddress(deployment: BardoDeployment, type: BardoCaveatType): Address {
  const at = deployment.enforcers[type]
  if (!at) throw new CaveatConfigError(type, 'enforcer', 'the deployment has no PolicyCageEnforcer (enforcers.policyCage)')
  return at
}

/** Which Bardo enforcer (if any) lives at `enforcer`. */
export function bardoCaveatTypeAt(deployment: BardoDeployment, enforcer: Hex): BardoCaveatType | undefined {
  const e = enforcer.toLowerCase()
  return BARDO_CAVEAT_TYPES.find((t) => deployment.enforcers[t]?.toLowerCase() === e)
}

/**
 * A framework Caveat for a Bardo caveat, with empty args. No Bardo enforcer reads args, and args are not
 * part of the signed delegation; the kit's default `0x00` would cost a padded word on every redemption (in
 * the calldata, the DelegationManager's event and each of the four hook calls: ~765 gas).
 */
export function toCaveat(c: BardoCaveat, deployment: BardoDeployment): Caveat {
  return createCaveat(bardoEnforcerAddress(deployment, c.type), encodeBardoTerms(c), '0x')
}

const safe = (caveat: string, field: string, v: bigint): number => {
  if (v < 0n || v > BigInt(Number.MAX_SAFE_INTEGER))
    throw new CaveatConfigError(caveat, field, `must fit a safe integer for the kit's builder, got ${v}`)
  return Number(v)
}

/** A framework Caveat for a standard caveat, built by the kit's own builder (so its validation applies). */
export function toStandardCaveat(c: StandardCaveat, environment: SmartAccountsEnvironment): Caveat {
  const b = createCaveatBuilder(environment)
  switch (c.type) {
    case 'allowedTargets':
      return b.addCaveat('allowedTargets', { targets: c.targets }).build()[0]!
    case 'allowedMethods':
      return b.addCaveat('allowedMethods', { selectors: c.selectors }).build()[0]!
    case 'valueLte':
      return b.addCaveat('valueLte', { maxValue: c.maxValue }).build()[0]!
    case 'limitedCalls':
      return b.addCaveat('limitedCalls', { limit: safe(c.type, 'limit', c.limit) }).build()[0]!
    case 'timestamp':
      return b
        .addCaveat('timestamp', {
          afterThreshold: safe(c.type, 'afterThreshold', c.afterThreshold),
          beforeThreshold: safe(c.type, 'beforeThreshold', c.beforeThreshold),
        })
        .build()[0]!
    case 'blockNumber':
      return b.addCaveat('blockNumber', { afterThreshold: c.afterThreshold, beforeThreshold: c.beforeThreshold }).build()[0]!
    case 'erc20PeriodTransfer':
      return b
        .addCaveat('erc20PeriodTransfer', {
          tokenAddress: c.tokenAddress,
          periodAmount: c.periodAmount,
          periodDuration: safe(c.type, 'periodDuration', c.periodDuration),
          startDate: safe(c.type, 'startDate', c.startDate),
        })
        .build()[0]!
    case 'nativeTokenPeriodTransfer':
      return b
        .addCaveat('nativeTokenPeriodTransfer', {
          periodAmount: c.periodAmount,
          periodDuration: safe(c.type, 'periodDuration', c.periodDuration),
          startDate: safe(c.type, 'startDate', c.startDate),
        })
        .build()[0]!
    case 'erc20TransferAmount':
      return b.addCaveat('erc20TransferAmount', { tokenAddress: c.tokenAddress, maxAmount: c.maxAmount }).build()[0]!
    case 'nativeTokenTransferAmount':
      return b.addCaveat('nativeTokenTransferAmount', { maxAmount: c.maxAmount }).build()[0]!
    case 'exactCalldata':
      return b.addCaveat('exactCalldata', { calldata: c.calldata }).build()[0]!
    case 'allowedCalldata':
      if (!isHex(c.value, { strict: true }) || c.value.length % 2 !== 0)
        throw new CaveatConfigError(c.type, 'value', `must be 0x-prefixed hex of whole bytes, got ${String(c.value)}`)
      return b.addCaveat('allowedCalldata', { startIndex: safe(c.type, 'startIndex', c.startIndex), value: c.value }).build()[0]!
    case 'redeemer':
      return b.addCaveat('redeemer', { redeemers: c.redeemers }).build()[0]!
  }
}

/** A caveat's fields without its `type`, member by member (golemPhase's window stays "both or neither"). */
type ConfigOf<C> = C extends unknown ? Omit<C, 'type'> : never

/**
 * The kit's caveat builder extended with the nine Bardo caveats, so one fluent chain composes both:
 * `createBardoCaveatBuilder(env, dep).addCaveat('allowedTargets', {targets}).addCaveat('golemPhase', {golem}).build()`.
 */
export function createBardoCaveatBuilder(environment: SmartAccountsEnvironment, deployment: BardoDeployment) {
  const bardo =
    <T extends BardoCaveatType>(type: T) =>
    (_env: SmartAccountsEnvironment, config: ConfigOf<BardoCaveatOf<T>>): Caveat =>
      toCaveat({ ...config, type } as unknown as BardoCaveat, deployment)
  return createCaveatBuilder(environment)
    .extend('golemPhase', bardo('golemPhase'))
    .extend('mortalityTimeWindow', bardo('mortalityTimeWindow'))
    .extend('dreamMode', bardo('dreamMode'))
    .extend('emotionalState', bardo('emotionalState'))
    .extend('vaultNav', bardo('vaultNav'))
    .extend('dailySpendLimit', bardo('dailySpendLimit'))
    .extend('replicantBudget', bardo('replicantBudget'))
    .extend('maxSlippage', bardo('maxSlippage'))
    .extend('knowledgeRoyalty', bardo('knowledgeRoyalty'))
}

const big = (v: number | bigint): bigint => BigInt(v)

function normaliseStandard(
  decoded: Record<string, unknown> & { type: string },
  enforcer: Address,
  terms: Hex,
): StandardCaveat | OtherStandardCaveat {
  const d = decoded as Record<string, unknown>
  switch (decoded.type) {
    case 'allowedTargets':
      return { type: 'allowedTargets', targets: (d.targets as Hex[]).map((a) => getAddress(a)) }
    case 'allowedMethods':
      return { type: 'allowedMethods', selectors: (d.selectors as Hex[]).map((s) => s.toLowerCase() as Hex) }
    case 'valueLte':
      return { type: 'valueLte', maxValue: big(d.maxValue as bigint | number) }
    case 'limitedCalls':
      return { type: 'limitedCalls', limit: big(d.limit as bigint | number) }
    case 'timestamp':
    case 'blockNumber':
      return {
        type: decoded.type,
        afterThreshold: big(d.afterThreshold as bigint | number),
        beforeThreshold: big(d.beforeThreshold as bigint | number),
      }
    case 'erc20PeriodTransfer':
      return {
        type: 'erc20PeriodTransfer',
        tokenAddress: getAddress(d.tokenAddress as Hex),
        periodAmount: big(d.periodAmount as bigint | number),
        periodDuration: big(d.periodDuration as bigint | number),
        startDate: big(d.startDate as bigint | number),
      }
    case 'nativeTokenPeriodTransfer':
      return {
        type: 'nativeTokenPeriodTransfer',
        periodAmount: big(d.periodAmount as bigint | number),
        periodDuration: big(d.periodDuration as bigint | number),
        startDate: big(d.startDate as bigint | number),
      }
    case 'erc20TransferAmount':
      return {
        type: 'erc20TransferAmount',
        tokenAddress: getAddress(d.tokenAddress as Hex),
        maxAmount: big(d.maxAmount as bigint | number),
      }
    case 'nativeTokenTransferAmount':
      return { type: 'nativeTokenTransferAmount', maxAmount: big(d.maxAmount as bigint | number) }
    case 'exactCalldata':
      return { type: 'exactCalldata', calldata: (d.calldata as Hex).toLowerCase() as Hex }
    case 'allowedCalldata':
      return { type: 'allowedCalldata', startIndex: big(d.startIndex as bigint | number), value: (d.value as Hex).toLowerCase() as Hex }
    case 'redeemer':
      return { type: 'redeemer', redeemers: (d.redeemers as Hex[]).map((a) => getAddress(a)) }
    default:
      return { type: 'otherStandard', name: decoded.type, enforcer, terms }
  }
}

/**
 * Decodes any caveat of a delegation: Bardo enforcers through decodeBardoTerms, standard ones through
 * the kit's decodeCaveat. An enforcer neither knows becomes `{ type: 'unknown' }` (it still binds
 * on-chain; nothing here can say how).
 */
export function fromCaveat(
  caveat: Pick<Caveat, 'enforcer' | 'terms'>,
  deployment: BardoDeployment,
  environment: SmartAccountsEnvironment,
): DecodedCaveat {
  const enforcer = getAddress(caveat.enforcer)
  const bardoType = bardoCaveatTypeAt(deployment, enforcer)
  if (bardoType) return decodeBardoTerms(bardoType, caveat.terms)
  const name = Object.entries(environment.caveatEnforcers).find(([, a]) => a.toLowerCase() === enforcer.toLowerCase())?.[0]
  if (name === undefined) return { type: 'unknown', enforcer, terms: caveat.terms }
  let decoded: Record<string, unknown> & { type: string }
  try {
    decoded = decodeCaveat({ caveat: { ...caveat, args: '0x' }, environment }) as Record<string, unknown> & { type: string }
  } catch (cause) {
    throw new InvalidTermsError(name, 'terms', `cannot be decoded: ${cause instanceof Error ? cause.message : String(cause)}`)
  }
  return normaliseStandard(decoded, enforcer, caveat.terms)
}

/** All caveats of a delegation, decoded in order. */
export function decodeDelegationCaveats(
  delegation: Pick<Delegation, 'caveats'>,
  deployment: BardoDeployment,
  environment: SmartAccountsEnvironment,
): DecodedCaveat[] {
  return delegation.caveats.map((c) => fromCaveat(c, deployment, environment))
}

/** The framework Caveat for any decoded caveat this module can build. */
export function toAnyCaveat(c: BardoCaveat | StandardCaveat, deployment: BardoDeployment, environment: SmartAccountsEnvironment): Caveat {
  return (BARDO_CAVEAT_TYPES as readonly string[]).includes(c.type)
    ? toCaveat(c as BardoCaveat, deployment)
    : toStandardCaveat(c as StandardCaveat, environment)
}
