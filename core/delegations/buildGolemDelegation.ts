import { createDelegation, type Caveat, type Delegation } from '@metamask/smart-accounts-kit'
import { generateSalt } from '@metamask/smart-accounts-kit/utils'
import { isAddressEqual, type Address, type Hex } from 'viem'
import { toAnyCaveat, toCaveat, type StandardCaveat } from '../caveats/caveat.ts'
import { lifeWindowOf } from '../caveats/semantics.ts'
import type { BardoCaveat } from '../caveats/types.ts'
import { DelegationShapeError } from './errors.ts'
import type { DelegationTree } from './tree.ts'

export type GrantedDelegation = { hash: Hex; delegation: Delegation }

/** The USDC runway: ERC20PeriodTransfer (the kit's `erc20PeriodTransfer` scope: ValueLte(0) + the period). */
export type RunwaySlot = {
  token: Address
  periodAmount: bigint
  periodDuration: number
  startDate: number
  bardo?: readonly BardoCaveat[]
  caveats?: readonly StandardCaveat[]
}
/** Gas money: NativeTokenPeriodTransfer, plain transfers only, by default only to the Golem's own key. */
export type GasSlot = {
  periodAmount: bigint
  periodDuration: number
  startDate: number
  recipients?: readonly Address[]
  bardo?: readonly BardoCaveat[]
  caveats?: readonly StandardCaveat[]
}
/** Calls from the owner's account: AllowedTargets + AllowedMethods + ValueLte (the `functionCall` scope), LimitedCalls. */
export type ActionsSlot = {
  targets: readonly Address[]
  selectors: readonly Hex[]
  maxValue?: bigint
  maxCalls?: number
  bardo?: readonly BardoCaveat[]
  caveats?: readonly StandardCaveat[]
}

export type BuildGolemDelegationParameters = {
  tree: DelegationTree
  /** The owner's MetaMask smart account (delegator). */
  owner: Address
  /** The Golem's session key (delegate), the address registered in the VitalityOracle. */
  golem: Address
  /**
   * On every delegation of the grant; must hold golemPhase for `golem` and a deadline: golemPhase's own
   * window (`startTime`, `endTime`: one caveat, the runway's shape) or a mortalityTimeWindow.
   */
  bardo: readonly BardoCaveat[]
  runway?: RunwaySlot
  gas?: GasSlot
  actions?: ActionsSlot
  /** Salt for every delegation of the grant (they differ by caveats); default a fresh random salt each. */
  salt?: Hex
}

export type GolemGrant = { runway?: GrantedDelegation; gas?: GrantedDelegation; actions?: GrantedDelegation }

/**
 * Every Golem delegation carries its phase gate and its death deadline: the promise to the owner. The
 * deadline is golemPhase's window (Bardo's shape: one caveat, one hook overhead) or, as delegations
 * signed before it, a separate mortalityTimeWindow.
 */
export function requireGolemCaveats(field: string, bardo: readonly BardoCaveat[], golem: Address): void {
  if (!bardo.some((c) => c.type === 'golemPhase' && isAddressEqual(c.golem, golem))) {
    throw new DelegationShapeError(field, `must include a golemPhase caveat for the Golem ${golem}, so it cannot act out of phase or after death`)
  }
  if (!bardo.some((c) => lifeWindowOf(c) !== undefined)) {
    throw new DelegationShapeError(
      field,
      'must give the Golem a hard deadline: a window on its golemPhase caveat (startTime and endTime) or a mortalityTimeWindow caveat',
    )
  }
}

export function extraCaveats(tree: DelegationTree, bardo: readonly BardoCaveat[], standard: readonly StandardCaveat[] = []): Caveat[] {
  return [...standard.map((c) => toAnyCaveat(c, tree.deployment, tree.environment)), ...bardo.map((c) => toCaveat(c, tree.deployment))]
}

/**
 * Shape 1, direct ERC-7710: the owner's smart account grants the Golem's session key its full policy.
 *
 * One grant is up to three sibling delegations, because the framework's period enforcers admit only
 * transfers: ERC20PeriodTransfer refuses any call that is not `token.transfer` with zero value, so a
 * delegation holding it cannot also swap, and cannot spend native gas. Runway, gas and actions are
 * therefore separate delegations, each carrying the shared Bardo caveats (the phase gate with its life
 * window, ...).
 * Each is checked by the tree (no contradictions, never empty) and returned unsigned; sign with
 * `tree.sign(hash, smartAccountSigner(owner))`.
 */
export function buildGolemDelegation(params: BuildGolemDelegationParameters): GolemGrant {
  const { tree, owner, golem, bardo } = params
  if (!params.runway && !params.gas && !params.actions) {
    throw new DelegationShapeError('runway|gas|actions', 'at least one is required: a Golem grant with nothing in it is not a grant')
  }
  requireGolemCaveats('bardo', bardo, golem)
  const environment = tree.environment
  const salt = () => params.salt ?? generateSalt()
  const built: { slot: keyof GolemGrant; delegation: Delegation }[] = []

  if (params.runway) {
    const r = params.runway
    built.push({ slot: 'runway', delegation: 
      createDelegation({
        environment,
        from: owner,
        to: golem,
        scope: { type: 'erc20PeriodTransfer', tokenAddress: r.token, periodAmount: r.periodAmount, periodDuration: r.periodDuration, startDate: r.startDate },
        caveats: extraCaveats(tree, [...bardo, ...(r.bardo ?? [])], r.caveats),
        salt: salt(),
      }),
    })
  }
  if (params.gas) {
    const g = params.gas
    const recipients = g.recipients ?? [golem]
    built.push({ slot: 'gas', delegation: 
      createDelegation({
        environment,
        from: owner,
        to: golem,
        scope: { type: 'nativeTokenPeriodTransfer', periodAmount: g.periodAmount, periodDuration: g.periodDuration, startDate: g.startDate },
        caveats: extraCaveats(tree, [...bardo, ...(g.bardo ?? [])], [{ type: 'allowedTargets', targets: [...recipients] }, ...(g.caveats ?? [])]),
        salt: salt(),
      }),
    })
  }
  if (params.actions) {
    const a = params.actions
    const limit: StandardCaveat[] = a.maxCalls === undefined ? [] : [{ type: 'limitedCalls', limit: BigInt(a.maxCalls) }]
    built.push({ slot: 'actions', delegation: 
      createDelegation({
        environment,
        from: owner,
        to: golem,
        scope: { type: 'functionCall', targets: [...a.targets], selectors: [...a.selectors], valueLte: { maxValue: a.maxValue ?? 0n } },
        caveats: extraCaveats(tree, [...bardo, ...(a.bardo ?? [])], [...limit, ...(a.caveats ?? [])]),
        salt: salt(),
      }),
    })
  }
  // All or nothing: check every delegation before any joins the tree.
  for (const { delegation } of built) tree.check(delegation)
  const grant: GolemGrant = {}
  for (const { slot, delegation } of built) grant[slot] = { hash: tree.add(delegation), delegation }
  return grant
}
