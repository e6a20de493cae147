// The action path's edge: a Golem's runtime asks for one action or a batch (approve + swap); custody
// encodes the calls, picks the covering delegation for each, checks them against the owner's
// constitution (app/actions/actionPolicy.ts), pre-checks the caveats on one observation of the chain,
// and otherwise redeems them in one redeemDelegations transaction, exactly once per request id (a store
// slot claimed before signing: a duplicated request gets the first one's receipt, never a second
// redemption). A refusal, off-chain or from the chain's own simulation, comes back in words.
import type { Address, Hex, PublicClient, TransactionReceipt } from 'viem'
import {
  chooseDelegation,
  encodeActionCall,
  grantedActions,
  observationNeeds,
  precheckActions,
  refusalOf,
  ActionRequestError,
  type ActionCall,
  type ActionRefusal,
  type ActionRequest,
  type GrantedAction,
  type SpawnReplicantRequest,
} from '../../core/actions/index.ts'
import type { SignerResolver } from '../../core/custody/signerResolver.ts'
import { encodeRedemptions } from '../../core/delegations/index.ts'
import type { BardoDeployment } from '../../core/deployment.ts'
import { parseGolemProfile } from '../../core/lifecycle/profile.ts'
import type { SlotRef, Store } from '../../core/store/index.ts'
import { sendOnce } from '../../adapters/chain/sendOnce.ts'
import { checkActionPolicy } from './actionPolicy.ts'
import { loadActionGrant } from './actionGrantStore.ts'
import { readActionObservation } from './readActionObservation.ts'
import { isHalted } from '../../core/lifecycle/heartbeatAnomaly.ts'
import { spawnReplicant, type ReplicantSpawning, type SpawnOutcome } from './spawnReplicant.ts'

export type ExecuteActionDeps = {
  store: Store
  client: PublicClient
  deployment: BardoDeployment
  signers: SignerResolver
  /** Who holds the request's slot while it is sent (a process or invocation id). */
  invocationId: string
  /** Store time in ms; default Date.now. */
  now?: () => number
  leaseMs?: number
  /** What spawning a Replicant needs; without it a `spawnReplicant` request is refused by name. */
  replicants?: ReplicantSpawning
}

export type ExecuteActionInput = {
  golemId: string
  /** The runtime's own id for this request (1-40 letters, digits, - or _): a repeat with the same id is the same request. */
  requestId: string
  /**
   * One action, or a batch redeemed in one transaction in this order (approve before swap). A
   * `spawnReplicant` request stands alone: it signs a sub-delegation and redeems nothing.
   */
  actions: readonly (ActionRequest | SpawnReplicantRequest)[]
  /**
   * Skip custody's pre-check and let the chain judge (diagnostics and tests: the caveats still bind on
   * the chain, so this never widens what the Golem can do). Default true.
   */
  precheck?: boolean
}

export type ActionCallSummary = { kind: ActionCall['kind']; target: Address; delegation: Hex; label: string }

export type ActionOutcome =
  | {
      status: 'executed'
      requestId: string
      txHash: Hex
      receipt: TransactionReceipt
      calls: ActionCallSummary[]
      /** True when this request id had already been redeemed: the receipt is the first one's. */
      duplicate: boolean
      /** Milliseconds spent choosing and pre-checking (observation included), and redeeming (sign, send, receipt); absent on a repeat. */
      timings?: { checkMs: number; redeemMs: number }
    }
  | { status: 'refused'; requestId: string; refusal: ActionRefusal; checkedBy: 'custody' | 'chain' }
  | { status: 'failed'; requestId: string; txHash: Hex | null; reason: string }
  | { status: 'pending'; requestId: string; reason: string }
  | Extract<SpawnOutcome, { status: 'spawned' }>

const REQUEST_ID = /^[A-Za-z0-9_-]{1,40}$/
export const MAX_BATCH = 8
export const DEFAULT_ACTION_LEASE_MS = 120_000

/** The slot that makes a request id redeem at most once. */
export const actionSlot = (golemId: string, requestId: string): SlotRef => ({ golemId, period: 0n, step: `action_${requestId}` })

export async function executeAction(deps: ExecuteActionDeps, input: ExecuteActionInput): Promise<ActionOutcome> {
  const { store, client, deployment } = deps
  const { requestId } = input
  if (typeof requestId !== 'string' || !REQUEST_ID.test(requestId))
    throw new ActionRequestError('requestId', 'must be 1-40 letters, digits, - or _')
  if (!Array.isArray(input.actions) || input.actions.length === 0 || input.actions.length > MAX_BATCH)
    throw new ActionRequestError('actions', `must hold 1 to ${MAX_BATCH} actions`)
  const golem = await store.getGolem(input.golemId)
  if (!golem) throw new ActionRequestError('golemId', `names no Golem (${input.golemId})`)
  const spawn = input.actions.findIndex((a) => a?.kind === 'spawnReplicant')
  if (spawn >= 0) {
    if (input.actions.length !== 1)
      throw new ActionRequestError(`actions[${spawn}]`, 'spawnReplicant must be the only action of its request')
    if (!deps.replicants)
      throw new ActionRequestError(
        'actions[0].kind',
        'spawnReplicant is not offered by this deployment (no key issuer, operator or price feeds for Replicants)',
      )
    const request = input.actions[0] as SpawnReplicantRequest
    return spawnReplicant({ ...deps, replicants: deps.replicants }, { golem, requestId, request })
  }
  const requests = input.actions as readonly ActionRequest[]
  const slot = actionSlot(input.golemId, requestId)

  // A request already redeemed answers with its receipt before anything is checked again: the budget
  // it used would otherwise make its own repeat look over budget.
  const earlier = await previousOutcome(deps, slot, requestId)
  if (earlier) return earlier
  if (golem.status !== 'alive') throw new ActionRequestError('golemId', `names a ${golem.status} Golem: it acts no more`)
  if (isHalted(golem.lastTick))
    throw new ActionRequestError(
      'golemId',
      'names a Golem the heartbeat anomaly halted (its ticks failed too many times in a row): it acts no more',
    )

  const profile = parseGolemProfile(golem.profile)
  const calls = requests.map((r, i) => encodeActionCall(r, golem.owner, `actions[${i}]`))
  const record = await loadActionGrant(store, input.golemId)
  const grants = record ? grantedActions(record, deployment, deployment.environment) : []
  const started = performance.now()
  const items: { call: ActionCall; delegation: GrantedAction }[] = []
  for (const [i, call] of calls.entries()) {
    const chosen = chooseDelegation(grants, call, i)
    if (chosen.ok) items.push({ call, delegation: chosen.delegation })
    else if (input.precheck === false && chosen.closest) items.push({ call, delegation: chosen.closest })
    else return { status: 'refused', requestId, refusal: chosen.refusal, checkedBy: 'custody' }
  }
  // The owner's constitution binds off-chain only, so it is checked even when the caveats' pre-check is skipped.
  const policy = await checkActionPolicy(deps, { golem, profile, requestId, requests, grants })
  if (!policy.ok) return { status: 'refused', requestId, refusal: policy.refusal, checkedBy: 'custody' }
  if (input.precheck !== false) {
    const observation = await readActionObservation(client, deployment, { redeemer: profile.golemKey, needs: observationNeeds(items) })
    const refusal = precheckActions(items, observation)
    if (refusal) return { status: 'refused', requestId, refusal, checkedBy: 'custody' }
  }

  const checked = performance.now()
  const { signer } = await deps.signers.resolve(profile)
  const summaries = items.map(({ call, delegation }) => ({
    kind: call.kind,
    target: call.target,
    delegation: delegation.hash,
    label: delegation.label,
  }))
  const sent = await sendOnce({
    store,
    client,
    chainId: deployment.chainId,
    slot,
    owner: deps.invocationId,
    now: (deps.now ?? Date.now)(),
    leaseMs: deps.leaseMs ?? DEFAULT_ACTION_LEASE_MS,
    build: async () => ({
      sender: signer.address,
      to: deployment.environment.DelegationManager,
      data: encodeRedemptions(
        items.map(({ call, delegation }) => ({
          chain: delegation.chain,
          executions: [{ target: call.target, value: call.value, callData: call.callData }],
        })),
      ),
      sign: (tx) => signer.signRedemptionTransaction(tx),
    }),
  })
  switch (sent.status) {
    case 'confirmed':
      // A copy of the request in flight at once that lost the send settles the first copy's transaction:
      // a duplicate. It records the spend too (should the first have crashed before its record); the
      // ledger counts one request's spend once.
      if (policy.spend) await store.appendEvent(policy.spend)
      return {
        status: 'executed',
        requestId,
        txHash: sent.txHash,
        receipt: sent.receipt,
        calls: summaries,
        duplicate: sent.earlier !== null,
        timings: { checkMs: checked - started, redeemMs: performance.now() - checked },
      }
    case 'refused': {
      if (!sent.error) return { status: 'failed', requestId, txHash: null, reason: sent.reason }
      // The simulation names the error, not the call: the first call whose delegation carries that caveat.
      const caveat = refusalOf(sent.error).caveat
      const index = Math.max(
        0,
        items.findIndex((it) => it.delegation.caveats.some((c) => c.type === caveat)),
      )
      const priced = items[index]?.delegation.caveats.find((c) => c.type === 'maxSlippage' || c.type === 'dailySpendLimit')?.type
      return {
        status: 'refused',
        requestId,
        refusal: refusalOf(sent.error, { call: index, ...(priced ? { pricedBy: priced } : {}) }),
        checkedBy: 'chain',
      }
    }
    case 'busy': {
      const again = await previousOutcome(deps, slot, requestId)
      return again ?? { status: 'pending', requestId, reason: 'another invocation is sending this request' }
    }
    case 'failed':
      return { status: 'failed', requestId, txHash: sent.txHash, reason: sent.reason }
    case 'reconciled':
      return { status: 'failed', requestId, txHash: sent.txHash, reason: sent.reason }
    case 'pending':
      // Sent, not final yet (only with a confirmation depth over one block): the repeat of the request settles it.
      return { status: 'pending', requestId, reason: `sent: ${sent.confirmations} of ${sent.needed} confirmations` }
  }
}

async function previousOutcome(deps: ExecuteActionDeps, slot: SlotRef, requestId: string): Promise<ActionOutcome | undefined> {
  const s = await deps.store.getSlot(slot)
  if (!s?.txHash) return undefined
  if (s.status === 'confirmed') {
    const receipt = await deps.client.getTransactionReceipt({ hash: s.txHash })
    return { status: 'executed', requestId, txHash: s.txHash, receipt, calls: [], duplicate: true }
  }
  if (s.status === 'failed' || s.status === 'reconciled') return { status: 'failed', requestId, txHash: s.txHash, reason: s.status }
  return undefined
}
