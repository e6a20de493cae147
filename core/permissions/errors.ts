import { BardoError } from '../errors.ts'

/**
 * A strategy (or the call around it) that cannot be compiled: bad input, an unparseable declaration,
 * a contradiction, or a capability the chain's protocol registry cannot serve.
 * `field` names what was wrong and `rule` the rule it broke; nothing is produced.
 */
export class StrategyCompileError extends BardoError {
  readonly field: string
  readonly rule: string
  constructor(field: string, rule: string, details?: Record<string, unknown>) {
    super('STRATEGY_COMPILE', `${field}: ${rule}`, { details: { field, rule, ...details } })
    this.field = field
    this.rule = rule
  }
}

/**
 * A well-formed strategy that asks for more than the runway guardrail allows without an explicit
 * owner override (`override: true` in front matter): a runway over 90 days or a cap over 100 USDC/day.
 */
export class StrategyGuardrailError extends BardoError {
  readonly field: string
  readonly rule: string
  constructor(field: string, rule: string, details?: Record<string, unknown>) {
    super('STRATEGY_GUARDRAIL', `${field}: ${rule}`, { details: { field, rule, ...details } })
    this.field = field
    this.rule = rule
  }
}
