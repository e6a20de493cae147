// The owner's constitution for a Golem: which assets it may hold, how much of the portfolio one asset
// may be, how much value it may put at risk per transaction, per session and per day, and how far the
// portfolio may fall from its high-water mark before it may take no new risk. Amounts are USD with 6
// decimals (the unit the spend-limit caveat and the price valuation use); shares are basis points.
import { getAddress, isAddress, type Address } from 'viem'
import { BardoError } from '../errors.ts'
import * as z from '../zodMini.ts'

/** The rules of a constitution, in the order checkPolicy applies them. */
export const POLICY_RULES = [
  'approvedAsset',
  'maxDrawdown',
  'phaseMaxPosition',
  'maxConcentration',
  'maxTransaction',
  'maxSession',
  'maxDay',
] as const
export type PolicyRule = (typeof POLICY_RULES)[number]

export const BPS = 10_000

const address = z.pipe(
  z.string().check(z.refine((v) => isAddress(v, { strict: false }), 'must be a 20-byte 0x address')),
  z.transform((v: string) => getAddress(v) as Address),
)
const usd = z.pipe(
  z.string().check(z.regex(/^\d{1,30}$/, 'must be a USD amount with 6 decimals, as a decimal integer string')),
  z.transform((v: string) => BigInt(v)),
)
const bps = z
  .number()
  .check(
    z.int('must be an integer number of basis points'),
    z.gte(0, 'must be 0..10000 basis points'),
    z.lte(BPS, 'must be 0..10000 basis points'),
  )

/** The constitution as the Golem's profile keeps it (JSON, amounts as decimal strings). */
export const constitutionSchema = z
  .object({
    v: z.literal(1),
    /** The portfolio's cash (the owner's USDC): always approved, never a position, what closing a position returns to. */
    baseAsset: address,
    /** The approved assets besides the base asset, each with the most of the portfolio it may be (basis points). */
    assets: z.array(z.object({ address, maxConcentrationBps: bps })).check(z.maxLength(64)),
    maxTransactionUsd: usd,
    maxSessionUsd: usd,
    maxDayUsd: usd,
    /** How far (basis points) the portfolio may fall below its high-water mark before new risk is refused. */
    maxDrawdownBps: bps,
    /** The rules whose violation starts the revocation cascade, besides refusing the action. */
    revokeOn: z._default(z.array(z.enum(POLICY_RULES)), []),
  })
  .check(
    z.superRefine((c, ctx) => {
      const seen = new Set<string>([c.baseAsset.toLowerCase()])
      for (const [i, a] of c.assets.entries()) {
        const key = a.address.toLowerCase()
        if (seen.has(key))
          ctx.issues.push({
            code: 'custom',
            input: a.address,
            path: ['assets', i, 'address'],
            message: 'must name each asset once, and not the base asset',
          })
        seen.add(key)
      }
      if (c.maxTransactionUsd > c.maxSessionUsd || c.maxTransactionUsd > c.maxDayUsd)
        ctx.issues.push({
          code: 'custom',
          input: c.maxTransactionUsd,
          path: ['maxTransactionUsd'],
          message: 'must not exceed maxSessionUsd or maxDayUsd',
        })
      if (new Set(c.revokeOn).size !== c.revokeOn.length)
        ctx.issues.push({ code: 'custom', input: c.revokeOn, path: ['revokeOn'], message: 'must name each rule once' })
    }),
  )

export type Constitution = z.output<typeof constitutionSchema>
/** A constitution as JSON holds it (amounts as decimal strings). */
export type ConstitutionInput = z.input<typeof constitutionSchema>

export class ConstitutionError extends BardoError {
  readonly field: string
  constructor(field: string, rule: string) {
    super('INVALID_CONSTITUTION', `constitution.${field}: ${rule}`, { details: { field } })
    this.field = field
  }
}

/** The constitution in `raw`, or a ConstitutionError naming the first field that breaks a rule. */
export function parseConstitution(raw: unknown): Constitution {
  const parsed = z.safeParse(constitutionSchema, raw)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]!
  throw new ConstitutionError(issue.path.length ? issue.path.join('.') : '(root)', issue.message)
}

/** The constitution as JSON keeps it: the inverse of parseConstitution. */
export function constitutionJson(c: Constitution): ConstitutionInput {
  return {
    ...c,
    assets: c.assets.map((a) => ({ ...a })),
    maxTransactionUsd: c.maxTransactionUsd.toString(),
    maxSessionUsd: c.maxSessionUsd.toString(),
    maxDayUsd: c.maxDayUsd.toString(),
    revokeOn: [...c.revokeOn],
  }
}
