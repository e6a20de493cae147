// The CLI's own errors: a flag or an environment variable that breaks a rule, refused before anything
// is written. The message names the flag (or variable) and the rule.
import { BardoError } from '../core/errors.ts'

/** A command-line flag or argument broke a rule. */
export class CliUsageError extends BardoError {
  readonly flag: string
  constructor(flag: string, rule: string) {
    super('CLI_USAGE', `${flag}: ${rule}`, { details: { flag } })
    this.flag = flag
  }
}

/** An environment variable (a key, the RPC URL, the store) is missing or malformed. */
export class CliConfigError extends BardoError {
  readonly variable: string
  constructor(variable: string, rule: string) {
    super('CLI_CONFIG', `${variable}: ${rule}`, { details: { variable } })
    this.variable = variable
  }
}

/** The chain or the store refuses what the command asks (a conflicting grant, a missing framework). */
export class CliRefusedError extends BardoError {
  readonly field: string
  constructor(field: string, rule: string, details?: Record<string, unknown>) {
    super('CLI_REFUSED', `${field}: ${rule}`, { details: { field, ...details } })
    this.field = field
  }
}
