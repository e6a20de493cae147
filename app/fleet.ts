// The owner's fleet as the dashboard shows it: every Golem of one owner's smart account from the store,
// with each grant decoded and each caveat in words, the renewals and the narrower grant waiting behind
// the runway, what the gas grant and each action grant's daily limit still allow (read from their
// enforcers), and where a dead Golem's money went. Read-only: the store and the chain are only read.
import { isAddress, type Address, type PublicClient } from 'viem'
import type { Delegation } from '@metamask/smart-accounts-kit'
import { decodeDelegationCaveats } from '../core/caveats/caveat.ts'
import { summarizeCaveats } from '../core/caveats/summarizeDelegation.ts'
import type { BardoDeployment } from '../core/deployment.ts'
import { parseGolemProfile, type GolemProfile } from '../core/lifecycle/profile.ts'
import { PeriodTransferEnforcerAbi } from '../core/delegations/frameworkAbi.ts'
import { DailySpendLimitEnforcerAbi } from '../contracts/artifacts/index.ts'
import type { Store } from '../core/store/index.ts'
import { BardoError } from '../core/errors.ts'
import { loadActionGrant } from './actions/actionGrantStore.ts'

/** What the fleet is read from: the store, the chain, the deployment and the runway token. */
export type FleetChain = {
  publicClient: Pick<PublicClient, 'readContract' | 'getBlock'>
  deployment: BardoDeployment
  usdc: Address
}

export class FleetError extends BardoError {
  constructor(field: string, rule: string) {
    super('VALIDATION_FAILED', `${field}: ${rule}`, { details: { field, rule } })
  }
}

/** The tokens the page names, by lowercase address: the local assets with their symbols and decimals. */
export function knownTokens(chain: Pick<FleetChain, 'deployment' | 'usdc'>): Record<string, { symbol: string; decimals: number }> {
  const assets = chain.deployment.assets
  return {
    [chain.usdc.toLowerCase()]: { symbol: 'USDC', decimals: 6 },
    ...(assets?.weth ? { [assets.weth.toLowerCase()]: { symbol: 'WETH', decimals: 18 } } : {}),
  }
}

/** Delegations as the page sees them: the struct with decimal salts and each caveat in words. */
function describeGrant(delegation: Delegation, chain: FleetChain, now: bigint) {
  const decoded = decodeDelegationCaveats(delegation, chain.deployment, chain.deployment.environment)
  const tokens = knownTokens(chain)
  return {
    delegator: delegation.delegator,
    delegate: delegation.delegate,
    caveats: decoded.map((c, i) => ({
      type: c.type,
      enforcer: delegation.caveats[i]!.enforcer,
      words: summarizeCaveats([c], { tokens }, now),
    })),
  }
}

function fleetEntry(
  record: { golemId: string; owner: Address; status: string; phase: string; profile: string | null },
  stackChain: FleetChain,
  now: bigint,
) {
  const profile: GolemProfile | undefined = record.profile ? parseGolemProfile(record.profile) : undefined
  // The owner's grant is the chain's root; an ERC-7715 Golem's leaf is its Session Account's re-delegation.
  const chain = profile?.runway.chain ?? []
  const grant = chain[chain.length - 1]
  const redelegation = chain.length > 1 ? chain[0] : undefined
  return {
    id: record.golemId,
    owner: record.owner,
    status: record.status,
    phase: record.phase,
    key: profile?.golemKey ?? null,
    bornAt: profile ? Number(profile.life.bornAt) : null,
    runwayEndsAt: profile ? Number(profile.life.runwayEndsAt) : null,
    runway: profile
      ? {
          token: profile.runway.token,
          periodAmount: profile.runway.periodAmount.toString(),
          periodSeconds: Number(profile.runway.periodDuration),
          expiresAt: Number(profile.runway.expiresAt),
          delegationHash: profile.runway.periodDelegationHash,
        }
      : null,
    renewals: (profile?.renewals ?? []).map((r) => ({
      delegationHash: r.periodDelegationHash,
      periodStart: Number(r.periodStart),
      expiresAt: Number(r.expiresAt),
    })),
    /** The owner's narrower grant, signed and waiting for the owner's transaction that disables the grants it supersedes. */
    adjustment: profile?.adjustment
      ? {
          delegationHash: profile.adjustment.periodDelegationHash,
          periodAmount: profile.adjustment.periodAmount.toString(),
          periodStart: Number(profile.adjustment.periodStart),
          expiresAt: Number(profile.adjustment.expiresAt),
        }
      : null,
    /** `permissions`: granted through the wallet's Advanced Permissions, revoked and changed in the wallet. */
    shape: redelegation ? 'permissions' : 'delegations',
    grant: grant ? describeGrant(grant, stackChain, now) : null,
    redelegation: redelegation ? describeGrant(redelegation, stackChain, now) : null,
    /** The Replicants this Golem spawned, each with its own record's id (null for one signed by hand). */
    replicants: (profile?.replicants ?? []).map((r) => ({
      hash: r.hash,
      golemId: r.golemId ?? null,
      ...describeGrant(r.delegation, stackChain, now),
    })),
    /** A Replicant's parent Golem (the one whose sub-delegation it redeems), or null. */
    parent: profile?.parent?.golemId ?? null,
    /** The owner's native-token gas grant to the key, in words. */
    gas: profile?.gas
      ? {
          periodAmount: profile.gas.periodAmount.toString(),
          periodSeconds: Number(profile.gas.periodDuration),
          delegationHash: profile.gas.periodDelegationHash,
          ...describeGrant(profile.gas.chain[0]!, stackChain, now),
        }
      : null,
  }
}

/** The action grants in force for a Golem, each with its caveats in words and, under a daily USD limit, what is left of it today. */
async function actionGrantsOf(store: Pick<Store, 'lastLogRecord'>, golemId: string, chain: FleetChain, now: bigint) {
  const grant = await loadActionGrant(store, golemId)
  const limiter = chain.deployment.enforcers.dailySpendLimit.toLowerCase()
  return Promise.all(
    (grant?.delegations ?? []).map(async (e) => {
      const delegation = e.chain[0]!
      const limit = delegation.caveats.find((c) => c.enforcer.toLowerCase() === limiter)
      const left = limit
        ? await chain.publicClient.readContract({
            address: chain.deployment.enforcers.dailySpendLimit,
            abi: DailySpendLimitEnforcerAbi,
            functionName: 'remainingToday',
            args: [chain.deployment.environment.DelegationManager, e.hash, limit.terms],
          })
        : null
      return {
        hash: e.hash,
        label: e.label,
        ...describeGrant(delegation, chain, now),
        leftTodayUsd6: left ? left[0].toString() : null,
        resetsAt: left ? Number(left[1]) : null,
      }
    }),
  )
}

/** What the gas grant still allows in its current period (the enforcer's own count), or null without one. */
async function gasLeftOf(chain: FleetChain, profile: GolemProfile | undefined): Promise<string | null> {
  if (!profile?.gas) return null
  const environment = chain.deployment.environment
  const [available] = await chain.publicClient.readContract({
    address: environment.caveatEnforcers.NativeTokenPeriodTransferEnforcer as Address,
    abi: PeriodTransferEnforcerAbi,
    functionName: 'getAvailableAmount',
    args: [profile.gas.periodDelegationHash, environment.DelegationManager, profile.gas.periodTerms],
  })
  return available.toString()
}

/** Where a dead Golem's money went: what the death protocol sent home, per asset, and why it died. */
async function deathOf(store: Pick<Store, 'getDeathSettlement'>, golemId: string) {
  const death = await store.getDeathSettlement(golemId)
  if (!death) return null
  const settlement = death.settlement as {
    expiryCause?: string
    fundsReturned?: { asset: string; status: string; amount?: string; txHash?: string }[]
  }
  return {
    kind: death.kind,
    // A grant's end: the owner's revocation, or its natural expiry.
    cause: settlement.expiryCause === 'OwnerRevocation' || settlement.expiryCause === 'NaturalExpiry' ? settlement.expiryCause : null,
    returned: (settlement.fundsReturned ?? []).map((f) => ({
      asset: f.asset,
      status: f.status,
      amount: f.amount ?? null,
      txHash: f.txHash ?? null,
    })),
  }
}

export type FleetStore = Pick<Store, 'findGolems' | 'getDeathSettlement' | 'lastLogRecord'>

/** Every Golem of the owner's smart account, as the dashboard lists them, at the chain's latest block. */
export async function ownerFleet(store: FleetStore, chain: FleetChain, owner: string) {
  if (!isAddress(owner)) throw new FleetError('owner', 'must be the owner smart account address')
  const now = (await chain.publicClient.getBlock({ blockTag: 'latest' })).timestamp
  const golems = await store.findGolems({ owner })
  const entries = await Promise.all(
    golems.map(async (g) => {
      const entry = fleetEntry(g, chain, now)
      const profile = g.profile ? parseGolemProfile(g.profile) : undefined
      const gasLeft = g.status === 'dead' ? null : await gasLeftOf(chain, profile)
      return {
        ...entry,
        gas: entry.gas ? { ...entry.gas, availableInPeriod: gasLeft } : null,
        actionGrants: await actionGrantsOf(store, g.golemId, chain, now),
        death: g.status === 'dead' ? await deathOf(store, g.golemId) : null,
      }
    }),
  )
  // Each Replicant is listed under its parent: its status and phase on the parent's list, its own entry right after the parent's.
  const byId = new Map(entries.map((e) => [e.id, e]))
  const listed = entries.map((e) => ({
    ...e,
    replicants: e.replicants.map((r) => {
      const own = r.golemId ? byId.get(r.golemId) : undefined
      return { ...r, status: own?.status ?? null, phase: own?.phase ?? null }
    }),
  }))
  const children = (id: string) => listed.filter((e) => e.parent === id)
  const ordered = listed.filter((e) => e.parent === null || !byId.has(e.parent)).flatMap((e) => [e, ...children(e.id)])
  return { owner, now: Number(now), golems: ordered }
}

export type OwnerFleet = Awaited<ReturnType<typeof ownerFleet>>
