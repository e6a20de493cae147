import { BardoError } from '../../core/errors.ts'

/** A deployed function's configuration is missing or malformed; the message names the variable and the rule. */
export class FunctionConfigError extends BardoError {
  constructor(message: string) {
    super('FUNCTION_CONFIG', message)
  }
}
