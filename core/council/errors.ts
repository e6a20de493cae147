import { BardoError } from '../errors.ts'

/** A council proposal, delegation or signature that breaks a council rule; the message names the field and the rule. */
export class CouncilError extends BardoError {
  readonly field: string
  constructor(field: string, rule: string, details?: Record<string, unknown>) {
    super('COUNCIL', `${field} ${rule}`, { details: { field, ...details } })
    this.field = field
  }
}

export type CouncilRefusalCode =
  | 'COUNCIL_NOT_MEMBER'
  | 'COUNCIL_MEMBER_NOT_COUNTING'
  | 'COUNCIL_PROPOSAL_NOT_FOUND'
  | 'COUNCIL_PROPOSAL_EXPIRED'
  | 'COUNCIL_PROPOSAL_CLOSED'
  | 'COUNCIL_BAD_SIGNATURE'
  | 'COUNCIL_ACTION_REFUSED'
  | 'COUNCIL_NOT_FOUND'
  | 'COUNCIL_EXISTS'
  | 'COUNCIL_FORMATION_REFUSED'

/** A council request refused before anything was written; `code` is the API's error code. */
export class CouncilRefusal extends BardoError {
  declare readonly code: CouncilRefusalCode
  constructor(code: CouncilRefusalCode, message: string, details?: Record<string, unknown>) {
    super(code, message, details === undefined ? undefined : { details })
  }
}

/**
 * The owner's formation of a council refused (a Golem not the owner's or not alive, a signature that is
 * not the owner's, a delegation that is not the drafted one): the field and the rule, nothing written.
 */
export function formationRefused(field: string, rule: string): CouncilRefusal {
  return new CouncilRefusal('COUNCIL_FORMATION_REFUSED', `${field}: ${rule}`, { field, rule })
}
