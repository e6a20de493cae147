// Provisions a Golem on the local devnet the way the onboarding flow does: compile its STRATEGY.md into
// the minimal permission plan, generate its session key, have the owner's smart account sign the whole
// plan (direct ERC-7710: the runway, the gas grant, and the plan's actions and approvals bounded in USD
// by the local price feeds), register the Golem on the VitalityOracle with the operator key, and store
// its custody profile and its action grant. Production onboarding differs only in who signs: the
// owner's MetaMask instead of the local owner key.
import { encodeFunctionData, isAddressEqual, parseEther, type Address, type Hex, type LocalAccount, type PublicClient } from 'viem'
import type { Delegation } from '@metamask/smart-accounts-kit'
import { PolicyCageAbi, VitalityOracleAbi } from '../contracts/artifacts/index.ts'
import { SessionKey } from '../core/custody/index.ts'
import type { BardoDeployment, LocalAssets } from '../core/deployment.ts'
import { smartAccountSigner } from '../core/delegations/index.ts'
import type { GolemProfile } from '../core/lifecycle/profile.ts'
import { constitutionHash, type Constitution } from '../core/policy/index.ts'
import { windowEnd } from '../core/lifecycle/renewal.ts'
import { compileStrategy, localRegistry, type BridgeDestination, type PermissionPlan } from '../core/permissions/index.ts'
import type { Store } from '../core/store/index.ts'
import type { MemorySignerResolver } from '../adapters/signers/memorySignerResolver.ts'
import type { RenewedRunway } from '../core/custody/signerResolver.ts'
import type { PlanUsdCaps } from '../core/permissions/index.ts'
import {
  draftGasGrant,
  draftPlanActions,
  draftRunwayGrant,
  gasOfSigned,
  grantTree,
  runwayOfSigned,
} from '../core/permissions/golemGrants.ts'
import type { ActionGrantEntry } from '../core/actions/index.ts'
import type { BardoCaveat, TokenFeed } from '../core/caveats/index.ts'
import { saveActionGrant } from '../app/actions/actionGrantStore.ts'
import { golemProfileOf, recordGolem } from '../app/onboarding/golemRecord.ts'
import type { OwnerAccount, DevnetClients } from './devnet.ts'
import { sendOwnerCalls } from './ownerActions.ts'
import { readTokenDecimals } from './tokenDecimals.ts'
import { LocalStackError } from './errors.ts'

function registryOf(assets: LocalAssets, protocols: ProvisionGolemParams['protocols'] = {}) {
  const { bridge, positionManager } = protocols
  const withManager = positionManager === undefined ? assets : { ...assets, positionManager }
  if (bridge === undefined) return localRegistry(withManager)
  const { messenger, ...destination } = bridge
  return localRegistry({ ...withManager, bridge: messenger }, { bridge: destination })
}

export type ProvisionGolemParams = {
  clients: DevnetClients
  deployment: BardoDeployment & { assets: LocalAssets }
  store: Store
  signers: MemorySignerResolver
  owner: OwnerAccount
  golemId: string
  strategy: string
  runwayDays?: number
  /**
   * The Golem's life window in seconds (the grant's end and the runway's length); defaults to
   * `runwayDays`. The local demo lives for minutes on an honest clock instead of moving chain time.
   */
  lifeSeconds?: bigint
  /** The runway's period in seconds (ERC20PeriodTransfer's periodDuration); default a day. */
  periodSeconds?: bigint
  /** Overrides the compiled daily cap (tests). */
  periodAmount?: bigint
  /**
   * Protocols the devnet does not deploy, for the capabilities that need them: a CCTP messenger with the
   * owner's bridge destination (every transfer is pinned to it), a Uniswap V3 position manager.
   */
  protocols?: { bridge?: { messenger: Address } & BridgeDestination; positionManager?: Address }
  /**
   * The most of the runway token the key may hold at once (just-in-time runway); default one period's
   * allowance. An owner who lets the key hold more (a week of runway) accepts a larger loss to a leaked key.
   */
  keyCeiling?: bigint
  /**
   * ETH sent to the session key by hand from the deployer, instead of the owner's gas grant. Default:
   * none; the owner grants gas (see `gas`).
   */
  gasFunding?: bigint
  /**
   * The owner's native-token gas grant (period-capped) and the first gas the owner sends the key with
   * it, since a key with no ETH cannot pay for its first redemption. Default: the compiled daily gas
   * cap, and one period's allowance up front. `false`: no grant (gasFunding then funds the key).
   */
  gas?: false | { periodAmount?: bigint; bootstrap?: bigint }
  /** A key made elsewhere (a LocalKey loaded from its keystore, a test that hands it to another process); default a fresh one. */
  sessionKey?: SessionKey
  /**
   * The plan's actions and approvals (buildPlanGrant), bounded in USD by the local price feeds and
   * stopped while the Golem dreams. Default: granted whenever the plan has any. `false`: runway and gas only.
   */
  actions?: false | ProvisionActionsOptions
  /** The owner's constitution: kept in the profile, its hash set in the PolicyCage by the operator. */
  constitution?: Constitution
}

export type ProvisionActionsOptions = {
  /** Seconds a feed price may be old before the enforcers refuse it; default an hour. */
  maxPriceAge?: number
  /** MaxSlippage's bound on every swap, in bps; default buildPlanGrant's (1%). */
  maxSlippageBps?: number
  /** The USD the approvals may approve per UTC day (6 decimals), split between the spenders; default the plan's daily budget. */
  dailyUsd?: bigint
}

export type ProvisionedGolem = {
  golemId: string
  golemKey: Address
  sessionKey: SessionKey
  plan: PermissionPlan
  runway: { hash: Hex; delegation: Delegation }
  profile: GolemProfile
  /** The signed actions and approvals delegations (also stored for the action path); empty when none were granted. */
  actions: ActionGrantEntry[]
}

export async function provisionGolem(p: ProvisionGolemParams): Promise<ProvisionedGolem> {
  let sessionKey: SessionKey | undefined
  const golem = await provision(p, ({ now, expiresAt }) => {
    const key = p.sessionKey ?? SessionKey.generate({ expiresAt: Number(expiresAt), initialBudget: 0n, now: Number(now) })
    sessionKey = key
    const ref = `session-key:${p.golemId}`
    return { address: key.address, signer: { kind: 'memory', ref }, hold: () => p.signers.hold(ref, key) }
  })
  return { ...golem, sessionKey: sessionKey! }
}

/**
 * A Golem whose key lives outside this process (a Privy server wallet): provisioned as provisionGolem
 * does, but the grants name `key.address` and the profile names `key.signer`; no key is generated or held
 * here, so only a resolver for that signer kind can sign for it.
 */
export async function provisionGolemAt(
  p: Omit<ProvisionGolemParams, 'sessionKey' | 'signers'> & { key: { address: Address; signer: GolemProfile['signer'] } },
): Promise<Omit<ProvisionedGolem, 'sessionKey'>> {
  return provision(p, () => ({ ...p.key, hold: () => undefined }))
}

type ProvisionKey = { address: Address; signer: GolemProfile['signer']; hold(): void }

async function provision(
  p: Omit<ProvisionGolemParams, 'sessionKey' | 'signers'>,
  keyFor: (at: { now: bigint; expiresAt: bigint }) => ProvisionKey,
): Promise<Omit<ProvisionedGolem, 'sessionKey'>> {
  const { clients, deployment, store } = p
  const client = clients.publicClient as PublicClient
  const now = (await client.getBlock()).timestamp
  const lifeSeconds = p.lifeSeconds ?? BigInt(p.runwayDays ?? 30) * 86_400n
  if (lifeSeconds <= 0n) throw new LocalStackError('PROVISION', `provision: lifeSeconds must be greater than 0, got ${lifeSeconds}`)
  const periodSeconds = p.periodSeconds ?? 86_400n
  if (periodSeconds <= 0n) throw new LocalStackError('PROVISION', `provision: periodSeconds must be greater than 0, got ${periodSeconds}`)
  // The compiler plans in whole days: a life of minutes keeps the strategy's own runway_days for the
  // plan and takes the daily budget per period.
  const runwayDays = p.runwayDays ?? (p.lifeSeconds === undefined ? 30 : undefined)
  // The window's end is inclusive: the life's last second, the last second of its last period.
  const expiresAt = windowEnd(now, lifeSeconds)
  const key = keyFor({ now, expiresAt })
  const golemKey = key.address
  const plan = compileStrategy({
    text: p.strategy,
    chainId: deployment.chainId,
    owner: p.owner.address,
    sessionKey: golemKey,
    ...(runwayDays === undefined ? {} : { runwayDays }),
    now: Number(now),
    registry: registryOf(deployment.assets, p.protocols),
  })
  const periodAmount = p.periodAmount ?? plan.dailyUsdcCap
  const runway = await signRunwayGrant({
    deployment,
    owner: p.owner,
    golemKey,
    token: deployment.assets.usdc,
    periodAmount,
    periodDuration: periodSeconds,
    startDate: now,
    expiresAt,
    now,
  })
  await sendAndWait(
    clients,
    clients.operator.account as LocalAccount,
    deployment.vitalityOracle,
    encodeFunctionData({ abi: VitalityOracleAbi, functionName: 'registerGolem', args: [golemKey] }),
  )
  if (p.constitution) {
    if (!deployment.policyCage) throw new LocalStackError('DEVNET', 'constitution: the deployment has no PolicyCage to hold its hash')
    await sendAndWait(
      clients,
      clients.operator.account as LocalAccount,
      deployment.policyCage,
      encodeFunctionData({ abi: PolicyCageAbi, functionName: 'setConstitution', args: [golemKey, constitutionHash(p.constitution)] }),
    )
  }
  const gas = p.gasFunding ?? (p.gas === false ? parseEther('1') : 0n)
  if (gas > 0n) await client.waitForTransactionReceipt({ hash: await clients.deployer.sendTransaction({ to: golemKey, value: gas }) })
  const gasGrant =
    p.gas === false
      ? undefined
      : await grantGas(clients, {
          deployment,
          owner: p.owner,
          golemKey,
          periodAmount: p.gas?.periodAmount ?? plan.dailyGasCap,
          bootstrap: p.gas?.bootstrap,
          startDate: now,
          expiresAt,
          now,
        })

  key.hold()
  const profile = {
    ...golemProfileOf({
      chainId: deployment.chainId,
      golemKey,
      signer: key.signer,
      runway,
      token: deployment.assets.usdc,
      periodAmount,
      periodDuration: periodSeconds,
      expiresAt,
      now,
    }),
    ...(gasGrant ? { gas: gasGrant } : {}),
    ...(p.constitution ? { constitution: p.constitution } : {}),
  }
  if (p.keyCeiling !== undefined) profile.runway.keyCeiling = p.keyCeiling
  const actions =
    p.actions === false
      ? []
      : await signPlanActions(clients, {
          deployment,
          owner: p.owner,
          plan,
          startDate: now,
          expiresAt,
          options: p.actions ?? {},
          ...(p.constitution ? { constitution: p.constitution } : {}),
        })
  profile.actionGrant = actions.length > 0
  await recordGolem(store, { golemId: p.golemId, owner: p.owner.address, profile, now })
  if (actions.length > 0) await saveActionGrant(store, { golemId: p.golemId, entries: actions, now: Number(now) * 1000 })
  return {
    actions,
    golemId: p.golemId,
    golemKey,
    plan,
    runway: { hash: runway.periodDelegationHash, delegation: runway.chain[0]! },
    profile,
  }
}

/**
 * The Golem's runway grant (direct ERC-7710): USDC per day from the owner's smart account to the Golem
 * key, gated by its phase and life window (one golemPhase caveat). Signed by the owner's smart account.
 * No dreamMode here: dream atonia stops the Golem's own actions (docs/delegations.md puts it on actions
 * and approvals); the runway is the heartbeat's top-up, which the tick already skips while the Golem
 * dreams, and the period cap, not a dream, bounds what a leaked key could redeem. Leaving it off keeps a
 * runway redemption at 1.22x MetaMask's bare period scope instead of 1.40x (docs/benchmarks.md).
 */
export async function signRunwayGrant(p: {
  deployment: BardoDeployment
  owner: OwnerAccount
  golemKey: Address
  token: Address
  periodAmount: bigint
  /** Seconds per period; default a day. */
  periodDuration?: bigint
  startDate: bigint
  expiresAt: bigint
  now: bigint
  /** The grant's salt; a renewal must use one above the grant it supersedes. Default random. */
  salt?: Hex
}): Promise<RenewedRunway> {
  const tree = grantTree(p)
  const draft = draftRunwayGrant(tree, { ...p, owner: p.owner.address, periodDuration: p.periodDuration ?? 86_400n })
  const delegation = await tree.sign(draft.hash, smartAccountSigner(p.owner.smartAccount))
  return runwayOfSigned(p.deployment, { hash: draft.hash, delegation }, p.startDate)
}

/** The local feeds for every token the plan may approve or swap, each entry's decimals read from the token itself. */
export async function localUsdCaps(
  client: PublicClient,
  assets: LocalAssets,
  options: Pick<ProvisionActionsOptions, 'maxPriceAge' | 'maxSlippageBps'> = {},
): Promise<PlanUsdCaps> {
  const priced = [
    { token: assets.usdc, feed: assets.usdcUsdFeed },
    { token: assets.weth, feed: assets.ethUsdFeed },
  ]
  const tokenDecimals = await readTokenDecimals(
    client,
    priced.map((f) => f.token),
  )
  const feeds: TokenFeed[] = priced.map((f) => ({
    ...f,
    decimals: tokenDecimals.find((t) => isAddressEqual(t.token, f.token))!.decimals,
  }))
  return {
    feeds,
    tokenDecimals,
    maxPriceAge: options.maxPriceAge ?? 3_600,
    ...(options.maxSlippageBps === undefined ? {} : { maxSlippageBps: options.maxSlippageBps }),
  }
}

/**
 * The plan's actions and approvals, signed by the owner's smart account: buildPlanGrant with the local
 * USD bounds, the same phase gate and life window as the runway, and dreamMode, because dream atonia
 * stops the Golem's own actions (the runway and gas grants leave it off: the tick tops up, the Golem
 * does not act). The runway and gas stay with their own builders, which carry the local period.
 */
export async function signPlanActions(
  clients: DevnetClients,
  p: {
    deployment: BardoDeployment & { assets: LocalAssets }
    owner: OwnerAccount
    plan: PermissionPlan
    startDate: bigint
    expiresAt: bigint
    options?: ProvisionActionsOptions
    /**
     * The owner's constitution: every delegation then carries the PolicyCageEnforcer caveat (its hash
     * checked against the PolicyCage for the Golem's key, the portfolio priced with the grant's feeds).
     */
    constitution?: Constitution
  },
): Promise<ActionGrantEntry[]> {
  if (p.plan.actions.length === 0 && p.plan.approvals.length === 0) return []
  const tree = grantTree({ deployment: p.deployment, now: p.startDate })
  const usdCaps = await localUsdCaps(clients.publicClient as PublicClient, p.deployment.assets, p.options)
  const drafts = draftPlanActions(tree, {
    ...p,
    usdCaps,
    ...(p.options?.dailyUsd === undefined ? {} : { dailyUsd: p.options.dailyUsd }),
    ...(p.constitution ? { bardo: [policyCageCaveat(p.deployment, p.plan.sessionKey, p.constitution, usdCaps)] } : {}),
  })
  const signer = smartAccountSigner(p.owner.smartAccount)
  const entries: ActionGrantEntry[] = []
  for (const a of drafts) {
    await tree.sign(a.hash, signer)
    entries.push({ hash: a.hash, label: a.label, chain: tree.chain(a.hash) })
  }
  return entries
}

/** The constitution's caveat; a deployment without the PolicyCage or its enforcer cannot bind it on-chain. */
function policyCageCaveat(deployment: BardoDeployment, golem: Address, constitution: Constitution, caps: PlanUsdCaps): BardoCaveat {
  if (!deployment.policyCage || !deployment.enforcers.policyCage)
    throw new LocalStackError('DEVNET', 'constitution: the deployment has no PolicyCage and PolicyCageEnforcer to bind it on-chain')
  return { type: 'policyCage', policyCage: deployment.policyCage, golem, maxPriceAge: caps.maxPriceAge, constitution, feeds: caps.feeds }
}

async function sendAndWait(clients: DevnetClients, account: LocalAccount, to: Address, data: Hex): Promise<void> {
  const hash = await clients.operator.sendTransaction({ account, to, data, chain: clients.chain })
  const receipt = await clients.publicClient.waitForTransactionReceipt({ hash })
  if (receipt.status !== 'success') throw new LocalStackError('PROVISION', `provision: transaction to ${to} reverted`)
}

const ownerOps = new Map<string, Promise<void>>()

/**
 * The owner's gas grant (the kit's native-token periodic scope: NativeTokenPeriodTransfer, plain
 * transfers to the Golem's key only, gated by the same phase window as the runway), and the owner's
 * first gas to the key, sent from the owner's smart account: the key redeems the grant itself, so it
 * needs gas for its first redemption.
 */
export async function grantGas(
  clients: DevnetClients,
  p: {
    deployment: BardoDeployment
    owner: OwnerAccount
    golemKey: Address
    periodAmount: bigint
    bootstrap?: bigint | undefined
    startDate: bigint
    expiresAt: bigint
    now: bigint
  },
): Promise<NonNullable<GolemProfile['gas']>> {
  const grant = await signGasGrant(p)
  const bootstrap = p.bootstrap ?? p.periodAmount
  if (bootstrap > 0n) {
    // One user operation at a time per owner: concurrent ones would read the same EntryPoint nonce.
    const key = p.owner.address.toLowerCase()
    const send = (ownerOps.get(key) ?? Promise.resolve()).then(() =>
      sendOwnerCalls({
        publicClient: clients.publicClient as PublicClient,
        submitter: clients.deployer,
        smartAccount: p.owner.smartAccount,
        calls: [{ to: p.golemKey, value: bootstrap }],
      }),
    )
    ownerOps.set(
      key,
      send.then(
        () => undefined,
        () => undefined,
      ),
    )
    await send
  }
  return grant
}

/** The owner's signed gas grant to a key (no transaction: the owner's smart account signs it). */
export async function signGasGrant(p: {
  deployment: BardoDeployment
  owner: OwnerAccount
  golemKey: Address
  periodAmount: bigint
  startDate: bigint
  expiresAt: bigint
  now: bigint
}): Promise<NonNullable<GolemProfile['gas']>> {
  const tree = grantTree(p)
  const draft = draftGasGrant(tree, { ...p, owner: p.owner.address })
  const delegation = await tree.sign(draft.hash, smartAccountSigner(p.owner.smartAccount))
  return gasOfSigned(p.deployment, { hash: draft.hash, delegation }, p)
}
