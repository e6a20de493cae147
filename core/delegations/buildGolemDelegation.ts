import { createDelegation, type Caveat, type Delegation } from '@metamask/smart-accounts-kit'
import { generateSalt } from '@metamask/smart-accounts-kit/utils'
import { getAddress, isAddress, isAddressEqual, pad, toFunctionSelector, zeroAddress, type Address, type Hex } from 'viem'
import { toAnyCaveat, toCaveat, type StandardCaveat } from '../caveats/caveat.ts'
import { lifeWindowOf } from '../caveats/semantics.ts'
import { MAX_RUNWAY_TIME, type BardoCaveat } from '../caveats/types.ts'
import { BRIDGE_PIN_RULE, CCTP_PINNED_WORDS, layoutOfSelector, receiverOffsets } from '../permissions/callLayouts.ts'
import { SELECTORS } from '../permissions/selectors.ts'
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
/**
 * Calls from the owner's account: AllowedTargets + AllowedMethods + ValueLte (the `functionCall` scope),
 * one AllowedCalldata pin per receiver word (the owner's account) and per fixed word, LimitedCalls.
 */
export type ActionsSlot = {
  /** For people: "Swap: exactInputSingle". Default: the selectors. */
  name?: string
  targets: readonly Address[]
  selectors: readonly Hex[]
  /**
   * Byte offsets (selector included) of the ABI words that name who receives the output; each is pinned
   * to the owner's smart account. Every call of the slot must have its receivers exactly here.
   */
  receivers?: readonly number[]
  /** Words pinned to a constant so the receivers are read where they are pinned (exactInput's tuple offset). */
  calldata?: readonly CalldataPin[]
  maxValue?: bigint
  maxCalls?: number
  bardo?: readonly BardoCaveat[]
  caveats?: readonly StandardCaveat[]
}

/**
 * ERC-20 approvals for one spender: AllowedTargets(tokens), AllowedMethods(approve), ValueLte(0) (the
 * `functionCall` scope) and AllowedCalldata pinning approve's first argument to `spender`.
 */
export type ApprovalsSlot = {
  spender: Address
  /** The tokens `spender` may be approved to pull (the delegation's targets). */
  tokens: readonly Address[]
  bardo?: readonly BardoCaveat[]
  caveats?: readonly StandardCaveat[]
}

export const APPROVE_SELECTOR: Hex = toFunctionSelector('function approve(address,uint256)')
/** Allowance setters an actions delegation may not hold: with them a leaked key could name any spender. */
const ALLOWANCE_SELECTORS: readonly { selector: Hex; name: string }[] = [
  { selector: APPROVE_SELECTOR, name: 'approve' },
  { selector: toFunctionSelector('function increaseAllowance(address,uint256)'), name: 'increaseAllowance' },
]

export type CalldataPin = { startIndex: number; value: Hex }

/** The AllowedCalldata pin of `approve(spender, amount)`: the spender's ABI word, right after the 4-byte selector. */
export function approveSpenderPin(spender: Address): { startIndex: number; value: Hex } {
  return { startIndex: 4, value: pad(spender.toLowerCase() as Hex, { size: 32 }) }
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
  /** One delegation per receiver layout (compileStrategy's `plan.actions` is this list). */
  actions?: readonly ActionsSlot[]
  /** One delegation per spender; a spender appears once, with every token it may be approved for. */
  approvals?: readonly ApprovalsSlot[]
  /** Salt for every delegation of the grant (they differ by caveats); default a fresh random salt each. */
  salt?: Hex
}

export type ApprovalDelegation = GrantedDelegation & { spender: Address; tokens: Address[] }
/** An actions delegation and its AllowedCalldata pins (receivers resolved to the owner's word, fixed words as given). */
export type ActionDelegation = GrantedDelegation & { name: string; targets: Address[]; selectors: Hex[]; pins: CalldataPin[] }
export type GolemGrant = {
  runway?: GrantedDelegation
  gas?: GrantedDelegation
  actions?: ActionDelegation[]
  approvals?: ApprovalDelegation[]
}

/**
 * Every Golem delegation carries its phase gate and its death deadline: the promise to the owner. The
 * deadline is golemPhase's window (Bardo's shape: one caveat, one hook overhead) or, as delegations
 * signed before it, a separate mortalityTimeWindow.
 */
export function requireGolemCaveats(field: string, bardo: readonly BardoCaveat[], golem: Address): void {
  if (!bardo.some((c) => c.type === 'golemPhase' && isAddressEqual(c.golem, golem))) {
    throw new DelegationShapeError(
      field,
      `must include a golemPhase caveat for the Golem ${golem}, so it cannot act out of phase or after death`,
    )
  }
  if (!bardo.some((c) => lifeWindowOf(c) !== undefined)) {
    throw new DelegationShapeError(
      field,
      'must give the Golem a hard deadline: a window on its golemPhase caveat (startTime and endTime) or a mortalityTimeWindow caveat',
    )
  }
}

/**
 * The Bardo caveats of a delegation that only moves funds (the runway and gas slots, a 7715 runway
 * re-delegation): the Golem's golemPhase carrying a window, with the default masks, becomes runway terms.
 * They allow exactly what the table allows such a delegation (a plain transfer, in Thriving to Declining),
 * in one word of terms and without the selector-table read, which every runway redemption would pay for.
 * Custom masks, or a bound past what a uint48 holds, keep the table's terms.
 */
export function runwayGates(bardo: readonly BardoCaveat[], golem: Address): BardoCaveat[] {
  return bardo.map((c) =>
    c.type === 'golemPhase' &&
    isAddressEqual(c.golem, golem) &&
    c.phaseMasks === undefined &&
    c.startTime !== undefined &&
    c.endTime <= MAX_RUNWAY_TIME
      ? { ...c, runway: true }
      : c,
  )
}

export function extraCaveats(tree: DelegationTree, bardo: readonly BardoCaveat[], standard: readonly StandardCaveat[] = []): Caveat[] {
  return [...standard.map((c) => toAnyCaveat(c, tree.deployment, tree.environment)), ...bardo.map((c) => toCaveat(c, tree.deployment))]
}

function checkAddress(field: string, value: unknown): Address {
  if (typeof value !== 'string' || !isAddress(value) || isAddressEqual(value, zeroAddress)) {
    throw new DelegationShapeError(
      field,
      `must be a non-zero 20-byte hex address (checksum-valid if mixed case), got ${JSON.stringify(value)}`,
    )
  }
  return getAddress(value)
}

/** Token movers an actions delegation may not hold: AllowedMethods cannot pin the recipient. */
const TRANSFER_SELECTORS: readonly { selector: Hex; name: string }[] = [
  { selector: toFunctionSelector('function transfer(address,uint256)'), name: 'transfer' },
  { selector: toFunctionSelector('function transferFrom(address,address,uint256)'), name: 'transferFrom' },
]

const sortedNumbers = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)
const sameNumbers = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x, i) => x === b[i])

/** The slot's AllowedCalldata pins: the owner's word at each receiver, then the fixed words. */
function checkActions(a: ActionsSlot, i: number, owner: Address): CalldataPin[] {
  const field = `actions[${i}]`
  if (!Array.isArray(a.targets) || a.targets.length === 0)
    throw new DelegationShapeError(`${field}.targets`, 'must list at least one target')
  if (!Array.isArray(a.selectors) || a.selectors.length === 0)
    throw new DelegationShapeError(`${field}.selectors`, 'must list at least one selector')
  for (const { selector, name } of ALLOWANCE_SELECTORS) {
    if (a.selectors.some((s) => s.toLowerCase() === selector)) {
      throw new DelegationShapeError(
        `${field}.selectors`,
        `must not include ${name} (${selector}): AllowedMethods cannot pin the spender, so a leaked key could approve anyone; put approvals in \`approvals\`, one delegation per spender`,
      )
    }
  }
  for (const { selector, name } of TRANSFER_SELECTORS) {
    if (a.selectors.some((s) => s.toLowerCase() === selector)) {
      throw new DelegationShapeError(
        `${field}.selectors`,
        `must not include ${name} (${selector}): token movement from the owner's account goes through the runway's capped delegation (\`runway\`), and AllowedMethods cannot pin the recipient, so a leaked key could send the tokens anywhere`,
      )
    }
  }
  const receivers = sortedNumbers(a.receivers ?? [])
  const fixed = [...(a.calldata ?? [])].sort((x, y) => x.startIndex - y.startIndex)
  const offsets = [...receivers, ...fixed.map((p) => p.startIndex)]
  for (const o of offsets) {
    if (!Number.isSafeInteger(o) || o < 4)
      throw new DelegationShapeError(
        `${field}.receivers`,
        `a pinned word must start at a whole byte offset of at least 4 (after the selector), got ${String(o)}`,
      )
  }
  const twice = offsets.find((o, k) => offsets.indexOf(o) !== k)
  if (twice !== undefined)
    throw new DelegationShapeError(
      `${field}.receivers`,
      `byte ${twice} is pinned twice; a word is either a receiver (the owner) or a fixed value`,
    )
  for (const [k, p] of fixed.entries()) {
    if (typeof p.value !== 'string' || !/^0x([0-9a-fA-F]{2})+$/.test(p.value))
      throw new DelegationShapeError(`${field}.calldata[${k}].value`, `must be non-empty hex bytes, got ${JSON.stringify(p.value)}`)
  }
  // A removal's minimum amounts are free words; its bound is MaxSlippage's check of the pool's price.
  if (a.selectors.some((s) => s.toLowerCase() === SELECTORS.decreaseLiquidity) && !(a.bardo ?? []).some((c) => c.type === 'maxSlippage'))
    throw new DelegationShapeError(
      `${field}.bardo`,
      `must carry maxSlippage to include decreaseLiquidity (${SELECTORS.decreaseLiquidity}): its minimum amounts are free, so only the pool's price checked against the feeds keeps a sandwich from removing the position at a moved price`,
    )
  // Every call whose receiver layout is known must have exactly that layout here: a receiver left
  // unpinned lets a leaked key name itself; a different layout would pin the wrong bytes.
  for (const selector of a.selectors) {
    const known = layoutOfSelector(selector)
    if (known === undefined) continue
    const { name, layout } = known
    if (layout.kind === 'unpinnable')
      throw new DelegationShapeError(`${field}.selectors`, `must not include ${name} (${selector.toLowerCase()}): ${layout.why}`)
    const expected = receiverOffsets(layout)
    if (!sameNumbers(expected, receivers)) {
      const needs =
        expected.length === 0
          ? 'names no receiver, so it cannot share a delegation with receiver pins'
          : `names its receivers at bytes [${expected.join(', ')}]; they must be pinned to the owner's account`
      throw new DelegationShapeError(
        `${field}.receivers`,
        `${name} (${selector.toLowerCase()}) ${needs} (receivers is [${receivers.join(', ')}])`,
      )
    }
    // A bridge transfer's destination words are the owner's configuration, not constants: any value, but pinned.
    if (selector.toLowerCase() === SELECTORS.cctpDepositForBurn) {
      const free = Object.entries(CCTP_PINNED_WORDS).filter(([, at]) => !fixed.some((p) => p.startIndex === at))
      if (free.length > 0)
        throw new DelegationShapeError(
          `${field}.calldata`,
          `depositForBurn leaves ${free.map(([n, at]) => `${n} (byte ${at})`).join(', ')} free; ${BRIDGE_PIN_RULE}`,
        )
    }
    for (const w of layout.kind === 'receivers' ? (layout.fixed ?? []) : []) {
      if (!fixed.some((p) => p.startIndex === w.startIndex && p.value.toLowerCase() === w.value.toLowerCase())) {
        throw new DelegationShapeError(
          `${field}.calldata`,
          `${name} (${selector.toLowerCase()}) needs byte ${w.startIndex} fixed to ${w.value} (${w.argument}), or its receiver could be read from elsewhere`,
        )
      }
    }
  }
  return [
    ...receivers.map((startIndex) => ({ startIndex, value: pad(owner.toLowerCase() as Hex, { size: 32 }) })),
    ...fixed.map((p) => ({ startIndex: p.startIndex, value: p.value.toLowerCase() as Hex })),
  ]
}

function checkApprovals(slots: readonly ApprovalsSlot[], golem: Address): { spender: Address; tokens: Address[] }[] {
  const seen = new Map<string, number>()
  return slots.map((slot, i) => {
    const spender = checkAddress(`approvals[${i}].spender`, slot.spender)
    if (isAddressEqual(spender, golem)) {
      throw new DelegationShapeError(
        `approvals[${i}].spender`,
        `must not be the Golem ${golem}: an allowance to the Golem's own key would let a leaked key pull the tokens`,
      )
    }
    const earlier = seen.get(spender)
    if (earlier !== undefined)
      throw new DelegationShapeError(
        `approvals[${i}].spender`,
        `${spender} is already approvals[${earlier}]; list each spender once, with all its tokens`,
      )
    seen.set(spender, i)
    if (!Array.isArray(slot.tokens) || slot.tokens.length === 0)
      throw new DelegationShapeError(`approvals[${i}].tokens`, 'must list at least one token')
    const tokens = slot.tokens.map((t, k) => checkAddress(`approvals[${i}].tokens[${k}]`, t))
    const twice = tokens.findIndex((t, k) => tokens.indexOf(t) !== k)
    if (twice >= 0) throw new DelegationShapeError(`approvals[${i}].tokens[${twice}]`, `${tokens[twice]} is listed twice`)
    return { spender, tokens }
  })
}

/**
 * Shape 1, direct ERC-7710: the owner's smart account grants the Golem's session key its full policy.
 *
 * One grant is several sibling delegations, because the framework's period enforcers admit only
 * transfers: ERC20PeriodTransfer refuses any call that is not `token.transfer` with zero value, so a
 * delegation holding it cannot also swap, and cannot spend native gas. Runway, gas and actions are
 * therefore separate delegations, and so is each approval spender: AllowedMethods cannot say whom
 * `approve` may name, so approvals never sit in actions; each spender gets its own delegation whose
 * AllowedCalldata pins approve's first argument. All carry the shared Bardo caveats (the phase gate
 * with its life window, ...), are checked by the tree (no contradictions, never empty) and come back
 * unsigned; sign with `tree.sign(hash, smartAccountSigner(owner))`.
 */
export function buildGolemDelegation(params: BuildGolemDelegationParameters): GolemGrant {
  const { tree, owner, golem, bardo } = params
  if (!params.runway && !params.gas && !params.actions?.length && !params.approvals?.length) {
    throw new DelegationShapeError(
      'runway|gas|actions|approvals',
      'at least one is required: a Golem grant with nothing in it is not a grant',
    )
  }
  requireGolemCaveats('bardo', bardo, golem)
  const actions = (params.actions ?? []).map((a, i) => ({ slot: a, pins: checkActions(a, i, owner) }))
  const approvals = checkApprovals(params.approvals ?? [], golem)
  const environment = tree.environment
  const salt = () => params.salt ?? generateSalt()
  const built: { slot: 'runway' | 'gas'; delegation: Delegation }[] = []

  if (params.runway) {
    const r = params.runway
    built.push({
      slot: 'runway',
      delegation: createDelegation({
        environment,
        from: owner,
        to: golem,
        scope: {
          type: 'erc20PeriodTransfer',
          tokenAddress: r.token,
          periodAmount: r.periodAmount,
          periodDuration: r.periodDuration,
          startDate: r.startDate,
        },
        caveats: extraCaveats(tree, runwayGates([...bardo, ...(r.bardo ?? [])], golem), r.caveats),
        salt: salt(),
      }),
    })
  }
  if (params.gas) {
    const g = params.gas
    const recipients = g.recipients ?? [golem]
    built.push({
      slot: 'gas',
      delegation: createDelegation({
        environment,
        from: owner,
        to: golem,
        scope: {
          type: 'nativeTokenPeriodTransfer',
          periodAmount: g.periodAmount,
          periodDuration: g.periodDuration,
          startDate: g.startDate,
        },
        caveats: extraCaveats(tree, runwayGates([...bardo, ...(g.bardo ?? [])], golem), [
          { type: 'allowedTargets', targets: [...recipients] },
          ...(g.caveats ?? []),
        ]),
        salt: salt(),
      }),
    })
  }
  const actionDelegations = actions.map(({ slot: a, pins }) => {
    const limit: StandardCaveat[] = a.maxCalls === undefined ? [] : [{ type: 'limitedCalls', limit: BigInt(a.maxCalls) }]
    const delegation = createDelegation({
      environment,
      from: owner,
      to: golem,
      scope: {
        type: 'functionCall',
        targets: [...a.targets],
        selectors: [...a.selectors],
        valueLte: { maxValue: a.maxValue ?? 0n },
        ...(pins.length > 0 ? { allowedCalldata: pins } : {}),
      },
      caveats: extraCaveats(tree, [...bardo, ...(a.bardo ?? [])], [...limit, ...(a.caveats ?? [])]),
      salt: salt(),
    })
    return {
      name: a.name ?? a.selectors.join(', '),
      targets: a.targets.map((t) => getAddress(t)),
      selectors: a.selectors.map((s) => s.toLowerCase() as Hex),
      pins,
      delegation,
    }
  })
  const approvalDelegations = approvals.map(({ spender, tokens }, i) => {
    const s = params.approvals![i]!
    const delegation = createDelegation({
      environment,
      from: owner,
      to: golem,
      scope: {
        type: 'functionCall',
        targets: tokens,
        selectors: [APPROVE_SELECTOR],
        valueLte: { maxValue: 0n },
        allowedCalldata: [approveSpenderPin(spender)],
      },
      caveats: extraCaveats(tree, [...bardo, ...(s.bardo ?? [])], s.caveats),
      salt: salt(),
    })
    return { spender, tokens, delegation }
  })
  // All or nothing: check every delegation before any joins the tree.
  for (const { delegation } of [...built, ...actionDelegations, ...approvalDelegations]) tree.check(delegation)
  const grant: GolemGrant = {}
  for (const { slot, delegation } of built) grant[slot] = { hash: tree.add(delegation), delegation }
  if (actionDelegations.length > 0) grant.actions = actionDelegations.map((a) => ({ ...a, hash: tree.add(a.delegation) }))
  if (approvalDelegations.length > 0) {
    grant.approvals = approvalDelegations.map(({ spender, tokens, delegation }) => ({
      spender,
      tokens,
      hash: tree.add(delegation),
      delegation,
    }))
  }
  return grant
}
