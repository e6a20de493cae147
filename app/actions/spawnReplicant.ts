// A Thriving Golem spawns a Replicant through the action path. Custody judges the request off-chain
// first (the parent's phase as its GolemPhase caveat would, every bound within the parent's: a refusal
// writes nothing), then, once per request id (a store slot claimed before anything is issued): issues the
// Replicant a key of its own the way the deployment issues Golems' keys, builds the strictly narrower
// sub-delegation of the parent's runway and has the parent's key sign it, has the operator register the
// Replicant's key on the VitalityOracle and front its first gas (as onboarding does for a Golem), and
// records the Replicant as a Golem of its own, linked to its parent and due at once, and on the parent's
// profile, whose death protocol disables it.
import type { Delegation } from '@metamask/smart-accounts-kit'
import { encodeFunctionData, isAddressEqual, type Address, type Hex } from 'viem'
import { IPriceFeedAbi, VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import {
  ActionRequestError,
  priceError,
  refusalOf,
  replicantIdOf,
  replicantTermsOf,
  spawnRefusal,
  toUsd,
  type ActionRefusal,
  type SpawnReplicantRequest,
} from '../../core/actions/index.ts'
import { decodeDelegationCaveats } from '../../core/caveats/caveat.ts'
import type { TokenFeed } from '../../core/caveats/types.ts'
import type { KeyIssuer } from '../../core/custody/keyIssuer.ts'
import type { SignerResolver } from '../../core/custody/signerResolver.ts'
import { DelegationTree, buildReplicantDelegation, signedDelegationSigner } from '../../core/delegations/index.ts'
import { DelegationShapeError, DelegationTreeError } from '../../core/delegations/errors.ts'
import type { BardoDeployment } from '../../core/deployment.ts'
import type { Phase } from '../../core/lifecycle/phase.ts'
import { parseGolemProfile, serializeGolemProfile, toDelegations, type GolemProfile } from '../../core/lifecycle/profile.ts'
import { periodCaveatOf } from '../../core/permissions/golemGrants.ts'
import type { GolemRecord, SlotRef, Store } from '../../core/store/index.ts'
import type { TransactionSender } from '../../adapters/chain/serialSender.ts'
import type { PublicClient } from 'viem'
import { GAS_BOOTSTRAP } from '../../core/lifecycle/gasPlan.ts'
import { isHalted } from '../../core/lifecycle/heartbeatAnomaly.ts'

/** What spawning needs beyond the action path: the deployment's key issuer, its operator, the USD feeds. */
export type ReplicantSpawning = {
  /** Issues the Replicant's key the way the deployment issues Golems' keys (memory locally, KMS on AWS). */
  keys: KeyIssuer
  /** The operator's transactions: the Replicant's registration on the VitalityOracle and its first gas. */
  operator: TransactionSender
  /** The price feeds (and the oldest price they may give) that value the Replicant's budget in USD. */
  usdCaps: () => Promise<{ feeds: readonly TokenFeed[]; maxPriceAge: number }>
  /** ETH the operator sends the Replicant's key for its first transactions; default onboarding's bootstrap. */
  gasBootstrap?: bigint
}

export type SpawnReplicantDeps = {
  store: Store
  client: PublicClient
  deployment: BardoDeployment
  signers: SignerResolver
  invocationId: string
  leaseMs?: number
  replicants: ReplicantSpawning
}

export type SpawnOutcome =
  | {
      status: 'spawned'
      requestId: string
      replicantId: string
      replicantKey: Address
      delegationHash: Hex
      delegation: Delegation
      /** The sub-delegation's hard deadline (unix seconds), never past the parent's. */
      expiresAt: bigint
      /** True when this request id had spawned it already: nothing was issued or signed again. */
      duplicate: boolean
    }
  | { status: 'refused'; requestId: string; refusal: ActionRefusal; checkedBy: 'custody' }
  | { status: 'pending'; requestId: string; reason: string }

/** The slot that makes a request id spawn at most once. */
export const spawnSlot = (golemId: string, requestId: string): SlotRef => ({ golemId, period: 0n, step: `spawn_${requestId}` })

const SPAWN_LEASE_MS = 120_000

/**
 * Spawns the Replicant `request` asks for, for the parent `golem` (the action path checked the request id). Bad input throws ActionRequestError naming the field; a parent that may
 * not spawn is `refused` in the chain's words; neither writes anything.
 */
export async function spawnReplicant(
  deps: SpawnReplicantDeps,
  input: { golem: GolemRecord; requestId: string; request: SpawnReplicantRequest },
): Promise<SpawnOutcome> {
  const { store, client, deployment } = deps
  const { golem, requestId, request } = input
  const parentId = golem.golemId
  const replicantId = replicantIdOf(parentId, requestId)
  const earlier = await spawnedBefore(deps, parentId, replicantId, requestId)
  if (earlier) return earlier
  if (golem.status !== 'alive') throw new ActionRequestError('golemId', `names a ${golem.status} Golem: it spawns no Replicants`)
  if (isHalted(golem.lastTick))
    throw new ActionRequestError('golemId', 'names a Golem the heartbeat anomaly halted: it spawns no Replicants')

  const parent = parseGolemProfile(golem.profile)
  const caveats = parent.runway.chain.flatMap((d) => decodeDelegationCaveats(d, deployment, deployment.environment))
  const caps = await deps.replicants.usdCaps()
  const feed = caps.feeds.find((f) => isAddressEqual(f.token, parent.runway.token))
  if (!feed)
    throw new ActionRequestError('actions[0]', `cannot be valued: the runway token ${parent.runway.token} has no USD price feed here`)
  const [block, [registered, phase], round, feedDecimals] = await Promise.all([
    client.getBlock(),
    client.readContract({ address: deployment.vitalityOracle, abi: VitalityOracleAbi, functionName: 'getPhase', args: [parent.golemKey] }),
    client.readContract({ address: feed.feed, abi: IPriceFeedAbi, functionName: 'latestRoundData' }),
    client.readContract({ address: feed.feed, abi: IPriceFeedAbi, functionName: 'decimals' }),
  ])
  const now = block.timestamp
  const refused = spawnRefusal({ golemKey: parent.golemKey, registered, phase: phase as Phase, caveats })
  if (refused) return { status: 'refused', requestId, refusal: refused, checkedBy: 'custody' }
  const reading = { answer: round[1], updatedAt: round[3], decimals: Number(feedDecimals) }
  const stale = priceError(feed.feed, reading, caps.maxPriceAge, now)
  if (stale) return { status: 'refused', requestId, refusal: refusalOf(stale, { pricedBy: 'replicantBudget' }), checkedBy: 'custody' }
  const terms = replicantTermsOf({
    request,
    parentId,
    requestId,
    parent,
    now,
    usdOf: (amount) => toUsd(amount, reading.answer, feed.decimals, reading.decimals),
  })

  // The tree checks the child within every ancestor; a grant that allows no sub-delegation is refused here.
  const tree = new DelegationTree({ environment: deployment.environment, deployment, now: () => now })
  const parentHash = tree.addGranted(toDelegations(parent.runway.chain))
  const draftFor = (replicant: Address) =>
    buildReplicantDelegation({
      tree,
      parent: parentHash,
      replicant,
      budget: { maxBudgetUsd: terms.budgetUsd, maxLifespanSeconds: terms.lifespanSeconds, maxPriceAge: caps.maxPriceAge, feeds: [feed] },
      maxCalls: terms.maxCalls,
      window: terms.window,
      runway: {
        token: parent.runway.token,
        periodAmount: terms.dailyRunway,
        periodDuration: Number(parent.runway.periodDuration),
        startDate: Number(now),
      },
    })
  // A dry run on a placeholder key: a grant that cannot carry a Replicant is refused before any key exists.
  const closed = shapeRefusal(() => draftFor('0x000000000000000000000000000000000000dEaD'))
  if (closed) return { status: 'refused', requestId, refusal: closed, checkedBy: 'custody' }

  const slot = spawnSlot(parentId, requestId)
  const nowMs = Number(now) * 1000
  const claim = await store.claimSlot({ ...slot, owner: deps.invocationId, now: nowMs, leaseMs: deps.leaseMs ?? SPAWN_LEASE_MS })
  if (!claim.claimed) {
    const again = await spawnedBefore(deps, parentId, replicantId, requestId)
    return again ?? { status: 'pending', requestId, reason: 'another invocation is spawning this Replicant' }
  }
  try {
    const key = await deps.replicants.keys.issue({ golemId: replicantId, role: 'golem', expiresAt: terms.window.endTime, now })
    const draft = draftFor(key.address)
    const { signer } = await deps.signers.resolve(parent)
    const delegation = await tree.sign(draft.hash, signedDelegationSigner(signer))
    await registerKey(deps, key.address)
    const profile = replicantProfileOf({
      deployment,
      parent,
      parentId,
      requestId,
      key,
      hash: draft.hash,
      delegation,
      dailyRunway: terms.dailyRunway,
      now,
      expiresAt: terms.window.endTime,
    })
    await recordReplicant(store, { replicantId, owner: golem.owner, profile, nowMs })
    await listOnParent(store, parentId, { hash: draft.hash, delegation, golemId: replicantId }, nowMs)
    await store.completeSlot({ ...slot, owner: deps.invocationId, outcome: 'reconciled', now: nowMs })
    return {
      status: 'spawned',
      requestId,
      replicantId,
      replicantKey: key.address,
      delegationHash: draft.hash,
      delegation,
      expiresAt: terms.window.endTime,
      duplicate: false,
    }
  } catch (error) {
    // Nothing was recorded: a retry of the request may claim the slot again.
    await store.releaseSlot({ ...slot, owner: deps.invocationId, now: nowMs }).catch(() => null)
    throw error
  }
}

/** The Replicant a request id spawned already, made sure to be listed on its parent (a spawn cut short). */
async function spawnedBefore(
  deps: SpawnReplicantDeps,
  parentId: string,
  replicantId: string,
  requestId: string,
): Promise<SpawnOutcome | undefined> {
  const record = await deps.store.getGolem(replicantId)
  if (!record) return undefined
  const profile = parseGolemProfile(record.profile)
  if (profile.parent?.golemId !== parentId || profile.parent.requestId !== requestId)
    throw new ActionRequestError('requestId', `names Golem ${replicantId}, which another request spawned`)
  const leaf = profile.runway.chain[0]!
  await listOnParent(
    deps.store,
    parentId,
    { hash: profile.parent.delegationHash, delegation: leaf, golemId: replicantId },
    record.updatedAt,
  )
  return {
    status: 'spawned',
    requestId,
    replicantId,
    replicantKey: profile.golemKey,
    delegationHash: profile.parent.delegationHash,
    delegation: { ...leaf },
    expiresAt: profile.runway.expiresAt,
    duplicate: true,
  }
}

/** A shape the tree refuses for the parent's grant (no sub-delegation in any phase), as a refusal. */
function shapeRefusal(build: () => unknown): ActionRefusal | undefined {
  try {
    build()
    return undefined
  } catch (error) {
    if (!(error instanceof DelegationShapeError || error instanceof DelegationTreeError)) throw error
    if (error.field !== 'parent') throw new ActionRequestError('actions[0]', error.message)
    return { caveat: 'golemPhase', error: 'SubdelegationNotAllowed', args: [], reason: `golemPhase: ${error.message}`, call: 0 }
  }
}

/** The operator registers the Replicant's key (unless a retry already did) and fronts its first gas. */
async function registerKey(deps: SpawnReplicantDeps, key: Address): Promise<void> {
  const { client, deployment } = deps
  const [registered] = await client.readContract({
    address: deployment.vitalityOracle,
    abi: VitalityOracleAbi,
    functionName: 'getPhase',
    args: [key],
  })
  if (!registered)
    await deps.replicants.operator.send({
      to: deployment.vitalityOracle,
      data: encodeFunctionData({ abi: VitalityOracleAbi, functionName: 'registerGolem', args: [key] }),
    })
  const bootstrap = deps.replicants.gasBootstrap ?? GAS_BOOTSTRAP
  if (bootstrap > 0n && (await client.getBalance({ address: key })) < bootstrap)
    await deps.replicants.operator.send({ to: key, value: bootstrap })
}

/**
 * The Replicant's custody profile: a Golem whose runway is its slice, redeemed through the chain
 * [replicant, ...the parent's runway chain] (leaf first), its period caveat the sub-delegation's own, its
 * life from now to the sub-delegation's end. The owner's nonce on the parent's grant revokes it too.
 */
export function replicantProfileOf(p: {
  deployment: BardoDeployment
  parent: GolemProfile
  parentId: string
  requestId: string
  key: { address: Address; signer: GolemProfile['signer'] }
  hash: Hex
  delegation: Delegation
  dailyRunway: bigint
  now: bigint
  expiresAt: bigint
}): GolemProfile {
  const runway = p.parent.runway
  return {
    v: 1,
    chainId: p.parent.chainId,
    golemKey: p.key.address,
    signer: p.key.signer,
    runway: {
      chain: [p.delegation, ...runway.chain],
      token: runway.token,
      periodAmount: p.dailyRunway,
      periodDuration: runway.periodDuration,
      periodStart: p.now,
      periodDelegationHash: p.hash,
      periodTerms: periodCaveatOf(p.delegation, p.deployment.environment.caveatEnforcers.ERC20PeriodTransferEnforcer, 'runway'),
      chainHashes: [p.hash, ...runway.chainHashes],
      expiresAt: p.expiresAt,
      ...(runway.nonce ? { nonce: runway.nonce } : {}),
    },
    renewals: [],
    life: { bornAt: p.now, runwayEndsAt: p.expiresAt, runwayTotalSeconds: p.expiresAt - p.now, lastInsightAt: p.now },
    replicants: [],
    parent: { golemId: p.parentId, delegationHash: p.hash, requestId: p.requestId },
    known: { revokedReported: false, expiringWarned: false, budgetWarnedPeriod: null },
  }
}

/** The Replicant's own record, due at once so the next heartbeat ticks it, and its DelegationGranted event. */
async function recordReplicant(store: Store, r: { replicantId: string; owner: Address; profile: GolemProfile; nowMs: number }) {
  const created = await store.createGolem({
    golemId: r.replicantId,
    owner: r.owner,
    sessionKeyAddress: r.profile.golemKey,
    custodyMode: 'Delegation',
    profile: serializeGolemProfile(r.profile),
    phase: 'Thriving',
    nextTickAt: r.nowMs,
    now: r.nowMs,
  })
  if (!created.created) throw new ActionRequestError('requestId', `names Golem ${r.replicantId}, which exists already`)
  await store.appendEvent({
    golemId: r.replicantId,
    type: 'DelegationGranted',
    at: r.nowMs,
    eventId: 'DelegationGranted',
    data: {
      delegationHash: r.profile.runway.periodDelegationHash,
      caveats: r.profile.runway.chain[0]!.caveats.map((c) => c.enforcer),
      expiresAt: r.profile.runway.expiresAt.toString(),
      parent: r.profile.parent!.golemId,
    },
  })
}

/** Lists the sub-delegation on the parent's profile once (by hash), conditional on the record's version. */
async function listOnParent(
  store: Store,
  parentId: string,
  entry: { hash: Hex; delegation: Delegation; golemId: string },
  nowMs: number,
): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const record = await store.getGolem(parentId)
    if (!record) return
    const profile = parseGolemProfile(record.profile)
    if (profile.replicants.some((r) => r.hash.toLowerCase() === entry.hash.toLowerCase())) return
    const updated = await store.updateGolem({
      golemId: parentId,
      expectedVersion: record.version,
      patch: { profile: serializeGolemProfile({ ...profile, replicants: [...profile.replicants, entry] }) },
      now: nowMs,
    })
    if (updated.updated) return
  }
  throw new ActionRequestError(
    'golemId',
    `names a Golem whose record kept changing: the Replicant is recorded, retry to list it on ${parentId}`,
  )
}
