// The owner's and the operator's acts on one onboarded Golem: status (store and chain side by side),
// revoke (the owner's kill switch: disableDelegation from the smart account), renew (the owner's
// superseding grant with a later end), rotate (a new session key now, the owner re-granting the rest
// of the runway to it) and resume (the operator lifts the heartbeat anomaly's halt once its cause is
// fixed). Each refuses a Golem it cannot act on before anything is sent or written.
import { chainTime } from './output.ts'
import { formatEther, pad, toHex, type Account, type Address, type Hex, type PublicClient } from 'viem'
import { phaseNames } from '../core/lifecycle/phase.ts'
import { parseGolemProfile, type GolemProfile } from '../core/lifecycle/profile.ts'
import { renewalWindow } from '../core/lifecycle/renewal.ts'
import { ownerActTime } from '../core/lifecycle/eventOrder.ts'
import { isHalted, liftHalt } from '../core/lifecycle/heartbeatAnomaly.ts'
import { grantEndOf, grantInForce, latestGrant } from '../core/lifecycle/grantInForce.ts'
import { adjustmentInForce } from '../core/lifecycle/adjustmentInForce.ts'
import { readRequestOf } from '../core/lifecycle/observation.ts'
import { readGolems } from '../adapters/chain/readGolems.ts'
import { formatUsdc } from '../core/permissions/index.ts'
import type { GolemRecord, Store } from '../core/store/index.ts'
import { StoreRenewalService } from '../app/renewal.ts'
import { rotateOnRequest, RotationRequestError } from '../app/tick/rotateOnRequest.ts'
import { KeystoreSignerResolver } from '../adapters/signers/keystoreSignerResolver.ts'
import type { OwnerAccount } from '../local/devnet.ts'
import { sendOwnerCalls } from '../local/ownerActions.ts'
import { revocationOf, wakeRevoked } from '../app/revocation.ts'
import { signRunwayGrant } from '../local/provision.ts'
import type { CliChain, CliDeployment } from './context.ts'
import { CliRefusedError } from './errors.ts'
import { KeystoreKeyRotation, type KeystoreSettings } from './golemKeys.ts'
import { assertOwns } from './owner.ts'
import { sendingAs, submitterRole } from './unfunded.ts'

export async function golemOf(store: Store, golemId: string): Promise<{ record: GolemRecord; profile: GolemProfile }> {
  const record = await store.getGolem(golemId)
  if (!record) throw new CliRefusedError('--golem', `names no Golem in the store: ${golemId}`)
  if (!record.profile) throw new CliRefusedError('--golem', `Golem ${golemId} has no custody profile`)
  return { record, profile: parseGolemProfile(record.profile) }
}

/** How many of the Golem's latest events `bardo status` lists. */
export const STATUS_EVENTS = 50

export type GolemStatus = {
  golemId: string
  status: string
  /** Halted by the heartbeat anomaly after this many failed ticks in a row (`bardo resume` lifts it); null when not. */
  halted: { failures: number } | null
  owner: Address
  golemKey: Address
  store: { phase: string; nextTickAt: number; lastTick: unknown; events: string[] }
  chain: { registered: boolean; phase: string; grantDisabled: boolean; keyEth: bigint; blockTime: bigint }
  /** The grant in force; `expiresAt` and `secondsLeft` run to the newest grant's end (queued renewals follow it). */
  grant: { delegationHash: Hex; periodAmount: bigint; periodSeconds: bigint; expiresAt: bigint; secondsLeft: bigint }
  /** The owner's renewals waiting behind the grant in force, oldest first. */
  renewals: { delegationHash: Hex; periodStart: bigint; expiresAt: bigint }[]
}

export async function golemStatus(store: Store, chain: CliChain, deployment: CliDeployment, golemId: string): Promise<GolemStatus> {
  const { record, profile } = await golemOf(store, golemId)
  const client = chain.publicClient
  // The tick's own read of the grant in force (a queued renewal once the runway's end has passed, an
  // owner's adjustment once the grants it supersedes read disabled), so an owner's NonceEnforcer increment
  // reads revoked as the tick reads it, and an adjustment does not.
  const block = await client.getBlock()
  const readOf = async (p: GolemProfile) => (await readGolems(client, deployment, [readRequestOf(golemId, p)], block)).golems[0]!
  const renewed = grantInForce(profile, block.timestamp)
  const first = await readOf(renewed)
  const inForce = adjustmentInForce(renewed, first)
  const read = inForce === renewed ? first : await readOf(inForce)
  // The latest events, oldest first.
  const events = await store.listEvents({ golemId, limit: STATUS_EVENTS, order: 'desc' })
  const end = grantEndOf(inForce)
  return {
    golemId,
    status: record.status,
    halted: isHalted(record.lastTick) ? { failures: record.lastTick?.failures ?? 0 } : null,
    owner: record.owner,
    golemKey: profile.golemKey,
    store: {
      phase: record.phase,
      nextTickAt: record.nextTickAt,
      lastTick: record.lastTick ?? null,
      events: events.events.map((e) => e.type).reverse(),
    },
    chain: {
      registered: read.registered,
      phase: phaseNames[read.phase],
      grantDisabled: read.disabled,
      keyEth: read.ethBalance ?? (await client.getBalance({ address: profile.golemKey })),
      blockTime: block.timestamp,
    },
    grant: {
      delegationHash: inForce.runway.periodDelegationHash,
      periodAmount: inForce.runway.periodAmount,
      periodSeconds: inForce.runway.periodDuration,
      expiresAt: end,
      secondsLeft: end > block.timestamp ? end - block.timestamp : 0n,
    },
    renewals: inForce.renewals.map((r) => ({ delegationHash: r.periodDelegationHash, periodStart: r.periodStart, expiresAt: r.expiresAt })),
  }
}

export function statusLines(s: GolemStatus): string[] {
  return [
    `Golem ${s.golemId}: ${s.status}, phase ${s.store.phase} (oracle: ${s.chain.registered ? s.chain.phase : 'not registered'})`,
    ...(s.halted
      ? [`  HALTED    after ${s.halted.failures} failed tick(s) in a row: no tick runs but its death; bardo resume once the cause is fixed`]
      : []),
    `  owner     ${s.owner}`,
    `  key       ${s.golemKey} (${formatEther(s.chain.keyEth)} ETH)`,
    `  grant     ${formatUsdc(s.grant.periodAmount)} USDC per ${s.grant.periodSeconds} s, ${s.chain.grantDisabled ? 'REVOKED by the owner' : `${s.grant.secondsLeft} s left`} (${s.grant.delegationHash})`,
    ...s.renewals.map((r) => `  renewal   from ${chainTime(r.periodStart)} to ${chainTime(r.expiresAt)} (${r.delegationHash})`),
    `  events    ${s.store.events.join(', ') || 'none'}`,
  ]
}

export async function revokeGolem(o: {
  store: Store
  chain: CliChain
  deployment: CliDeployment
  owner: OwnerAccount
  submitter: Account
  golemId: string
  progress(line: string): void
}): Promise<{ golemId: string; disabled: Hex[]; alreadyDisabled: Hex[]; txHash: Hex | null }> {
  const { record } = await golemOf(o.store, o.golemId)
  assertOwns(o.owner, record.owner, o.golemId)
  const dm = o.deployment.environment.DelegationManager
  const plan = await revocationOf({ store: o.store, client: o.chain.publicClient, delegationManager: dm }, o.golemId)
  let txHash: Hex | null = null
  let block: bigint | undefined
  if (plan.calls.length > 0) {
    // One transaction from the owner's account: every grant the owner signed for this Golem, at once.
    const receipt = await sendingAs(
      sendOwnerCalls({
        publicClient: o.chain.publicClient as PublicClient,
        submitter: o.chain.wallet(o.submitter),
        smartAccount: o.owner.smartAccount,
        calls: plan.calls.map((c) => ({ to: c.to, data: c.data })),
      }),
      submitterRole(o.chain, o.submitter),
    )
    txHash = receipt.transactionHash
    block = receipt.blockNumber
    const kinds = [...new Set(plan.calls.map((c) => c.kind))].join(', ')
    o.progress(`revoked       ${plan.calls.length} delegation(s) (${kinds}) disabled by the owner's smart account in ${txHash}`)
  } else o.progress('revoked       already: every grant of this Golem is disabled on-chain')
  const { timestamp } = await o.chain.publicClient.getBlock(block === undefined ? {} : { blockNumber: block })
  await o.store.appendEvent({
    golemId: o.golemId,
    type: 'OwnerRevoked',
    at: ownerActTime(timestamp),
    eventId: `OwnerRevoked:${txHash ?? 'already'}`,
    data: { delegationHashes: plan.calls.map((c) => c.hash), alreadyDisabled: plan.alreadyDisabled, txHash },
  })
  // Due now: the next heartbeat sees the revocation and runs the death protocol.
  await wakeRevoked({ store: o.store, client: o.chain.publicClient, delegationManager: dm }, o.golemId, Date.now())
  return { golemId: o.golemId, disabled: plan.calls.map((c) => c.hash), alreadyDisabled: plan.alreadyDisabled, txHash }
}

/**
 * Lifts the halt of a Golem whose ticks kept failing, once what failed them is fixed: its failure count
 * cleared and the Golem due now, so the next heartbeat ticks it and settles what the failed ticks left
 * open. The owner is told by a HeartbeatResumed event. Should it keep failing, it is halted again.
 */
export async function resumeGolem(o: { store: Store; golemId: string; now: number }): Promise<{ golemId: string; failures: number }> {
  const { record } = await golemOf(o.store, o.golemId)
  const lifted = liftHalt(record)
  if ('refused' in lifted) throw new CliRefusedError('--golem', lifted.refused)
  const updated = await o.store.updateGolem({
    golemId: o.golemId,
    expectedVersion: record.version,
    patch: { lastTick: lifted.lastTick, nextTickAt: o.now },
    now: o.now,
  })
  if (!updated.updated)
    throw new CliRefusedError('--golem', `Golem ${o.golemId} changed while it was being resumed: run bardo resume again`)
  await o.store.appendEvent({
    golemId: o.golemId,
    type: 'HeartbeatResumed',
    at: o.now,
    eventId: `HeartbeatResumed:${o.now}`,
    data: { failures: lifted.failures },
  })
  return { golemId: o.golemId, failures: lifted.failures }
}

export async function renewGolem(o: {
  store: Store
  chain: CliChain
  deployment: CliDeployment
  owner: OwnerAccount
  golemId: string
  extendSeconds: bigint
  progress(line: string): void
}): Promise<{ golemId: string; delegationHash: Hex; replaced: Hex; expiresAt: bigint }> {
  const { record, profile } = await golemOf(o.store, o.golemId)
  assertOwns(o.owner, record.owner, o.golemId)
  if (record.status === 'dead') throw new CliRefusedError('--golem', `Golem ${o.golemId} is dead; a dead Golem is not renewed`)
  const now = (await o.chain.publicClient.getBlock()).timestamp
  const latest = latestGrant(profile)
  // The renewal follows the newest grant: from the first period it no longer pays, for whole periods.
  const window = renewalWindow(profile, now, o.extendSeconds)
  const signed = await signRunwayGrant({
    deployment: o.deployment,
    owner: o.owner,
    golemKey: profile.golemKey,
    token: profile.runway.token,
    periodAmount: latest.periodAmount,
    periodDuration: profile.runway.periodDuration,
    startDate: window.startDate,
    expiresAt: window.endTime,
    now,
    // A renewal follows the newest grant: its salt is above that grant's.
    salt: pad(toHex(BigInt(latest.chain[0]!.salt) + 1n), { size: 32 }),
  })
  const outcome = await new StoreRenewalService({
    store: o.store,
    client: o.chain.publicClient as PublicClient,
    deployment: o.deployment,
  }).renew(o.golemId, signed.chain[0]!)
  o.progress(
    `renewed       grant ${outcome.delegationHash} follows ${outcome.replaced} from ${chainTime(window.startDate)}, ends ${chainTime(outcome.expiresAt)}`,
  )
  return { golemId: o.golemId, delegationHash: outcome.delegationHash, replaced: outcome.replaced, expiresAt: outcome.expiresAt }
}

/**
 * The operator's rotation of a Golem whose key is a keystore file of this CLI: the tick's rotation, now
 * (app/tick/rotateOnRequest.ts). A refused or failed attempt leaves no key file behind.
 */
export async function rotateGolem(o: {
  store: Store
  chain: CliChain
  deployment: CliDeployment
  owner: OwnerAccount
  operator: Account & { signTransaction: NonNullable<Account['signTransaction']> }
  submitter: Account
  keys: KeystoreSettings
  golemId: string
  gas: bigint
  progress(line: string): void
}): Promise<{ golemId: string; from: Address; to: Address }> {
  const { record } = await golemOf(o.store, o.golemId)
  assertOwns(o.owner, record.owner, o.golemId)
  const rotation = new KeystoreKeyRotation({
    keys: o.keys,
    golemId: o.golemId,
    deployment: o.deployment,
    owner: o.owner,
    chain: o.chain,
    submitter: o.submitter,
    gas: o.gas,
    fund: (sending) => sendingAs(sending, submitterRole(o.chain, o.submitter)),
  })
  try {
    // The operator's rotateGolemKey is the rotation's one transaction after the owner's funding.
    const rotating = rotateOnRequest(
      {
        store: o.store,
        client: o.chain.publicClient as PublicClient,
        deployment: o.deployment,
        signers: new KeystoreSignerResolver(o.deployment, o.keys.passphrase),
        operator: o.operator as never,
        invocationId: `cli-rotate-${process.pid}-${Date.now()}`,
        rotation,
      },
      o.golemId,
      { before: () => ownerCanFund(o.chain, o.owner, o.gas) },
    )
    const rotated = await sendingAs(rotating, {
      chain: o.chain,
      account: o.operator.address,
      variable: 'BARDO_OPERATOR_KEY',
      role: "moves the Golem's identity on the VitalityOracle",
    }).catch(asCliRefusal)
    o.progress(`rotated       ${rotated.from} -> ${rotated.to}; the old key is dead on the oracle and its keystore deleted`)
    return { golemId: o.golemId, from: rotated.from, to: rotated.to }
  } finally {
    await rotation.discardUnkept(o.store)
  }
}

/** The rotation's refusals name the CLI's flag. */
export function asCliRefusal(error: unknown): never {
  if (error instanceof RotationRequestError) throw new CliRefusedError('--golem', error.rule, { code: error.code })
  throw error
}

/** The owner's smart account sends the new key its first gas: refused before a key is made when it cannot. */
async function ownerCanFund(chain: CliChain, owner: OwnerAccount, gas: bigint): Promise<void> {
  if (gas === 0n) return
  const held = await chain.publicClient.getBalance({ address: owner.address })
  if (held < gas)
    throw new CliRefusedError(
      '--gas',
      `the owner's smart account ${owner.address} sends the new key ${formatEther(gas)} ETH and holds ${formatEther(held)} ETH: send it ETH${chain.chainId === 31337 ? ` (locally: npm run faucet -- ${owner.address} 0 1)` : ''} or pass a smaller --gas`,
    )
}
