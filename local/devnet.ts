// The local chain harness used by tests, `npm start` and benchmarks: anvil on a free loopback port, the
// real MetaMask Delegation Framework, the Bardo contracts and the local test assets, and owner
// MetaMask Hybrid smart accounts funded with test USDC and ETH. Stops everything it started.
import {
  createPublicClient,
  createTestClient,
  custom,
  createWalletClient,
  encodeDeployData,
  encodeFunctionData,
  defineChain,
  http,
  parseEther,
  parseUnits,
  zeroAddress,
  type Abi,
  type Account,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem'
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { Implementation, toMetaMaskSmartAccount, type MetaMaskSmartAccount } from '@metamask/smart-accounts-kit'
import * as artifacts from '../contracts/artifacts/index.ts'
import type { BardoDeployment, LocalAssets } from '../core/deployment.ts'
import { BardoError } from '../core/errors.ts'
import { withReceiptPolling } from '../adapters/chain/receipts.ts'
import { startAnvil, type Anvil, type StartAnvilOptions } from './anvil.ts'
import { sendInOrder } from './sendInOrder.ts'
import { deployCanonicalFramework } from './canonicalFramework.ts'
import { LocalStackError } from './errors.ts'

/** Anvil's well-known test mnemonic: its accounts are funded with 10,000 ETH on every local chain. */
const TEST_MNEMONIC = 'test test test test test test test test test test test junk'

export type DevnetClients = {
  chain: Chain
  publicClient: PublicClient<Transport, Chain>
  /** Deploys contracts and funds accounts (anvil account 0). */
  deployer: WalletClient<Transport, Chain, Account>
  /** The platform's operator key: owns the VitalityOracle (anvil account 1). */
  operator: WalletClient<Transport, Chain, Account>
  /** Owns GolemPhase's action table (anvil account 4): a separate key, so one leak does not carry both roles. */
  phaseTableAdmin: WalletClient<Transport, Chain, Account>
}

export type OwnerAccount = {
  /** The owner's MetaMask Hybrid smart account (holds every token). */
  smartAccount: MetaMaskSmartAccount
  address: Address
  /** The EOA that controls the smart account (the owner's MetaMask key, local only). */
  signer: PrivateKeyAccount
}

export type Devnet = DevnetClients & {
  anvil: Anvil
  rpcUrl: string
  deployment: BardoDeployment & { assets: LocalAssets }
  /**
   * A new owner smart account, deployed and funded (defaults: 10,000 USDC and 10 ETH), controlled by
   * `signer` (a fresh key by default).
   */
  createOwner(funding?: { usdc?: bigint; eth?: bigint }, signer?: PrivateKeyAccount): Promise<OwnerAccount>
  /** The owner's EOA upgraded by EIP-7702 to the framework's stateless DeleGator, as MetaMask upgrades its accounts. */
  createWalletOwner(funding?: { usdc?: bigint; eth?: bigint }, signer?: PrivateKeyAccount): Promise<OwnerAccount>
  /** A funded EOA on the devnet (for Golem session keys, payers, ...). */
  fundedAccount(eth?: bigint): Promise<PrivateKeyAccount>
  mintUsdc(to: Address, amount: bigint): Promise<void>
  /** Re-posts the local price feeds' answers at the current block (swaps refuse a stale price). */
  refreshFeeds(): Promise<void>
  /** Moves chain time forward and mines a block. */
  increaseTime(seconds: number | bigint): Promise<bigint>
  /** Mines an empty block at the current time (anvil mines only on transactions), returns its timestamp. */
  mine(): Promise<bigint>
  stop(): Promise<void>
}

/**
 * Anvil's funded test account `index` (0 deploys, 1 is the operator, 2 settles x402 payments, 4 owns
 * GolemPhase's action table).
 */
/**
 * The faucet's own anvil account: `npm run faucet` runs in a process of its own, so it sends from an account
 * no other process signs for (two processes reading one account's nonce race, and one of them is refused).
 */
export const FAUCET_ACCOUNT_INDEX = 7
/** Test USDC minted to the faucet account at deployment: a thousand of the faucet's largest requests. */
export const FAUCET_RESERVE_USDC = parseUnits('1000000000', 6)

export function devnetAccount(index: number) {
  return mnemonicToAccount(TEST_MNEMONIC, { addressIndex: index })
}

export function localChain(rpcUrl: string, chainId = 31337): Chain {
  return defineChain({
    id: chainId,
    name: 'Bardo devnet',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  })
}

/** How long the devnet's clients wait for a receipt when the caller names no timeout. */
export const DEVNET_RECEIPT_TIMEOUT_MS = 60_000

export function devnetClients(rpcUrl: string, chainId = 31337): DevnetClients {
  const chain = localChain(rpcUrl, chainId)
  // Local blocks arrive in milliseconds; viem's default 4 s polling would dominate every test.
  const transport = http(rpcUrl, { batch: false })
  // A local chain mines on arrival: a receipt missing for 60 s is a transaction the node will not mine (held
  // behind a nonce gap, priced under the base fee), and the error names its hash well inside a suite's
  // 120 s setup, where viem's 180 s default would end the setup with no word of which transaction it was.
  const publicClient = withReceiptPolling(createPublicClient({ chain, transport, pollingInterval: 25 }) as PublicClient<Transport, Chain>, {
    timeout: DEVNET_RECEIPT_TIMEOUT_MS,
  })
  const deployer = createWalletClient({
    account: mnemonicToAccount(TEST_MNEMONIC, { addressIndex: 0 }),
    chain,
    transport,
    pollingInterval: 25,
  })
  const operator = createWalletClient({
    account: mnemonicToAccount(TEST_MNEMONIC, { addressIndex: 1 }),
    chain,
    transport,
    pollingInterval: 25,
  })
  const phaseTableAdmin = createWalletClient({
    account: mnemonicToAccount(TEST_MNEMONIC, { addressIndex: 4 }),
    chain,
    transport,
    pollingInterval: 25,
  })
  return { chain, publicClient, deployer, operator, phaseTableAdmin }
}

type Deployable = { abi: Abi; bytecode: Hex }

async function deployAll(
  clients: DevnetClients,
  items: { name: string; artifact: Deployable; args: readonly unknown[] }[],
): Promise<Record<string, Address>> {
  // Signed together, each sent once the one before it is mined.
  const receipts = await sendInOrder(
    clients.deployer,
    items.map((item) => ({
      data: encodeDeployData({ abi: item.artifact.abi, bytecode: item.artifact.bytecode, args: item.args as never }),
    })),
  )
  const out: Record<string, Address> = {}
  receipts.forEach((r, i) => {
    const item = items[i]!
    if (r.status !== 'success' || !r.contractAddress) throw new LocalStackError('DEVNET', `deploying ${item.name} failed`)
    out[item.name] = r.contractAddress
  })
  return out
}

function art(abi: Abi, bytecode: Hex): Deployable {
  return { abi, bytecode }
}

/** Deploys the Bardo contracts and local assets onto a chain that already has the framework. */
export async function deployBardo(
  clients: DevnetClients,
): Promise<Omit<BardoDeployment, 'environment' | 'chainId'> & { assets: LocalAssets }> {
  const a = artifacts
  const operator = clients.operator.account.address
  const startBlock = await clients.publicClient.getBlockNumber()
  const first = await deployAll(clients, [
    { name: 'vitalityOracle', artifact: art(a.VitalityOracleAbi, a.VitalityOracleBytecode), args: [operator] },
    { name: 'dreamOracle', artifact: art(a.DreamOracleAbi, a.DreamOracleBytecode), args: [] },
    { name: 'daimonOracle', artifact: art(a.DaimonOracleAbi, a.DaimonOracleBytecode), args: [] },
    { name: 'usdc', artifact: art(a.TestUSDCAbi, a.TestUSDCBytecode), args: [] },
    { name: 'weth', artifact: art(a.TestTokenAbi, a.TestTokenBytecode), args: ['Wrapped Ether', 'WETH', 18] },
    { name: 'ethUsdFeed', artifact: art(a.MockPriceFeedAbi, a.MockPriceFeedBytecode), args: [8, 3_000n * 10n ** 8n, 'ETH / USD'] },
    { name: 'usdcUsdFeed', artifact: art(a.MockPriceFeedAbi, a.MockPriceFeedBytecode), args: [8, 10n ** 8n, 'USDC / USD'] },
    { name: 'mortalityTimeWindow', artifact: art(a.MortalityTimeWindowEnforcerAbi, a.MortalityTimeWindowEnforcerBytecode), args: [] },
    { name: 'vaultNav', artifact: art(a.VaultNAVEnforcerAbi, a.VaultNAVEnforcerBytecode), args: [] },
    // No sequencer uptime feed on a local chain (zero address: no check); production passes the chain's.
    { name: 'replicantBudget', artifact: art(a.ReplicantBudgetEnforcerAbi, a.ReplicantBudgetEnforcerBytecode), args: [zeroAddress, 0n] },
    { name: 'maxSlippage', artifact: art(a.MaxSlippageEnforcerAbi, a.MaxSlippageEnforcerBytecode), args: [] },
    { name: 'dailySpendLimit', artifact: art(a.DailySpendLimitEnforcerAbi, a.DailySpendLimitEnforcerBytecode), args: [zeroAddress, 0n] },
    { name: 'knowledgeRoyalty', artifact: art(a.KnowledgeRoyaltyEnforcerAbi, a.KnowledgeRoyaltyEnforcerBytecode), args: [] },
    { name: 'policyCageEnforcer', artifact: art(a.PolicyCageEnforcerAbi, a.PolicyCageEnforcerBytecode), args: [zeroAddress, 0n] },
  ])
  const second = await deployAll(clients, [
    {
      name: 'golemPhase',
      artifact: art(a.GolemPhaseEnforcerAbi, a.GolemPhaseEnforcerBytecode),
      args: [first.vitalityOracle, clients.phaseTableAdmin.account.address],
    },
    { name: 'dreamMode', artifact: art(a.DreamModeEnforcerAbi, a.DreamModeEnforcerBytecode), args: [first.dreamOracle] },
    { name: 'emotionalState', artifact: art(a.EmotionalStateEnforcerAbi, a.EmotionalStateEnforcerBytecode), args: [first.daimonOracle] },
    { name: 'policyCage', artifact: art(a.PolicyCageAbi, a.PolicyCageBytecode), args: [first.vitalityOracle] },
    { name: 'vault', artifact: art(a.TestVaultAbi, a.TestVaultBytecode), args: [first.usdc] },
    { name: 'router', artifact: art(a.TestSwapRouterAbi, a.TestSwapRouterBytecode), args: [] },
  ])
  const addr = (name: string): Address => {
    const v = first[name] ?? second[name]
    if (!v) throw new LocalStackError('DEVNET', `missing deployment ${name}`)
    return v
  }
  const assets: LocalAssets = {
    usdc: addr('usdc'),
    weth: addr('weth'),
    ethUsdFeed: addr('ethUsdFeed'),
    usdcUsdFeed: addr('usdcUsdFeed'),
    vault: addr('vault'),
    router: addr('router'),
  }
  await configureRouter(clients, assets)
  return {
    vitalityOracle: addr('vitalityOracle'),
    dreamOracle: addr('dreamOracle'),
    daimonOracle: addr('daimonOracle'),
    policyCage: addr('policyCage'),
    enforcers: {
      golemPhase: addr('golemPhase'),
      mortalityTimeWindow: addr('mortalityTimeWindow'),
      dreamMode: addr('dreamMode'),
      vaultNav: addr('vaultNav'),
      replicantBudget: addr('replicantBudget'),
      maxSlippage: addr('maxSlippage'),
      dailySpendLimit: addr('dailySpendLimit'),
      emotionalState: addr('emotionalState'),
      knowledgeRoyalty: addr('knowledgeRoyalty'),
      policyCage: addr('policyCageEnforcer'),
    },
    startBlock,
    assets,
  }
}

/**
 * Gives the swap router its price feeds and liquidity so local swaps settle at feed prices, and the faucet
 * account its reserve of test USDC.
 */
async function configureRouter(clients: DevnetClients, assets: LocalAssets): Promise<void> {
  const call = (address: Address, abi: Abi, functionName: string, args: readonly unknown[]) => ({
    to: address,
    data: encodeFunctionData({ abi, functionName, args } as never),
  })
  const receipts = await sendInOrder(clients.deployer, [
    call(assets.router, artifacts.TestSwapRouterAbi, 'setFeed', [assets.usdc, assets.usdcUsdFeed]),
    call(assets.router, artifacts.TestSwapRouterAbi, 'setFeed', [assets.weth, assets.ethUsdFeed]),
    call(assets.usdc, artifacts.TestUSDCAbi, 'mint', [assets.router, parseUnits('10000000', 6)]),
    call(assets.weth, artifacts.TestTokenAbi, 'mint', [assets.router, parseEther('10000')]),
    call(assets.usdc, artifacts.TestUSDCAbi, 'mint', [devnetAccount(FAUCET_ACCOUNT_INDEX).address, FAUCET_RESERVE_USDC]),
  ])
  const reverted = receipts.find((r) => r.status !== 'success')
  if (reverted) throw new LocalStackError('DEVNET', `configuring the swap router failed: ${reverted.transactionHash} reverted`)
}

export type StartDevnetOptions = StartAnvilOptions

/** Starts anvil and deploys the framework (at its canonical addresses), the Bardo contracts and the local assets. */
export async function startDevnet(options: StartDevnetOptions = {}): Promise<Devnet> {
  const anvil = await startAnvil(options)
  try {
    const clients = devnetClients(anvil.rpcUrl, anvil.chainId)
    // At the framework's canonical addresses, as on Base: MetaMask's own wallet code names no others.
    const environment = await deployCanonicalFramework(clients.deployer, clients.publicClient)
    const bardo = await deployBardo(clients)
    const deployment = { chainId: anvil.chainId, environment, ...bardo }
    return { ...clients, anvil, rpcUrl: anvil.rpcUrl, deployment, ...devnetActions(clients, deployment), stop: anvil.stop }
  } catch (error) {
    await anvil.stop()
    throw error
  }
}

/** The devnet another process of the stack started (its anvil, its deployment): the same clients and actions, nothing to stop. */
export type AttachedDevnet = Omit<Devnet, 'anvil'>

export function attachDevnet(rpcUrl: string, deployment: BardoDeployment & { assets: LocalAssets }): AttachedDevnet {
  const clients = devnetClients(rpcUrl, deployment.chainId)
  return { ...clients, rpcUrl, deployment, ...devnetActions(clients, deployment), stop: async () => {} }
}

/** The owner's Hybrid smart account controlled by `signer`, as createOwner deployed it (the same address). */
export function ownerAccountOf(
  publicClient: PublicClient<Transport, Chain>,
  deployment: BardoDeployment,
  signer: PrivateKeyAccount,
): Promise<MetaMaskSmartAccount> {
  return toMetaMaskSmartAccount({
    client: publicClient as never,
    implementation: Implementation.Hybrid,
    deployParams: [signer.address, [], [], []],
    deploySalt: '0x',
    signer: { account: signer },
    environment: deployment.environment,
  })
}

export function devnetActions(clients: DevnetClients, deployment: BardoDeployment & { assets: LocalAssets }) {
  const { publicClient, deployer } = clients
  // Chain-time control through viem's test client, over the public client's own transport.
  const testClient = createTestClient({
    mode: 'anvil',
    chain: clients.chain,
    transport: custom({ request: (args) => publicClient.request(args as never) }),
  })
  const send = async (tx: Promise<Hex>) => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash: await tx })
    if (receipt.status !== 'success') throw new LocalStackError('DEVNET', `transaction ${receipt.transactionHash} reverted`)
  }
  const mintUsdc = (to: Address, amount: bigint) =>
    send(deployer.writeContract({ address: deployment.assets.usdc, abi: artifacts.TestUSDCAbi, functionName: 'mint', args: [to, amount] }))
  return {
    mintUsdc,
    async fundedAccount(eth: bigint = parseEther('1')): Promise<PrivateKeyAccount> {
      const account = privateKeyToAccount(generatePrivateKey())
      if (eth > 0n) await send(deployer.sendTransaction({ to: account.address, value: eth }))
      return account
    },
    async createOwner(
      funding: { usdc?: bigint; eth?: bigint } = {},
      signer: PrivateKeyAccount = privateKeyToAccount(generatePrivateKey()),
    ): Promise<OwnerAccount> {
      const smartAccount = await ownerAccountOf(publicClient, deployment, signer)
      const { factory, factoryData } = await smartAccount.getFactoryArgs()
      if (!factory || !factoryData) throw new LocalStackError('DEVNET', 'smart account has no factory data')
      await send(deployer.sendTransaction({ to: factory, data: factoryData }))
      const usdc = funding.usdc ?? parseUnits('10000', 6)
      const eth = funding.eth ?? parseEther('10')
      if (usdc > 0n) await mintUsdc(smartAccount.address, usdc)
      if (eth > 0n) await send(deployer.sendTransaction({ to: smartAccount.address, value: eth }))
      return { smartAccount, address: smartAccount.address, signer }
    },
    /**
     * An owner as MetaMask makes one today: the owner's own EOA, upgraded by EIP-7702 to the framework's
     * EIP7702StatelessDeleGator (the owner signs the authorization; the deployer sends it), and funded
     * like createOwner's smart account. It grants through ERC-7715 and signs its own user operations.
     */
    async createWalletOwner(
      funding: { usdc?: bigint; eth?: bigint } = {},
      signer: PrivateKeyAccount = privateKeyToAccount(generatePrivateKey()),
    ): Promise<OwnerAccount> {
      const implementation = deployment.environment.implementations.EIP7702StatelessDeleGatorImpl
      if (!implementation)
        throw new BardoError('FRAMEWORK_MISSING', 'environment.implementations.EIP7702StatelessDeleGatorImpl: must be deployed')
      const authorization = await signer.signAuthorization({
        chainId: clients.chain.id,
        address: implementation,
        nonce: await publicClient.getTransactionCount({ address: signer.address }),
      })
      await send(deployer.sendTransaction({ to: signer.address, data: '0x', authorizationList: [authorization] }))
      const smartAccount = await toMetaMaskSmartAccount({
        client: publicClient as never,
        implementation: Implementation.Stateless7702,
        address: signer.address,
        signer: { account: signer },
        environment: deployment.environment,
      })
      const usdc = funding.usdc ?? parseUnits('10000', 6)
      const eth = funding.eth ?? parseEther('10')
      if (usdc > 0n) await mintUsdc(signer.address, usdc)
      if (eth > 0n) await send(deployer.sendTransaction({ to: signer.address, value: eth }))
      return { smartAccount, address: signer.address, signer }
    },
    /** Re-posts the local price feeds' answers ($3,000 ETH, $1 USDC) at the current block, so they are never stale. */
    async refreshFeeds(): Promise<void> {
      const { ethUsdFeed, usdcUsdFeed } = deployment.assets
      const post = (feed: Address, answer: bigint) =>
        send(deployer.writeContract({ address: feed, abi: artifacts.MockPriceFeedAbi, functionName: 'setAnswer', args: [answer] }))
      await post(ethUsdFeed, 3_000n * 10n ** 8n)
      await post(usdcUsdFeed, 10n ** 8n)
    },
    async mine(): Promise<bigint> {
      await testClient.mine({ blocks: 1 })
      return (await publicClient.getBlock()).timestamp
    },
    async increaseTime(seconds: number | bigint): Promise<bigint> {
      await testClient.increaseTime({ seconds: Number(seconds) })
      await testClient.mine({ blocks: 1 })
      return (await publicClient.getBlock()).timestamp
    },
  }
}
