// The wallet's Advanced Permissions made into the Golem's custody: what the wallet granted
// (core/permissions/grantedPermission.ts) is re-delegated by the Golem's Session Account to its key,
// adding the phase gate over the life window (ended earlier where the wallet's expiry comes first); the
// gas re-delegation pays only the key. The profile's chains are [re-delegation, the wallet's grant], so
// a disabled grant or the owner's nonce increment stops both at the next heartbeat.
import type { Delegation } from '@metamask/smart-accounts-kit'
import { hashDelegation } from '@metamask/smart-accounts-kit/utils'
import { getAddress, type Hex } from 'viem'
import type { KeyIssuer } from '../../core/custody/keyIssuer.ts'
import type { BardoDeployment } from '../../core/deployment.ts'
import { buildRunwayRedelegation } from '../../core/delegations/buildRunwayRedelegation.ts'
import type { GolemProfile } from '../../core/lifecycle/profile.ts'
import type { GolemDraft } from '../../core/onboarding/golemDraft.ts'
import type { GrantedRunway } from '../../core/permissions/grantedPermission.ts'
import { grantTree, periodCaveatOf } from '../../core/permissions/golemGrants.ts'
import { golemProfileOf } from './golemRecord.ts'

const hashes = (chain: readonly Delegation[]): Hex[] => chain.map((d) => hashDelegation(d))

/** The Golem's profile on the wallet's grants, and its life's last second. */
export async function profileOfGranted(p: {
  deployment: BardoDeployment
  keys: KeyIssuer
  draft: GolemDraft & { sessionAccount: NonNullable<GolemDraft['sessionAccount']> }
  granted: GrantedRunway
  now: bigint
}): Promise<{ profile: GolemProfile; expiresAt: bigint }> {
  const { deployment, draft, granted } = p
  const enforcers = deployment.environment.caveatEnforcers
  let expiresAt = draft.expiresAt
  for (const e of [granted.runway.expiry, granted.gas.expiry]) if (e !== null && BigInt(e) - 1n < expiresAt) expiresAt = BigInt(e) - 1n
  const tree = grantTree({ deployment, now: p.now })
  const gate = [{ type: 'golemPhase' as const, golem: draft.golemKey, startTime: draft.startDate, endTime: expiresAt }]
  const runway = buildRunwayRedelegation({ tree, permission: { context: granted.runway.chain }, executionKey: draft.golemKey, bardo: gate })
  const gas = buildRunwayRedelegation({
    tree,
    permission: { context: granted.gas.chain },
    executionKey: draft.golemKey,
    bardo: gate,
    caveats: [{ type: 'allowedTargets', targets: [draft.golemKey] }],
  })
  const signer = p.keys.delegationSigner(draft.sessionAccount.signer)
  await tree.sign(runway.child.hash, signer)
  await tree.sign(gas.child.hash, signer)
  const runwayChain = runway.chain()
  const gasChain = gas.chain()
  const profile: GolemProfile = {
    ...golemProfileOf({
      chainId: deployment.chainId,
      golemKey: draft.golemKey,
      signer: draft.signer,
      runway: {
        chain: runwayChain,
        periodDelegationHash: granted.runway.root.hash,
        periodTerms: periodCaveatOf(granted.runway.root.delegation, enforcers.ERC20PeriodTransferEnforcer, 'runway'),
        chainHashes: hashes(runwayChain),
        periodStart: BigInt(granted.runway.startDate),
      },
      token: granted.runway.token ?? draft.token,
      periodAmount: granted.runway.periodAmount,
      periodDuration: BigInt(granted.runway.periodDuration),
      expiresAt,
      now: draft.startDate,
    }),
    gas: {
      chain: gasChain,
      periodAmount: granted.gas.periodAmount,
      periodDuration: BigInt(granted.gas.periodDuration),
      periodStart: BigInt(granted.gas.startDate),
      periodDelegationHash: granted.gas.root.hash,
      periodTerms: periodCaveatOf(granted.gas.root.delegation, enforcers.NativeTokenPeriodTransferEnforcer, 'gas'),
      chainHashes: hashes(gasChain),
    },
    sessionAccount: draft.sessionAccount,
  }
  if (enforcers.NonceEnforcer)
    profile.runway.nonce = {
      enforcer: getAddress(enforcers.NonceEnforcer),
      delegator: granted.runway.delegator,
      value: granted.runway.nonce,
    }
  return { profile, expiresAt }
}
