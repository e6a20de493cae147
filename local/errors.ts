import { BardoError } from '../core/errors.ts'

/**
 * The local stack could not do what was asked: a process that would not start (anvil, dynalite), a
 * setting out of range, a local transaction that reverted, a relay request the owner did not sign.
 * `code` says which; the message names what and the rule.
 */
export class LocalStackError extends BardoError {}
