import { BardoError } from '../errors.ts'

/** A delegation that cannot join the tree: unknown parent, wrong delegator, open delegate, unsigned grant. */
export class DelegationTreeError extends BardoError {
  readonly field: string
  constructor(field: string, rule: string, details?: Record<string, unknown>) {
    super('DELEGATION_TREE', `${field} ${rule}`, { details: { field, ...details } })
    this.field = field
  }
}

/** Parameters of a delegation shape (Golem grant, runway re-delegation, Replicant) that break its rules. */
export class DelegationShapeError extends BardoError {
  readonly field: string
  constructor(field: string, rule: string, details?: Record<string, unknown>) {
    super('DELEGATION_SHAPE', `${field} ${rule}`, { details: { field, ...details } })
    this.field = field
  }
}
