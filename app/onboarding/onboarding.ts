// Onboarding through the owner's wallet: a draft (the strategy compiled into the minimal plan, the Golem's
// keys issued, the grants the wallet is asked for), then the owner's grant (signatures over the drafted
// delegations, or the wallet's ERC-7715 permissions), checked in full before anything is written; then
// the operator registers the Golem's key on the VitalityOracle, fronts the key its first gas, and the
// Golem is recorded due at once, so the next heartbeat ticks it. A refused request writes nothing.
import { Implementation, toMetaMaskSmartAccount, type Delegation } from '@metamask/smart-accounts-kit'
import { encodeFunctionData, isAddressEqual, recoverTypedDataAddress, type Address, type Hex, type PublicClient } from 'viem'
import { VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import { hasCode, type TransactionSender } from '../../adapters/chain/serialSender.ts'
import type { KeyIssuer } from '../../core/custody/keyIssuer.ts'
import type { BardoDeployment } from '../../core/deployment.ts'
import { delegationDomainOf, delegationTypedData } from '../../core/delegations/typedData.ts'
import { BardoError } from '../../core/errors.ts'
import { windowEnd } from '../../core/lifecycle/renewal.ts'
import { GAS_BOOTSTRAP } from '../../core/lifecycle/gasPlan.ts'
import {
  checkNewGolemId,
  DRAFT_TTL_SECONDS,
  draftLog,
  OnboardingError,
  parseGolemDraft,
  serializeGolemDraft,
  type DraftedDelegation,
  type GolemDraft,
  type OnboardingShape,
} from '../../core/onboarding/golemDraft.ts'
import { planInWords } from '../../core/onboarding/planInWords.ts'
import { GrantedPermissionError, readGrantedRunway, type GrantedRunway } from '../../core/permissions/grantedPermission.ts'
import type { RunwayPermissionRequests } from '../../core/permissions/erc7715.ts'
import { profileOfGranted } from './permissionsGrant.ts'
import {
  draftGasGrant,
  draftPlanActions,
  draftRunwayGrant,
  gasOfSigned,
  grantTree,
  runwayOfSigned,
} from '../../core/permissions/golemGrants.ts'
import {
  compileStrategy,
  toErc7715Request,
  type PermissionPlan,
  type PlanUsdCaps,
  type ProtocolRegistry,
} from '../../core/permissions/index.ts'
import type { Store } from '../../core/store/index.ts'
import { saveActionGrant } from '../actions/actionGrantStore.ts'
import { golemProfileOf, recordGolem } from './golemRecord.ts'

/** The hashes of the operator's transactions onboarding sends: the smart account's deployment, the oracle registration, the first gas. */
export type OperatorSender = TransactionSender

export type OnboardingDeps = {
  store: Store
  client: PublicClient
  deployment: BardoDeployment
  registry: ProtocolRegistry
  keys: KeyIssuer
  operator: OperatorSender
  /** Price feeds that bound action grants in USD; without them a plan with actions is refused. */
  usdCaps?: () => Promise<PlanUsdCaps>
  /** The deployment's life and runway period for new Golems (the local stack: minutes); default the plan's days and a day. */
  life?: { lifeSeconds?: bigint; periodSeconds?: bigint }
  /**
   * ETH the operator sends a new Golem's key, so it can pay for its first redemption of the owner's gas
   * grant (every later top-up comes from that grant). Default 0.001 ETH.
   */
  gasBootstrap?: bigint
}

export const DEFAULT_GAS_BOOTSTRAP = GAS_BOOTSTRAP

/** The shortest life a wallet's grant may leave a Golem: an expiry sooner than this is refused. */
const MINIMUM_LIFE_SECONDS = 60

/** Stands in for the Golem's key while a strategy is checked, before any key is issued. */
const PLACEHOLDER_KEY: Address = '0x0000000000000000000000000000000000000001'

export type DraftRequest = {
  golemId: string
  /** The wallet's account. */
  owner: Address
  strategy: string
  shape: OnboardingShape
}

export type DraftStatus = 'waiting' | 'registered' | 'expired'

/** A delegation as the wallet is asked to sign it: the EIP-712 payload beside the delegation. */
export type DraftedForSigning = DraftedDelegation & { typedData: ReturnType<typeof delegationTypedData> }

export type DraftView = Omit<GolemDraft, 'delegations'> & { status: DraftStatus; delegations: DraftedForSigning[] }

/** The owner's answer: a signature per drafted delegation, or the wallet's granted permissions. */
export type GrantAnswer = { signatures: readonly { hash: Hex; signature: Hex }[] } | { permissions: readonly unknown[] }

export type Registered = { golemId: string; golemKey: Address; owner: Address; account: Address; expiresAt: bigint; txHashes: Hex[] }

export class OnboardingService {
  /** Grants in flight, per Golem: one at a time, so a double click registers once. */
  readonly #granting = new Map<string, Promise<unknown>>()

  constructor(private readonly deps: OnboardingDeps) {}

  async draft(request: DraftRequest): Promise<DraftView> {
    const { store, client, deployment } = this.deps
    const golemId = checkNewGolemId(request.golemId)
    await this.#refuseExisting(golemId)
    const now = (await client.getBlock({ blockTag: 'latest' })).timestamp
    const pending = await this.#latest(golemId, now)
    if (pending && pending.status === 'waiting') {
      // The same owner asking again (a reloaded page) gets the same draft; anyone else waits for it to lapse.
      if (isAddressEqual(pending.draft.owner, request.owner) && pending.draft.shape === request.shape)
        return this.#view(pending.draft, 'waiting')
      throw new OnboardingError(
        'DRAFT_REFUSED',
        'golemId',
        `a draft for ${golemId} waits for its owner until ${pending.draft.answerBy}; choose another id`,
      )
    }
    const account = request.shape === 'delegations' ? await this.#smartAccountOf(request.owner) : undefined
    const accountAddress = account?.address ?? request.owner
    const compile = (sessionKey: Address) => this.#compile(request.strategy, accountAddress, sessionKey, now)
    // Checked against a placeholder key first, so a refused plan issues no key.
    const checked = compile(PLACEHOLDER_KEY)
    this.#refuseUncarried(checked, request.shape)
    const lifeSeconds = this.deps.life?.lifeSeconds ?? BigInt(checked.runwayDays) * 86_400n
    // The wallet grants only its preset periods: the permissions shape asks for the plan's (a day).
    const periodSeconds = request.shape === 'permissions' ? BigInt(checked.period) : (this.deps.life?.periodSeconds ?? 86_400n)
    // The window's end is inclusive: the life's last second.
    const expiresAt = windowEnd(now, lifeSeconds)
    const golemKey = await this.deps.keys.issue({ golemId, role: 'golem', expiresAt, now })
    const sessionAccount =
      request.shape === 'permissions' ? await this.deps.keys.issue({ golemId, role: 'session-account', expiresAt, now }) : undefined
    const plan = compile(sessionAccount?.address ?? golemKey.address)
    const window = { deployment, owner: accountAddress, golemKey: golemKey.address, startDate: now, expiresAt, now }
    const delegations: DraftedDelegation[] = []
    let deploy: GolemDraft['deploy']
    let permissionRequest: unknown
    if (request.shape === 'delegations') {
      const tree = grantTree(window)
      const runway = draftRunwayGrant(tree, { ...window, token: plan.usdc, periodAmount: plan.dailyUsdcCap, periodDuration: periodSeconds })
      delegations.push({ role: 'runway', label: 'runway', ...runway })
      const gas = draftGasGrant(tree, { ...window, periodAmount: plan.dailyGasCap })
      delegations.push({ role: 'gas', label: 'gas', ...gas })
      const usdCaps = plan.actions.length + plan.approvals.length > 0 ? await this.deps.usdCaps!() : undefined
      if (usdCaps) for (const a of draftPlanActions(tree, { ...window, plan, usdCaps })) delegations.push({ role: 'actions', ...a })
      if (!(await account!.isDeployed())) {
        const { factory, factoryData } = await account!.getFactoryArgs()
        if (factory && factoryData) deploy = { factory, factoryData }
      }
    } else {
      permissionRequest = toErc7715Request({ ...plan, startTime: Number(now), expiry: Number(expiresAt) + 1 })
    }
    const draft: GolemDraft = {
      v: 1,
      golemId,
      shape: request.shape,
      owner: request.owner,
      account: accountAddress,
      golemKey: golemKey.address,
      signer: golemKey.signer,
      ...(sessionAccount ? { sessionAccount } : {}),
      token: plan.usdc,
      periodAmount: plan.dailyUsdcCap,
      periodSeconds,
      gasPeriodAmount: plan.dailyGasCap,
      startDate: now,
      expiresAt,
      answerBy: now + DRAFT_TTL_SECONDS,
      plan: { capabilities: [...plan.capabilities], lines: planInWords(plan, lifeSeconds, periodSeconds) },
      delegations,
      ...(deploy ? { deploy } : {}),
      ...(permissionRequest === undefined ? {} : { request: permissionRequest }),
    }
    await store.appendLog({ log: draftLog(golemId), records: [{ draft: serializeGolemDraft(draft) }], now: Number(now) * 1000 })
    // Two drafts written at once: the first one in the log is the draft; the other asker is refused.
    const first = await this.#latest(golemId, now)
    if (!first || first.draft.golemKey !== draft.golemKey)
      throw new OnboardingError('DRAFT_REFUSED', 'golemId', `another draft for ${golemId} was written first; choose another id`)
    return this.#view(draft, 'waiting')
  }

  /** The Golem's draft and where it stands. */
  async get(golemId: string): Promise<DraftView> {
    checkNewGolemId(golemId)
    const now = (await this.deps.client.getBlock({ blockTag: 'latest' })).timestamp
    const latest = await this.#latest(golemId, now)
    if (!latest) throw new OnboardingError('DRAFT_NOT_FOUND', 'golemId', `no draft for ${golemId}`)
    return this.#view(latest.draft, latest.status)
  }

  /** The owner's grant: checked in full, then the Golem is registered and recorded. */
  async grant(golemId: string, answer: GrantAnswer): Promise<Registered> {
    const previous = this.#granting.get(golemId) ?? Promise.resolve()
    const run = previous.then(
      () => this.#grant(golemId, answer),
      () => this.#grant(golemId, answer),
    )
    this.#granting.set(
      golemId,
      run.catch(() => undefined),
    )
    return run
  }

  async #grant(golemId: string, answer: GrantAnswer): Promise<Registered> {
    const { store, client, deployment } = this.deps
    checkNewGolemId(golemId)
    await this.#refuseExisting(golemId)
    const now = (await client.getBlock({ blockTag: 'latest' })).timestamp
    const latest = await this.#latest(golemId, now)
    if (!latest) throw new OnboardingError('DRAFT_NOT_FOUND', 'golemId', `no draft for ${golemId}; ask for one first`)
    const { draft } = latest
    if (latest.status === 'expired')
      throw new OnboardingError(
        'DRAFT_EXPIRED',
        'golemId',
        `the draft for ${golemId} had to be answered by ${draft.answerBy}; ask for a new one`,
      )
    if (draft.shape === 'permissions') {
      if (!('permissions' in answer))
        throw new OnboardingError('GRANT_REFUSED', 'permissions', 'must be the permissions the wallet granted')
      return this.#grantPermissions(draft, answer.permissions, now)
    }
    if (!('signatures' in answer))
      throw new OnboardingError('GRANT_REFUSED', 'signatures', 'must hold the owner signature of every drafted delegation')
    const { signed, deployed } = await this.#checkSignatures(draft, answer.signatures)

    // Everything is checked: from here on the chain and the store are written.
    const txHashes: Hex[] = []
    if (draft.deploy && !deployed)
      txHashes.push(await this.deps.operator.send({ to: draft.deploy.factory, data: draft.deploy.factoryData }))
    txHashes.push(...(await this.#register(draft.golemKey)))
    const runway = signed.find((d) => d.role === 'runway')!
    const gas = signed.find((d) => d.role === 'gas')!
    const actions = signed.filter((d) => d.role === 'actions')
    const profile = {
      ...golemProfileOf({
        chainId: deployment.chainId,
        golemKey: draft.golemKey,
        signer: draft.signer,
        runway: runwayOfSigned(deployment, runway, draft.startDate),
        token: draft.token,
        periodAmount: draft.periodAmount,
        periodDuration: draft.periodSeconds,
        expiresAt: draft.expiresAt,
        now: draft.startDate,
      }),
      gas: gasOfSigned(deployment, gas, { periodAmount: draft.gasPeriodAmount, startDate: draft.startDate }),
      actionGrant: actions.length > 0,
    }
    await recordGolem(store, { golemId, owner: draft.account, profile, now })
    if (actions.length > 0)
      await saveActionGrant(store, {
        golemId,
        entries: actions.map((a) => ({ hash: a.hash, label: a.label, chain: [a.delegation] })),
        now: Number(now) * 1000,
      })
    return this.#registered(draft, draft.expiresAt, txHashes, now)
  }

  async #registered(draft: GolemDraft, expiresAt: bigint, txHashes: Hex[], now: bigint): Promise<Registered> {
    const { golemId } = draft
    await this.deps.store.appendLog({
      log: draftLog(golemId),
      records: [{ registered: { golemKey: draft.golemKey, at: now.toString() } }],
      now: Number(now) * 1000,
    })
    return { golemId, golemKey: draft.golemKey, owner: draft.owner, account: draft.account, expiresAt, txHashes }
  }

  /** The wallet's Advanced Permissions: read as granted, re-delegated to the Golem's key, then registered. */
  async #grantPermissions(draft: GolemDraft, permissions: readonly unknown[], now: bigint): Promise<Registered> {
    const { store, deployment, keys } = this.deps
    const session = draft.sessionAccount
    if (!session) throw new OnboardingError('GRANT_REFUSED', 'golemId', `the draft for ${draft.golemId} has no Session Account`)
    let granted: GrantedRunway
    try {
      granted = readGrantedRunway({
        granted: permissions,
        request: draft.request as RunwayPermissionRequests,
        environment: deployment.environment,
        now: Number(now),
        minimumLifeSeconds: MINIMUM_LIFE_SECONDS,
      })
    } catch (error) {
      // The answer's field, as the API's body names it.
      if (error instanceof GrantedPermissionError)
        throw new OnboardingError('GRANT_REFUSED', error.field.replace(/^granted/, 'permissions'), error.rule)
      throw error
    }
    const { profile, expiresAt } = await profileOfGranted({ deployment, keys, draft: { ...draft, sessionAccount: session }, granted, now })
    const txHashes = await this.#register(draft.golemKey)
    await recordGolem(store, { golemId: draft.golemId, owner: draft.account, profile, now })
    return this.#registered(draft, expiresAt, txHashes, now)
  }

  /**
   * Every drafted delegation signed by the owner: by the smart account (ERC-1271) or, before it is
   * deployed, by its signer; and whether the account is deployed, as the check found it.
   */
  async #checkSignatures(
    draft: GolemDraft,
    signatures: readonly { hash: Hex; signature: Hex }[],
  ): Promise<{ signed: (DraftedDelegation & { delegation: Delegation })[]; deployed: boolean }> {
    const { client, deployment } = this.deps
    const byHash = new Map<string, Hex>()
    signatures.forEach((s, i) => {
      if (!draft.delegations.some((d) => d.hash.toLowerCase() === s.hash.toLowerCase()))
        throw new OnboardingError('GRANT_REFUSED', `signatures[${i}].hash`, `names no delegation of the draft for ${draft.golemId}`)
      byHash.set(s.hash.toLowerCase(), s.signature)
    })
    const deployed = await hasCode(client, draft.account)
    const out = []
    for (const [i, d] of draft.delegations.entries()) {
      const signature = byHash.get(d.hash.toLowerCase())
      if (!signature)
        throw new OnboardingError('GRANT_REFUSED', 'signatures', `must sign every drafted delegation: ${d.label} (${d.hash}) is missing`)
      const typedData = delegationTypedData(d.delegation, delegationDomainOf(deployment))
      const valid = deployed
        ? await client.verifyTypedData({ address: draft.account, ...typedData, signature } as never).catch(() => false)
        : await recoverTypedDataAddress({ ...typedData, signature } as never).then(
            (signer) => isAddressEqual(signer, draft.owner),
            () => false,
          )
      if (!valid)
        throw new OnboardingError(
          'GRANT_REFUSED',
          `signatures[${i}].signature`,
          `must be the owner's signature over the ${d.label} delegation, valid for ${draft.account}`,
        )
      out.push({ ...d, delegation: { ...d.delegation, signature } })
    }
    return { signed: out, deployed }
  }

  /** The operator registers the key (unless a retried grant already did) and fronts its first gas. */
  async #register(golemKey: Address): Promise<Hex[]> {
    const { client, deployment, operator } = this.deps
    const sent: Hex[] = []
    const [registered] = (await client.readContract({
      address: deployment.vitalityOracle,
      abi: VitalityOracleAbi,
      functionName: 'getPhase',
      args: [golemKey],
    })) as readonly [boolean, number]
    if (!registered)
      sent.push(
        await operator.send({
          to: deployment.vitalityOracle,
          data: encodeFunctionData({ abi: VitalityOracleAbi, functionName: 'registerGolem', args: [golemKey] }),
        }),
      )
    const bootstrap = this.deps.gasBootstrap ?? DEFAULT_GAS_BOOTSTRAP
    if (bootstrap > 0n && (await client.getBalance({ address: golemKey })) < bootstrap)
      sent.push(await operator.send({ to: golemKey, value: bootstrap }))
    return sent
  }

  #compile(text: string, owner: Address, sessionKey: Address, now: bigint): PermissionPlan {
    try {
      return compileStrategy({
        text,
        chainId: this.deps.deployment.chainId,
        owner,
        sessionKey,
        now: Number(now),
        registry: this.deps.registry,
      })
    } catch (error) {
      if (error instanceof BardoError && 'field' in error && 'rule' in error)
        throw new OnboardingError('DRAFT_REFUSED', `strategy.${String(error.field)}`, String(error.rule))
      throw error
    }
  }

  /** A plan the owner's grant cannot carry is refused with the reason. */
  #refuseUncarried(plan: PermissionPlan, shape: OnboardingShape): void {
    const acts = plan.actions.length + plan.approvals.length > 0
    if (acts && shape === 'permissions')
      throw new OnboardingError(
        'DRAFT_REFUSED',
        'strategy',
        `the plan needs action grants (${plan.capabilities.join(', ')}); the wallet's Advanced Permissions grant token allowances only, so grant it from a separate smart account (shape "delegations") or keep the strategy to its runway`,
      )
    if (acts && !this.deps.usdCaps)
      throw new OnboardingError(
        'DRAFT_REFUSED',
        'strategy',
        `the plan needs action grants (${plan.capabilities.join(', ')}), and this deployment has no price feeds to bound them in USD`,
      )
  }

  async #refuseExisting(golemId: string): Promise<void> {
    const existing = await this.deps.store.getGolem(golemId)
    if (existing)
      throw new OnboardingError(
        'GOLEM_EXISTS',
        'golemId',
        existing.status === 'dead' ? `Golem ${golemId} is dead; a Golem id is never reused` : `Golem ${golemId} exists already`,
      )
  }

  /**
   * The Golem's draft and whether it was registered. A draft written while an earlier one still waited
   * for its owner (two askers at once) is not the draft: the earlier one is.
   */
  async #latest(golemId: string, now: bigint): Promise<{ draft: GolemDraft; status: DraftStatus } | undefined> {
    const records = await this.deps.store.readLog({ log: draftLog(golemId), order: 'asc', limit: 1000 })
    let draft: GolemDraft | undefined
    let registered = false
    for (const r of records) {
      if ('registered' in r.data) registered = true
      else if ('draft' in r.data && (!draft || BigInt(r.at) > draft.answerBy * 1000n)) draft = parseGolemDraft(r.data.draft)
    }
    if (!draft) return undefined
    return { draft, status: registered ? 'registered' : now > draft.answerBy ? 'expired' : 'waiting' }
  }

  #view(draft: GolemDraft, status: DraftStatus): DraftView {
    const domain = delegationDomainOf(this.deps.deployment)
    return {
      ...draft,
      status,
      delegations: draft.delegations.map((d) => ({ ...d, typedData: delegationTypedData(d.delegation, domain) })),
    }
  }

  /** The owner's separate smart account: the Hybrid DeleGator whose signer is the wallet's account (MetaMask's default salt). */
  #smartAccountOf(owner: Address) {
    return toMetaMaskSmartAccount({
      client: this.deps.client as never,
      implementation: Implementation.Hybrid,
      deployParams: [owner, [], [], []],
      deploySalt: '0x',
      environment: this.deps.deployment.environment,
    })
  }
}
