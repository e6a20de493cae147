// A Coordination Council on a devnet: three registered Golems, their session keys the signers of a
// 2-of-3 MultiSig DeleGator deployed through the kit's factory, and the owner's bounded delegation to it
// (USDC transfers to one pinned treasury, $1,000 a UTC day, 30 days).
import { Implementation, toMetaMaskSmartAccount, type Delegation, type MetaMaskSmartAccount } from '@metamask/smart-accounts-kit'
import { encodeCalls } from '@metamask/smart-accounts-kit/utils'
import { parseEther, type Address, type Hex } from 'viem'
import { entryPoint07Abi, toPackedUserOperation, type UserOperation } from 'viem/account-abstraction'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import {
  buildCouncilDelegation,
  buildCouncilProposal,
  type CouncilConfig,
  type CouncilGas,
  type CouncilMember,
  type CouncilProposal,
  type CouncilSignature,
} from '../../core/council/index.ts'
import { smartAccountSigner } from '../../core/delegations/index.ts'
import type { GolemStatus } from '../../core/store/records.ts'
import { councilGas as chainCouncilGas } from '../../adapters/chain/council.ts'
import type { CouncilServiceDeps } from '../../app/council/councilService.ts'
import { councilChainDeps as productChainDeps } from '../../app/council/councils.ts'
import type { Devnet, OwnerAccount } from '../../local/devnet.ts'
import { chainNow, newGolem, newTree, transferCall, USD, waitOk } from './harness.ts'

export type CouncilFixture = {
  owner: OwnerAccount
  golems: PrivateKeyAccount[]
  members: CouncilMember[]
  council: MetaMaskSmartAccount
  config: CouncilConfig
  delegation: Delegation
  treasury: Address
  /** Custody's view of each member Golem (lifecycle, current session key), keyed by Golem id. */
  custody: Map<string, { lifecycle: GolemStatus; currentKey: Address }>
}

export async function setupCouncil(devnet: Devnet): Promise<CouncilFixture> {
  // Noon UTC, so every daily-limit assertion falls on one day.
  const now = await chainNow(devnet)
  await devnet.increaseTime((now / 86_400n + 1n) * 86_400n + 43_200n - now)
  await devnet.refreshFeeds()
  const owner = await devnet.createOwner()
  const golems = [await newGolem(devnet), await newGolem(devnet), await newGolem(devnet)]
  const members = golems.map((g, i) => ({ golemId: `golem-${i}`, signer: g.address }))
  const custody = new Map(members.map((m) => [m.golemId, { lifecycle: 'alive' as GolemStatus, currentKey: m.signer }]))
  const { council, config } = await deployCouncil(devnet, members, golems[0]!)
  const treasury = privateKeyToAccount(generatePrivateKey()).address
  const delegation = await grantCouncil(devnet, owner, council.address, treasury)
  return { owner, golems, members, council, config, delegation, treasury, custody }
}

/** The fixture's custody: each seat's Golem as the tests set it (alive, dying, rotated). */
export const fixtureCustody = (f: CouncilFixture) => async (id: string) => f.custody.get(id)

/** The council service's chain edge on the devnet (2 of the fixture's seats), as a deployment wires it; tests add the store and a clock. */
export function councilChainDeps(devnet: Devnet, f: CouncilFixture) {
  return {
    ...productChainDeps({
      publicClient: devnet.publicClient,
      vitalityOracle: devnet.deployment.vitalityOracle,
      submitter: devnet.deployer,
      custody: fixtureCustody(f),
    }),
    config: f.config,
    members: async () => f.members,
    threshold: 2,
    delegation: f.delegation,
  } satisfies Omit<CouncilServiceDeps, 'store' | 'clockMs'>
}

/** The council's gas as a deployment fixes it: generous limits at the chain's current fees. */
export const councilGas = (devnet: Devnet): Promise<CouncilGas> => chainCouncilGas(devnet.publicClient)

let proposals = 0
/** A proposal to transfer `amount` USDC to `to` from the owner's account, open for an hour. */
export async function proposeTransfer(
  devnet: Devnet,
  f: CouncilFixture,
  to: Address,
  amount: bigint,
  over: { delegation?: Delegation; deadline?: bigint } = {},
): Promise<CouncilProposal> {
  const now = await chainNow(devnet)
  proposals += 1
  return buildCouncilProposal({
    config: f.config,
    delegation: over.delegation ?? f.delegation,
    action: transferCall(devnet.deployment.assets.usdc, to, amount),
    id: `0x${proposals.toString(16).padStart(32, '0')}` as Hex,
    deadline: over.deadline ?? now + 3_600n,
    now,
    gas: await councilGas(devnet),
  })
}

/** Deploys a 2-of-n MultiSig DeleGator over the members' keys through the kit's factory, and funds its gas. */
export async function deployCouncil(
  devnet: Devnet,
  members: readonly CouncilMember[],
  signer: PrivateKeyAccount,
): Promise<{ council: MetaMaskSmartAccount; config: CouncilConfig }> {
  const council = await toMetaMaskSmartAccount({
    client: devnet.publicClient as never,
    implementation: Implementation.MultiSig,
    deployParams: [members.map((m) => m.signer), 2n],
    deploySalt: '0x',
    signer: [{ account: signer }],
    environment: devnet.deployment.environment,
  })
  const { factory, factoryData } = await council.getFactoryArgs()
  await waitOk(devnet, devnet.deployer.sendTransaction({ to: factory!, data: factoryData! }))
  // The council pays its own gas through the EntryPoint.
  await waitOk(devnet, devnet.deployer.sendTransaction({ to: council.address, value: parseEther('1') }))
  const config: CouncilConfig = {
    council: council.address,
    chainId: devnet.chain.id,
    entryPoint: council.entryPoint.address,
    delegationManager: devnet.deployment.environment.DelegationManager,
  }
  return { council, config }
}

/** The owner's signed delegation to `council`: USDC transfers to `treasury` only, $1,000 a UTC day, 30 days. */
export async function grantCouncil(devnet: Devnet, owner: OwnerAccount, council: Address, treasury: Address): Promise<Delegation> {
  const usdc = devnet.deployment.assets.usdc
  const start = await chainNow(devnet)
  const tree = newTree(devnet, start)
  const { hash } = buildCouncilDelegation({
    tree,
    owner: owner.address,
    council,
    bounds: {
      targets: [usdc],
      selectors: ['0xa9059cbb'],
      receivers: [{ startIndex: 4, receiver: treasury }],
      dailySpendLimit: {
        dailyLimitUsd: USD(1_000),
        maxPriceAge: 86_400,
        feeds: [{ token: usdc, decimals: 6, feed: devnet.deployment.assets.usdcUsdFeed }],
      },
      window: { startTime: start - 60n, endTime: start + 30n * 86_400n },
    },
  })
  return tree.sign(hash, smartAccountSigner(owner.smartAccount))
}

/** A user operation of the council calling itself (its own signer management), under a fresh nonce key. */
export async function councilSelfCall(devnet: Devnet, config: CouncilConfig, data: Hex): Promise<UserOperation<'0.7'>> {
  const fees = await devnet.publicClient.estimateFeesPerGas()
  const key = BigInt(generatePrivateKey()) >> 64n
  const nonce = await devnet.publicClient.readContract({
    address: config.entryPoint,
    abi: entryPoint07Abi,
    functionName: 'getNonce',
    args: [config.council, key],
  })
  return {
    sender: config.council,
    nonce,
    callData: encodeCalls([{ to: config.council, value: 0n, data }]),
    callGasLimit: 500_000n,
    verificationGasLimit: 1_000_000n,
    preVerificationGas: 100_000n,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    signature: '0x',
  }
}

/** Runs a council user operation with members' signatures, sorted by signer as the MultiSigDeleGator requires. */
export async function handleCouncilOps(
  devnet: Devnet,
  config: CouncilConfig,
  op: UserOperation<'0.7'>,
  signatures: CouncilSignature[],
): Promise<void> {
  const sorted = [...signatures].sort((a, b) => (BigInt(a.signer) < BigInt(b.signer) ? -1 : 1))
  const signature = `0x${sorted.map((s) => s.signature.slice(2)).join('')}` as Hex
  await waitOk(
    devnet,
    devnet.deployer.writeContract({
      address: config.entryPoint,
      abi: entryPoint07Abi,
      functionName: 'handleOps',
      args: [[toPackedUserOperation({ ...op, signature })], devnet.deployer.account.address],
    }),
  )
}
