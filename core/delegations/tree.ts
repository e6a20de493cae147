import { ANY_BENEFICIARY, ROOT_AUTHORITY, type Delegation, type SmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import { hashDelegation } from '@metamask/smart-accounts-kit/utils'
import { isAddressEqual, type Hex } from 'viem'
import { findAttenuationViolation, type AncestorCaveats } from '../caveats/attenuation.ts'
import { decodeDelegationCaveats, type DecodedCaveat } from '../caveats/caveat.ts'
import { findContradiction } from '../caveats/contradictions.ts'
import { findObserverViolation } from '../caveats/observerScope.ts'
import type { Labels } from '../caveats/format.ts'
import type { BardoDeployment } from '../caveats/types.ts'
import { DelegationTreeError } from './errors.ts'
import type { DelegationSigner, UnsignedDelegation } from './signers.ts'

export type DelegationTreeOptions = {
  environment: SmartAccountsEnvironment
  deployment: BardoDeployment
  /** Chain time in unix seconds; windows that already ended are refused. */
  now: () => bigint
  /** Token and target names for readable refusals. */
  labels?: Labels
}

export type DelegationNode = {
  readonly hash: Hex
  readonly delegation: Delegation
  readonly caveats: readonly DecodedCaveat[]
  /** Hash of the parent node, absent for a root (authority ROOT_AUTHORITY). */
  readonly parent?: Hex
  /** Granted elsewhere (an ERC-7715 permission context): taken as signed, never re-signed here. */
  readonly granted: boolean
  /** A read-only observer delegation: it, and everything re-delegated under it, may only publish to the oracles. */
  readonly observer?: boolean
}

/** How a delegation joins the tree: `observer` holds it (and every descendant) to the read-only observer rule. */
export type DelegationCheckOptions = { observer?: boolean }

const isRoot = (d: Pick<Delegation, 'authority'>) => d.authority.toLowerCase() === ROOT_AUTHORITY.toLowerCase()
const unsigned = (d: Delegation): UnsignedDelegation => ({
  delegate: d.delegate,
  delegator: d.delegator,
  authority: d.authority,
  caveats: d.caveats,
  salt: d.salt,
})

/**
 * The delegations a Golem's authority is made of, keyed by their hash (the kit's hashDelegation). A
 * delegation enters only through `add`, which checks it (no empty or contradictory caveats, a child
 * within every ancestor), and is signed only through `sign`, which checks it again at signing time.
 */
export class DelegationTree {
  readonly environment: SmartAccountsEnvironment
  readonly deployment: BardoDeployment
  readonly labels: Labels
  readonly #now: () => bigint
  readonly #nodes = new Map<string, DelegationNode>()

  constructor(options: DelegationTreeOptions) {
    this.environment = options.environment
    this.deployment = options.deployment
    this.labels = options.labels ?? {}
    this.#now = options.now
  }

  /** The injected clock, for shapes that default a window to "from now". */
  nowSeconds(): bigint {
    return this.#now()
  }

  /** The EIP-712 struct hash the DelegationManager uses (signature excluded). */
  hash(delegation: UnsignedDelegation | Delegation): Hex {
    return hashDelegation({ ...delegation, signature: '0x' })
  }

  get(hash: Hex): DelegationNode | undefined {
    return this.#nodes.get(hash.toLowerCase())
  }

  nodes(): DelegationNode[] {
    return [...this.#nodes.values()]
  }

  children(hash: Hex): DelegationNode[] {
    return this.nodes().filter((n) => n.parent?.toLowerCase() === hash.toLowerCase())
  }

  /** Ancestors of a delegation that is (or would be) a child of `authority`, nearest first. */
  #ancestors(authority: Hex): DelegationNode[] {
    const out: DelegationNode[] = []
    let at = isRoot({ authority }) ? undefined : this.get(authority)
    while (at) {
      out.push(at)
      at = at.parent ? this.get(at.parent) : undefined
    }
    return out
  }

  /**
   * Checks a delegation against the tree without adding it. Throws DelegationTreeError for structure,
   * InvalidTermsError for undecodable terms, ObserverScopeError (an observer delegation, or one under
   * it, that allows more than publishing), ContradictionError, or AttenuationError. Returns its caveats.
   */
  check(delegation: UnsignedDelegation | Delegation, options: DelegationCheckOptions = {}): DecodedCaveat[] {
    if (isAddressEqual(delegation.delegate, ANY_BENEFICIARY)) {
      throw new DelegationTreeError('delegate', 'is ANY_BENEFICIARY (an open delegation); Bardo signs only delegations to a named delegate')
    }
    let parent: DelegationNode | undefined
    if (!isRoot(delegation)) {
      parent = this.get(delegation.authority)
      if (!parent)
        throw new DelegationTreeError('authority', `${delegation.authority} names no delegation in this tree; add the parent first`)
      const parentDelegate = parent.delegation.delegate
      if (!isAddressEqual(parentDelegate, ANY_BENEFICIARY) && !isAddressEqual(parentDelegate, delegation.delegator)) {
        throw new DelegationTreeError('delegator', `${delegation.delegator} is not the parent's delegate ${parentDelegate}`)
      }
    }
    const caveats = decodeDelegationCaveats(delegation, this.deployment, this.environment)
    const ancestors = parent ? this.#ancestors(delegation.authority) : []
    if (options.observer === true || ancestors.some((a) => a.observer)) {
      // The redemption runs as the chain's root delegator, so a call to that account is as wide as a call to this delegator.
      const root = ancestors.at(-1)?.delegation.delegator ?? delegation.delegator
      const violation = findObserverViolation(caveats, {
        deployment: this.deployment,
        delegationManager: this.environment.DelegationManager,
        delegators: [delegation.delegator, root],
        labels: this.labels,
      })
      if (violation) throw violation
    }
    const contradiction = findContradiction(caveats, {
      now: this.#now(),
      inherited: ancestors.flatMap((a) => a.caveats),
      labels: this.labels,
    })
    if (contradiction) throw contradiction
    const layers: AncestorCaveats[] = ancestors.map((a, i) => ({ relation: i === 0 ? 'parent' : 'ancestor', caveats: a.caveats }))
    const violation = findAttenuationViolation(caveats, layers, this.labels)
    if (violation) throw violation
    return caveats
  }

  /**
   * Checks and adds a delegation this system will sign; returns its hash. Adding the same one twice is a
   * no-op; adding as an observer one that is already in the tree as something else is refused.
   */
  add(delegation: UnsignedDelegation | Delegation, options: DelegationCheckOptions = {}): Hex {
    const hash = this.hash(delegation)
    const existing = this.get(hash)
    if (existing) {
      if (options.observer === true && existing.observer !== true)
        throw new DelegationTreeError('hash', `${hash} is already in the tree as a delegation that is not an observer's`)
      return hash
    }
    const caveats = this.check(delegation, options)
    const node: DelegationNode = {
      hash,
      delegation: { ...delegation, signature: 'signature' in delegation ? delegation.signature : '0x' },
      caveats,
      ...(isRoot(delegation) ? {} : { parent: delegation.authority }),
      granted: false,
      ...(options.observer === true ? { observer: true } : {}),
    }
    this.#nodes.set(hash.toLowerCase(), node)
    return hash
  }

  /**
   * Adds a chain someone else signed (the permission context of an ERC-7715 grant, leaf first). Its
   * caveats are decoded so children can be checked against them; they are not judged here, because the
   * owner already signed them. Returns the leaf's hash.
   */
  addGranted(context: readonly Delegation[]): Hex {
    if (context.length === 0) throw new DelegationTreeError('context', 'must hold at least one delegation')
    let leaf: Hex | undefined
    for (const delegation of [...context].reverse()) {
      if (delegation.signature === '0x')
        throw new DelegationTreeError('context', `delegation ${this.hash(delegation)} is unsigned; a granted chain arrives signed`)
      const hash = this.hash(delegation)
      if (!isRoot(delegation) && !this.get(delegation.authority)) {
        throw new DelegationTreeError(
          'context',
          `delegation ${hash} names parent ${delegation.authority}, which is not earlier in the chain`,
        )
      }
      if (!this.get(hash)) {
        const caveats = decodeDelegationCaveats(delegation, this.deployment, this.environment)
        this.#nodes.set(hash.toLowerCase(), {
          hash,
          delegation,
          caveats,
          ...(isRoot(delegation) ? {} : { parent: delegation.authority }),
          granted: true,
        })
      }
      leaf = hash
    }
    return leaf!
  }

  /** The redemption chain for a node, leaf first and root last: what redeemDelegations takes. */
  chain(hash: Hex): Delegation[] {
    const node = this.get(hash)
    if (!node) throw new DelegationTreeError('hash', `${hash} names no delegation in this tree`)
    return [node, ...this.#ancestors(node.delegation.authority)].map((n) => n.delegation)
  }

  /**
   * Signs a node through the caller's signer after checking it again against the current time, stores
   * the signature and returns the signed delegation. A granted node is never re-signed.
   */
  async sign(hash: Hex, signer: DelegationSigner): Promise<Delegation> {
    const node = this.get(hash)
    if (!node) throw new DelegationTreeError('hash', `${hash} names no delegation in this tree`)
    if (node.granted) throw new DelegationTreeError('hash', `${hash} was granted already signed; it is not signed again`)
    this.check(node.delegation, node.observer === true ? { observer: true } : {})
    const signature = await signer(unsigned(node.delegation))
    const signed: Delegation = { ...node.delegation, signature }
    this.#nodes.set(hash.toLowerCase(), { ...node, delegation: signed })
    return signed
  }

  /** Drops an unsigned node without children (an abandoned draft). Signed or granted nodes stay. */
  remove(hash: Hex): void {
    const node = this.get(hash)
    if (!node) return
    if (node.granted || this.isSigned(hash))
      throw new DelegationTreeError('hash', `${hash} is signed; disable it on-chain instead of forgetting it`)
    if (this.children(hash).length > 0) throw new DelegationTreeError('hash', `${hash} has children; remove them first`)
    this.#nodes.delete(hash.toLowerCase())
  }

  /** Whether a node has a signature (signed here or granted). */
  isSigned(hash: Hex): boolean {
    return (this.get(hash)?.delegation.signature ?? '0x') !== '0x'
  }
}
