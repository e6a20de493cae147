// `bardo onboard`: a Golem from a STRATEGY.md. Compile it into the minimal permission plan, show the
// owner the plan in words, refuse what onboarding refuses (over the runway guardrail without the
// owner's override in the document and the operator's --override; an id that already holds an active
// grant), have the Alchemy webhook watch the owner (with an Alchemy Notify token), then the owner's
// smart account signs the runway grant to a fresh session key (a keystore file or a KMS key), the
// operator registers the key on the VitalityOracle, the owner grants gas, and the Golem is recorded in
// the store, due at once, so the next heartbeat ticks it. The key is a keystore file (a development or
// self-hosted operator) or a key created in the deployed stack's KMS (--kms).
import { readFileSync } from 'node:fs'
import { encodeFunctionData, formatEther, type Account, type Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { estimateGasWithHeadroom } from '../adapters/chain/gasHeadroom.ts'
import { VitalityOracleAbi } from '../contracts/artifacts/index.ts'
import {
  compileStrategy,
  formatUsdc,
  GUARDRAIL_MAX_DAILY_CAP,
  GUARDRAIL_MAX_RUNWAY_DAYS,
  localRegistry,
  publicRegistry,
  type ProtocolRegistry,
} from '../core/permissions/index.ts'
import type { GolemProfile } from '../core/lifecycle/profile.ts'
import type { Store } from '../core/store/index.ts'
import type { DevnetClients, OwnerAccount } from '../local/devnet.ts'
import { windowEnd } from '../core/lifecycle/renewal.ts'
import { golemProfileOf, recordGolem } from '../app/onboarding/golemRecord.ts'
import { planInWords } from '../core/onboarding/planInWords.ts'
import { NEW_GOLEM_ID, NEW_GOLEM_ID_RULE } from '../core/onboarding/golemDraft.ts'
import { grantGas, signRunwayGrant } from '../local/provision.ts'
import type { CliChain, CliDeployment } from './context.ts'
import { sendingAs, submitterRole } from './unfunded.ts'
import { CliRefusedError, CliUsageError } from './errors.ts'

export type OnboardFlags = {
  golem: string
  strategy: string
  override: boolean
  lifeSeconds?: bigint
  periodSeconds?: bigint
}

export function checkGolemId(id: string | undefined): string {
  if (id === undefined) throw new CliUsageError('--golem', 'is required: the Golem id')
  // The API's rule for a new Golem's id, so the CLI and the API refuse the same ids.
  if (!NEW_GOLEM_ID.test(id)) throw new CliUsageError('--golem', `${NEW_GOLEM_ID_RULE}, got ${JSON.stringify(id)}`)
  return id
}

export function positiveSeconds(flag: string, raw: string | undefined): bigint | undefined {
  if (raw === undefined) return undefined
  if (!/^[1-9]\d{0,11}$/.test(raw))
    throw new CliUsageError(flag, `must be a whole number of seconds greater than 0, got ${JSON.stringify(raw)}`)
  return BigInt(raw)
}

export function readStrategyFile(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    throw new CliUsageError('--strategy', `must be a readable STRATEGY.md file, got ${JSON.stringify(path)}`)
  }
}

function registryOf(deployment: CliDeployment): ProtocolRegistry {
  if (deployment.assets) return localRegistry(deployment.assets)
  return publicRegistry(deployment.chainId)
}

export type OnboardResult = {
  golemId: string
  golemKey: Address
  owner: Address
  delegationHash: string
  expiresAt: bigint
  periodAmount: bigint
  plan: string[]
}

export async function onboard(o: {
  flags: OnboardFlags
  chain: CliChain
  deployment: CliDeployment
  store: Store
  owner: OwnerAccount
  operator: Account
  submitter: Account
  /**
   * Has the Alchemy webhook watch the owner's delegation events (with ALCHEMY_NOTIFY_TOKEN); resolves to
   * a line for the progress. Runs once the plan is accepted, before a key is made or anything is signed.
   */
  watchOwner?(owner: Address): Promise<string>
  /** Makes the Golem's session key (a keystore file, or a key created in KMS). */
  newKey(): Promise<{ address: Address; signer: GolemProfile['signer']; where: string }>
  progress(line: string): void
}): Promise<OnboardResult> {
  const { flags, chain, deployment, store, owner } = o
  const golemId = flags.golem
  // A conflicting grant is refused before anything is signed, sent or written.
  const existing = await store.getGolem(golemId)
  if (existing)
    throw new CliRefusedError(
      '--golem',
      existing.status === 'dead'
        ? `Golem ${golemId} is dead; a Golem id is never reused (choose another)`
        : `Golem ${golemId} already has an active grant (key ${existing.sessionKeyAddress}); revoke it or renew it instead`,
    )
  const text = readStrategyFile(flags.strategy)
  const now = (await chain.publicClient.getBlock()).timestamp
  const compile = (sessionKey: Address) =>
    compileStrategy({
      text,
      chainId: deployment.chainId,
      owner: owner.address,
      sessionKey,
      now: Number(now),
      registry: registryOf(deployment),
    })
  // Compiled once against a throwaway address to check the plan before a key is written for it.
  const draft = compile(privateKeyToAccount(generatePrivateKey()).address)
  const overGuardrail = draft.dailyUsdcCap > GUARDRAIL_MAX_DAILY_CAP || draft.runwayDays > GUARDRAIL_MAX_RUNWAY_DAYS
  if (overGuardrail && !flags.override)
    throw new CliUsageError(
      '--override',
      `the plan asks ${formatUsdc(draft.dailyUsdcCap)} USDC/day for ${draft.runwayDays} days, over the ${formatUsdc(GUARDRAIL_MAX_DAILY_CAP)} USDC/day or ${GUARDRAIL_MAX_RUNWAY_DAYS}-day guardrail; the owner's document says override: true, and the operator must confirm with --override`,
    )
  const lifeSeconds = flags.lifeSeconds ?? BigInt(draft.runwayDays) * 86_400n
  const periodSeconds = flags.periodSeconds ?? 86_400n
  if (periodSeconds > lifeSeconds)
    throw new CliUsageError('--period-seconds', `must not exceed the life (${lifeSeconds} s), got ${periodSeconds}`)
  const plan = planInWords(draft, lifeSeconds, periodSeconds)
  for (const line of plan) o.progress(line)

  if (o.watchOwner) o.progress(`owner         ${owner.address} ${await o.watchOwner(owner.address)}`)
  const key = await o.newKey()
  o.progress(`session key   ${key.address} (${key.where})`)
  const compiled = compile(key.address)
  // The window's end is inclusive: the life's last second, the last second of its last period.
  const expiresAt = windowEnd(now, lifeSeconds)
  const runway = await signRunwayGrant({
    deployment,
    owner,
    golemKey: key.address,
    token: compiled.usdc,
    periodAmount: compiled.dailyUsdcCap,
    periodDuration: periodSeconds,
    startDate: now,
    expiresAt,
    now,
  })
  o.progress(`grant         signed by the owner's smart account (delegation ${runway.periodDelegationHash})`)
  const operator = chain.wallet(o.operator)
  const register = {
    to: deployment.vitalityOracle,
    data: encodeFunctionData({ abi: VitalityOracleAbi, functionName: 'registerGolem', args: [key.address] }),
  }
  const registered = await chain.publicClient.waitForTransactionReceipt({
    hash: await sendingAs(
      estimateGasWithHeadroom(operator, register).then((gas) => operator.sendTransaction({ ...register, gas })),
      { chain, account: o.operator.address, variable: 'BARDO_OPERATOR_KEY', role: "registers the Golem's key on the VitalityOracle" },
    ),
  })
  if (registered.status !== 'success')
    throw new CliRefusedError('registerGolem', `the VitalityOracle refused ${key.address} (${registered.transactionHash})`)
  o.progress(`registered    on the VitalityOracle (${registered.transactionHash})`)
  // grantGas sends the owner's first gas through the EntryPoint from `deployer`: here the submitter.
  const clients = { chain: chain.chain, publicClient: chain.publicClient, deployer: chain.wallet(o.submitter) } as unknown as DevnetClients
  const gas = await sendingAs(
    grantGas(clients, {
      deployment,
      owner,
      golemKey: key.address,
      periodAmount: compiled.dailyGasCap,
      startDate: now,
      expiresAt,
      now,
    }),
    submitterRole(chain, o.submitter),
  )
  o.progress(`gas           granted, ${formatEther(gas.periodAmount)} ETH a day, first period sent to the key`)
  const profile = {
    ...golemProfileOf({
      chainId: deployment.chainId,
      golemKey: key.address,
      signer: key.signer,
      runway,
      token: compiled.usdc,
      periodAmount: compiled.dailyUsdcCap,
      periodDuration: periodSeconds,
      expiresAt,
      now,
    }),
    gas,
  }
  await recordGolem(store, { golemId, owner: owner.address, profile, now })
  o.progress(`recorded      in the store, due now: the next heartbeat ticks it`)
  return {
    golemId,
    golemKey: key.address,
    owner: owner.address,
    delegationHash: runway.periodDelegationHash,
    expiresAt,
    periodAmount: compiled.dailyUsdcCap,
    plan,
  }
}
