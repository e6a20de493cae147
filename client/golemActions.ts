// The small client a Golem's runtime imports to ask custody to act: one method per action, a batch for
// what must go together (approve + swap), and a request id per call that the caller may pass again to
// retry the same request safely (custody redeems a request id at most once).
import { randomUUID } from 'node:crypto'
import type {
  ActionRequest,
  ApproveRequest,
  BridgeRequest,
  CollectRequest,
  DepositRequest,
  ProvideLiquidityRequest,
  RedeemRequest,
  RemoveLiquidityRequest,
  SpawnReplicantRequest,
  SwapRequest,
  WithdrawRequest,
} from '../core/actions/index.ts'
import { executeAction, type ActionOutcome, type ExecuteActionDeps, type ExecuteActionInput } from '../app/actions/executeAction.ts'

type Without<T> = Omit<T, 'kind'>
export type ActOptions = { requestId?: string }

export type GolemActions = {
  swap(request: Without<SwapRequest>, options?: ActOptions): Promise<ActionOutcome>
  deposit(request: Without<DepositRequest>, options?: ActOptions): Promise<ActionOutcome>
  withdraw(request: Without<WithdrawRequest>, options?: ActOptions): Promise<ActionOutcome>
  redeem(request: Without<RedeemRequest>, options?: ActOptions): Promise<ActionOutcome>
  approve(request: Without<ApproveRequest>, options?: ActOptions): Promise<ActionOutcome>
  bridge(request: Without<BridgeRequest>, options?: ActOptions): Promise<ActionOutcome>
  provideLiquidity(request: Without<ProvideLiquidityRequest>, options?: ActOptions): Promise<ActionOutcome>
  /** Liquidity out of a position, refused while its pool is priced off the feeds by more than the grant's slippage cap. */
  removeLiquidity(request: Without<RemoveLiquidityRequest>, options?: ActOptions): Promise<ActionOutcome>
  collect(request: Without<CollectRequest>, options?: ActOptions): Promise<ActionOutcome>
  /** A Replicant with a key of its own and a narrower slice of this Golem's runway (Thriving only). */
  spawnReplicant(request?: Without<SpawnReplicantRequest>, options?: ActOptions): Promise<ActionOutcome>
  /** Several actions in one transaction, in order: all happen or none. */
  batch(actions: readonly ActionRequest[], options?: ActOptions): Promise<ActionOutcome>
}

/** How a request reaches custody: in-process (the local stack), or a transport such as the HTTP route. */
export type ActionTransport = (input: ExecuteActionInput) => Promise<ActionOutcome>

export function golemActions(p: { golemId: string; transport: ActionTransport; newRequestId?: () => string }): GolemActions {
  const newId = p.newRequestId ?? (() => randomUUID())
  const send = (actions: ExecuteActionInput['actions'], options: ActOptions = {}) =>
    p.transport({ golemId: p.golemId, requestId: options.requestId ?? newId(), actions })
  return {
    swap: (r, o) => send([{ kind: 'swap', ...r }], o),
    deposit: (r, o) => send([{ kind: 'deposit', ...r }], o),
    withdraw: (r, o) => send([{ kind: 'withdraw', ...r }], o),
    redeem: (r, o) => send([{ kind: 'redeem', ...r }], o),
    approve: (r, o) => send([{ kind: 'approve', ...r }], o),
    bridge: (r, o) => send([{ kind: 'bridge', ...r }], o),
    provideLiquidity: (r, o) => send([{ kind: 'provideLiquidity', ...r }], o),
    removeLiquidity: (r, o) => send([{ kind: 'removeLiquidity', ...r }], o),
    collect: (r, o) => send([{ kind: 'collect', ...r }], o),
    spawnReplicant: (r, o) => send([{ kind: 'spawnReplicant', ...r }], o),
    batch: (actions, o) => send(actions, o),
  }
}

/** The transport for a Golem that runs beside custody (the local stack): calls the executor directly. */
export const inProcessTransport =
  (deps: ExecuteActionDeps): ActionTransport =>
  (input) =>
    executeAction(deps, input)
