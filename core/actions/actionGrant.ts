// The Golem's action grant as custody keeps it: every signed actions and approvals delegation with a
// label, public data only. Stored as JSON beside the Golem's record; decoded back into GrantedActions,
// whose caveats are read from the signed terms themselves (never from a separate description).
import type { Delegation, SmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import { isAddress, isHex, type Hex } from 'viem'
import { decodeDelegationCaveats } from '../caveats/caveat.ts'
import type { BardoDeployment } from '../caveats/types.ts'
import type { GrantedAction } from './chooseDelegation.ts'
import { ActionGrantError } from './errors.ts'

export type ActionGrantEntry = { hash: Hex; label: string; chain: Delegation[] }
export type ActionGrantRecord = { v: 1; delegations: ActionGrantEntry[] }

/** The JSON form (every field a string) the store keeps. */
export function serializeActionGrant(entries: readonly ActionGrantEntry[]): ActionGrantRecord {
  return {
    v: 1,
    delegations: entries.map((e) => ({
      hash: e.hash,
      label: e.label,
      chain: e.chain.map((d) => ({
        delegate: d.delegate,
        delegator: d.delegator,
        authority: d.authority,
        caveats: d.caveats.map((c) => ({ enforcer: c.enforcer, terms: c.terms, args: c.args })),
        salt: d.salt,
        signature: d.signature,
      })),
    })),
  }
}

/** Parses a stored record; throws ActionGrantError naming the first bad field. */
export function parseActionGrant(raw: unknown): ActionGrantRecord {
  const r = raw as Partial<ActionGrantRecord> | null
  if (r?.v !== 1 || !Array.isArray(r.delegations)) throw new ActionGrantError('grant', 'must be { v: 1, delegations: [...] }')
  r.delegations.forEach((e, i) => {
    const f = `grant.delegations[${i}]`
    if (!e || typeof e !== 'object') throw new ActionGrantError(f, 'must be an object')
    if (!isHex(e.hash) || e.hash.length !== 66) throw new ActionGrantError(`${f}.hash`, 'must be a 32-byte hex hash')
    if (typeof e.label !== 'string') throw new ActionGrantError(`${f}.label`, 'must be a string')
    if (!Array.isArray(e.chain) || e.chain.length === 0) throw new ActionGrantError(`${f}.chain`, 'must hold at least one delegation')
    e.chain.forEach((d, j) => {
      const g = `${f}.chain[${j}]`
      if (!isAddress(d.delegate, { strict: false }) || !isAddress(d.delegator, { strict: false }))
        throw new ActionGrantError(g, 'must name a delegate and a delegator address')
      if (!isHex(d.authority) || !isHex(d.salt) || !isHex(d.signature) || d.signature === '0x')
        throw new ActionGrantError(g, 'must carry hex authority, salt and a signature')
      if (
        !Array.isArray(d.caveats) ||
        d.caveats.some((c) => !isAddress(c.enforcer, { strict: false }) || !isHex(c.terms) || !isHex(c.args))
      )
        throw new ActionGrantError(`${g}.caveats`, 'must be a list of { enforcer, terms, args }')
    })
  })
  return r as ActionGrantRecord
}

/** The redeemable delegations of a record, each with the decoded caveats of its whole chain. */
export function grantedActions(
  record: ActionGrantRecord,
  deployment: BardoDeployment,
  environment: SmartAccountsEnvironment,
): GrantedAction[] {
  return record.delegations.map((e) => ({
    hash: e.hash,
    label: e.label,
    chain: e.chain,
    caveats: e.chain.flatMap((d) => decodeDelegationCaveats(d, deployment, environment)),
  }))
}
