import { BardoError } from '../errors.ts'

/** A request the action path cannot even encode (a missing field, a bad address); nothing is sent. */
export class ActionRequestError extends BardoError {
  readonly field: string
  constructor(field: string, rule: string) {
    super('INVALID_ACTION_REQUEST', `${field} ${rule}`, { details: { field } })
    this.field = field
  }
}

/** A stored grant record that does not parse: the Golem has no action grant custody can redeem. */
export class ActionGrantError extends BardoError {
  readonly field: string
  constructor(field: string, rule: string) {
    super('INVALID_ACTION_GRANT', `${field} ${rule}`, { details: { field } })
    this.field = field
  }
}
