// Shared helpers for the on-chain suites: one devnet per test file, Golem keys registered in the
// VitalityOracle, owner-signed delegations, and redemptions sent by the delegate itself to the real
// DelegationManager (a leaf-first chain), with reverts decoded by name.
import {
  createDelegation,
  ROOT_AUTHORITY,
  signDelegation,
  type Caveat,
  type Delegation,
  type ExecutionStruct,
} from '@metamask/smart-accounts-kit'
import { generateSalt } from '@metamask/smart-accounts-kit/utils'
import {
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  isAddress,
  maxUint256,
  parseEther,
  http,
  type Account,
  type Address,
  type Chain,
  type Hex,
  type TransactionReceipt,
  type Transport,
  type WalletClient,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { expect } from 'vitest'
import { withGasHeadroom } from '../../adapters/chain/gasHeadroom.ts'
import * as artifacts from '../../contracts/artifacts/index.ts'
import { toCaveat } from '../../core/caveats/index.ts'
import type { BardoCaveat } from '../../core/caveats/index.ts'
import { DelegationTree, encodeRedemptions, type DelegationSigner, type Redemption } from '../../core/delegations/index.ts'
import { compileStrategy, localRegistry, type PermissionPlan } from '../../core/permissions/index.ts'
import type { Devnet, OwnerAccount } from '../../local/devnet.ts'
import { disableDelegationCall, encodeCall, sendOwnerCalls, type OwnerCall } from '../../local/ownerActions.ts'
import { decodeRedemptionError, type DecodedRedemptionError } from './decodeRedemptionError.ts'

export const USDC = (n: number | bigint) => BigInt(n) * 1_000_000n
export const USD = USDC
export const PHASE = { Thriving: 0, Stable: 1, Conservation: 2, Declining: 3, Terminal: 4 } as const
export const SELECTOR = {
  transfer: '0xa9059cbb',
  approve: '0x095ea7b3',
  deposit: '0x6e553f65',
  exactInputSingle: '0x04e45aaf',
} as const satisfies Record<string, Hex>

export const walletFor = (devnet: Devnet, account: Account): WalletClient<Transport, Chain, Account> =>
  createWalletClient({ account, chain: devnet.chain, transport: http(devnet.rpcUrl), pollingInterval: 25 })

export const chainNow = async (devnet: Devnet): Promise<bigint> => (await devnet.publicClient.getBlock()).timestamp

export async function waitOk(devnet: Devnet, hash: Hex | Promise<Hex>): Promise<TransactionReceipt> {
  const receipt = await devnet.publicClient.waitForTransactionReceipt({ hash: await hash })
  if (receipt.status !== 'success') {
    // Say why: the gas used against the limit, and the revert replayed on the state it was mined on.
    const tx = await devnet.publicClient.getTransaction({ hash: receipt.transactionHash })
    const replay = await devnet.publicClient
      .call({ account: tx.from, to: tx.to!, data: tx.input, gas: tx.gas, blockNumber: receipt.blockNumber - 1n })
      .then(
        () => 'replay succeeded',
        (e: unknown) => (e as Error).message.split('\n')[0],
      )
    throw new Error(`transaction ${receipt.transactionHash} reverted (gas ${receipt.gasUsed}/${tx.gas}; replay: ${replay})`)
  }
  return receipt
}

/**
 * Sets a Golem's constitution hash in the PolicyCage as the oracle's owner. The gas limit leaves 30 % over
 * the node's estimate (withGasHeadroom), which is exact: setConstitution also stamps the block time it was
 * set at, and restamping the same second costs less than a new one, so an estimate made in the second of
 * the previous set runs out of gas when the transaction is mined in the next.
 */
export async function setConstitutionHash(devnet: Devnet, golem: Address, hash: Hex): Promise<TransactionReceipt> {
  const call = {
    address: devnet.deployment.policyCage!,
    abi: artifacts.PolicyCageAbi,
    functionName: 'setConstitution',
    args: [golem, hash],
  } as const
  const gas = await devnet.publicClient.estimateContractGas({ ...call, account: devnet.operator.account })
  return waitOk(devnet, devnet.operator.writeContract({ ...call, gas: withGasHeadroom(gas) }))
}

/** A funded EOA registered as a Golem by the operator (starts Thriving). */
export async function newGolem(devnet: Devnet): Promise<PrivateKeyAccount> {
  const golem = await devnet.fundedAccount()
  await registerGolem(devnet, golem.address)
  return golem
}

export async function registerGolem(devnet: Devnet, golem: Address): Promise<void> {
  await waitOk(
    devnet,
    devnet.operator.writeContract({
      address: devnet.deployment.vitalityOracle,
      abi: artifacts.VitalityOracleAbi,
      functionName: 'registerGolem',
      args: [golem],
    }),
  )
}

/** The Golem reports its own phase from its own key (phases only move forward). */
export async function updatePhase(devnet: Devnet, golem: Account, phase: number, survivalScore = 5_000): Promise<void> {
  await waitOk(
    devnet,
    walletFor(devnet, golem).writeContract({
      address: devnet.deployment.vitalityOracle,
      abi: artifacts.VitalityOracleAbi,
      functionName: 'updatePhase',
      args: [phase, survivalScore],
    }),
  )
}

/** Sets both price feeds to their devnet prices with updatedAt = now (after time travel). */
export async function refreshFeeds(devnet: Devnet): Promise<void> {
  const { ethUsdFeed, usdcUsdFeed } = devnet.deployment.assets
  await waitOk(
    devnet,
    devnet.deployer.writeContract({
      address: ethUsdFeed,
      abi: artifacts.MockPriceFeedAbi,
      functionName: 'setAnswer',
      args: [3_000n * 10n ** 8n],
    }),
  )
  await waitOk(
    devnet,
    devnet.deployer.writeContract({ address: usdcUsdFeed, abi: artifacts.MockPriceFeedAbi, functionName: 'setAnswer', args: [10n ** 8n] }),
  )
}

export const usdcBalance = (devnet: Devnet, who: Address): Promise<bigint> =>
  devnet.publicClient.readContract({ address: devnet.deployment.assets.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [who] })

export const transferCall = (token: Address, to: Address, amount: bigint): ExecutionStruct => ({
  target: token,
  value: 0n,
  callData: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }),
})

export const approveCall = (token: Address, spender: Address, amount: bigint): ExecutionStruct => ({
  target: token,
  value: 0n,
  callData: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, amount] }),
})

/**
 * A root delegation from the owner's smart account to `delegate`, signed by the owner. With `targets`
 * it is built by the raw kit with the `functionCall` scope (AllowedTargets, AllowedMethods, ValueLte(0));
 * those framework enforcers admit single-call redemptions only, so a batch test passes no targets and
 * gets a delegation holding only the given caveats.
 */
export async function ownerDelegation(
  devnet: Devnet,
  owner: OwnerAccount,
  delegate: Address,
  options: { targets?: Address[]; selectors?: Hex[]; bardo?: BardoCaveat[]; caveats?: Caveat[] },
): Promise<Delegation> {
  const caveats = [...(options.caveats ?? []), ...(options.bardo ?? []).map((c) => toCaveat(c, devnet.deployment))]
  const delegation: Delegation = options.targets
    ? createDelegation({
        environment: devnet.deployment.environment,
        from: owner.address,
        to: delegate,
        scope: { type: 'functionCall', targets: options.targets, selectors: options.selectors ?? [] },
        caveats,
        salt: generateSalt(),
      })
    : { delegate, delegator: owner.address, authority: ROOT_AUTHORITY, caveats, salt: generateSalt(), signature: '0x' }
  return { ...delegation, signature: await owner.smartAccount.signDelegation({ delegation }) }
}

/** The delegate (an EOA) sends redeemDelegations itself; resolves with the successful receipt. */
export function redeem(
  devnet: Devnet,
  redeemer: Account,
  chain: readonly Delegation[],
  executions: readonly ExecutionStruct[],
): Promise<TransactionReceipt> {
  // The suites' multi-call redemptions are about batch mode itself (KnowledgeRoyalty, the framework's
  // refusal of batches), so the harness asks for it explicitly; core's default splits.
  return redeemAll(devnet, redeemer, [{ chain, executions, ...(executions.length > 1 ? { mode: 'batch' as const } : {}) }])
}

/** Several redemptions in one redeemDelegations transaction (each its own mode: single or batch). */
export async function redeemAll(devnet: Devnet, redeemer: Account, redemptions: readonly Redemption[]): Promise<TransactionReceipt> {
  const data = encodeRedemptions(redemptions)
  const to = devnet.deployment.environment.DelegationManager
  return waitOk(devnet, walletFor(devnet, redeemer).sendTransaction({ to, data, gas: await redemptionGas(devnet, redeemer, to, data) }))
}

/**
 * The gas estimate plus 20%. A bare estimate is the exact minimum for the pending block, and enforcer
 * gas depends on block.timestamp (UsdValuation skips a subtraction when the price was updated in the
 * same second), so a redemption mined one second later can run out of gas. A refusal surfaces here,
 * from estimateGas, with its revert data.
 */
export async function redemptionGas(devnet: Devnet, redeemer: Account, to: Address, data: Hex): Promise<bigint> {
  const estimate = await devnet.publicClient.estimateGas({ account: redeemer, to, data })
  return (estimate * 12n) / 10n
}

/** Expects `pending` (a redemption) to revert; returns the decoded custom error. */
export async function refusal(pending: Promise<unknown>): Promise<DecodedRedemptionError> {
  const error = await pending.then(
    () => {
      throw new Error('the redemption succeeded but was expected to revert')
    },
    (e: unknown) => e,
  )
  return decodeRedemptionError(error)
}

/** Redeems and expects a revert; returns the decoded custom error. */
export function redeemRefused(
  devnet: Devnet,
  redeemer: Account,
  chain: readonly Delegation[],
  executions: readonly ExecutionStruct[],
): Promise<DecodedRedemptionError> {
  return refusal(redeem(devnet, redeemer, chain, executions))
}

// Deployment addresses come back lowercase from receipts; errors decode checksummed.
const checksummed = (v: unknown): unknown => (typeof v === 'string' && isAddress(v, { strict: false }) ? getAddress(v) : v)

/** Asserts a refusal by error name and exact arguments. */
export async function expectRefused(
  devnet: Devnet,
  redeemer: Account,
  chain: readonly Delegation[],
  executions: readonly ExecutionStruct[],
  name: string,
  args?: readonly unknown[],
): Promise<DecodedRedemptionError> {
  const decoded = await redeemRefused(devnet, redeemer, chain, executions)
  expect(decoded.name).toBe(name)
  if (args !== undefined) expect(decoded.args.map(checksummed)).toEqual(args.map(checksummed))
  return decoded
}

/** Owner acts (approvals, revocations) as one user operation through EntryPoint.handleOps. */
export async function ownerCalls(devnet: Devnet, owner: OwnerAccount, calls: OwnerCall[]): Promise<TransactionReceipt> {
  return sendOwnerCalls({ publicClient: devnet.publicClient, submitter: devnet.deployer, smartAccount: owner.smartAccount, calls })
}

/** The owner revokes a delegation in one transaction (DelegationManager.disableDelegation from its account). */
export function revoke(devnet: Devnet, owner: OwnerAccount, delegation: Delegation): Promise<TransactionReceipt> {
  return ownerCalls(devnet, owner, [disableDelegationCall(devnet.deployment.environment.DelegationManager, delegation)])
}

/** Someone else's deposits, so VaultNAV has a NAV to take a share of; and the owner's approval to the vault. */
export async function seedVault(devnet: Devnet, owner: OwnerAccount, amount: bigint): Promise<void> {
  const { usdc, vault } = devnet.deployment.assets
  const seeder = await devnet.fundedAccount()
  await devnet.mintUsdc(seeder.address, amount)
  const wallet = walletFor(devnet, seeder)
  await waitOk(devnet, wallet.writeContract({ address: usdc, abi: erc20Abi, functionName: 'approve', args: [vault, amount] }))
  await waitOk(
    devnet,
    wallet.writeContract({ address: vault, abi: artifacts.TestVaultAbi, functionName: 'deposit', args: [amount, seeder.address] }),
  )
  await ownerCalls(devnet, owner, [
    encodeCall(usdc, encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [vault, maxUint256] })),
  ])
}

export const depositCall = (devnet: Devnet, amount: bigint, receiver: Address): ExecutionStruct => ({
  target: devnet.deployment.assets.vault,
  value: 0n,
  callData: encodeFunctionData({ abi: artifacts.TestVaultAbi, functionName: 'deposit', args: [amount, receiver] }),
})

/** SwapRouter02 exactInputSingle on the devnet router (fee tier 0.05%). */
export const swapCall = (
  devnet: Devnet,
  p: { tokenIn: Address; tokenOut: Address; amountIn: bigint; amountOutMinimum: bigint; recipient: Address },
): ExecutionStruct => ({
  target: devnet.deployment.assets.router,
  value: 0n,
  callData: encodeFunctionData({
    abi: artifacts.TestSwapRouterAbi,
    functionName: 'exactInputSingle',
    args: [{ ...p, fee: 500, sqrtPriceLimitX96: 0n }],
  }),
})

/** A DelegationTree on the devnet, its clock fixed at `now` (chain time). */
export const newTree = (devnet: Devnet, now: bigint): DelegationTree =>
  new DelegationTree({ environment: devnet.deployment.environment, deployment: devnet.deployment, now: () => now })

/** A funded EOA whose private key the test keeps (to sign delegations with the kit, as an EOA delegator does). */
export async function newKey(devnet: Devnet): Promise<{ privateKey: Hex; account: PrivateKeyAccount }> {
  const privateKey = generatePrivateKey()
  const account = privateKeyToAccount(privateKey)
  await waitOk(devnet, devnet.deployer.sendTransaction({ to: account.address, value: parseEther('1') }))
  return { privateKey, account }
}

/** The kit's signDelegation with an EOA key over this devnet's DelegationManager domain. */
export const keySigner =
  (devnet: Devnet, privateKey: Hex): DelegationSigner =>
  (delegation) =>
    signDelegation({ privateKey, delegation, delegationManager: devnet.deployment.environment.DelegationManager, chainId: devnet.chain.id })

/** Compiles a strategy against the devnet's protocol registry: `owner`'s account granting `sessionKey`. */
export function compileLocalPlan(devnet: Devnet, p: { text: string; owner: Address; sessionKey: Address; now: bigint }): PermissionPlan {
  return compileStrategy({
    text: p.text,
    chainId: devnet.chain.id,
    owner: p.owner,
    sessionKey: p.sessionKey,
    now: Number(p.now),
    registry: localRegistry(devnet.deployment.assets),
  })
}
