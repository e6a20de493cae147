// The deterministic chain behind the gas bench: a devnet whose clock starts at a fixed instant, fixed
// keys for the owner and the Golem (anvil's public test mnemonic), the NoopEnforcer baseline, and one
// helper that signs a USDC runway delegation and redeems it twice.
// With the clock (one second per block), keys, salts and amounts fixed, every calldata byte and every storage slot is the same
// on each run, so gasUsed is too.
import {
  createDelegation,
  Implementation,
  toMetaMaskSmartAccount,
  type Caveat,
  type Delegation,
  type MetaMaskSmartAccount,
} from '@metamask/smart-accounts-kit'
import { createWalletClient, encodeFunctionData, http, toHex, type Address, type Hex } from 'viem'
import { mnemonicToAccount, type HDAccount } from 'viem/accounts'
import {
  DaimonOracleAbi,
  MockPriceFeedAbi,
  NoopEnforcerAbi,
  NoopEnforcerBytecode,
  TestUSDCAbi,
  VitalityOracleAbi,
} from '../../contracts/artifacts/index.ts'
import { encodeRedemptions } from '../../core/delegations/redeem.ts'
import { startDevnet, type Devnet } from '../../local/devnet.ts'

/** Anvil's well-known public test mnemonic; its keys hold nothing outside a local chain. */
const TEST_MNEMONIC = 'test test test test test test test test test test test junk'

/** 2030-01-01 01:00:00 UTC: an hour into a UTC day, so a bench run never crosses a day or period edge. */
export const BENCH_T0 = 1_893_459_600n
export const DAY = 86_400n
/** What each redemption moves: 1 USDC from the owner's smart account to the Golem key. */
export const REDEEM_AMOUNT = 1_000_000n
/** The runway period: 100 USDC a day, started an hour before BENCH_T0. */
export const RUNWAY = { periodAmount: 100_000_000n, periodDuration: 86_400, startDate: Number(BENCH_T0 - 3_600n) } as const

/** gasUsed of a delegation's first and second redemption, and the calldata share of each (same input). */
export type GasPair = { first: bigint; repeat: bigint; calldata: bigint }

/** Intrinsic calldata gas of a transaction input: 16 per non-zero byte, 4 per zero byte. */
export function calldataGas(data: Hex): bigint {
  let gas = 0n
  for (let i = 2; i < data.length; i += 2) gas += data.slice(i, i + 2) === '00' ? 4n : 16n
  return gas
}

export type GasChain = {
  devnet: Devnet
  golem: HDAccount
  owner: { address: Address; smartAccount: MetaMaskSmartAccount }
  noopEnforcer: Address
  /** The erc20PeriodTransfer scope the kit builds (ValueLte(0) + ERC20PeriodTransfer), as every case uses it. */
  scope: { type: 'erc20PeriodTransfer'; tokenAddress: Address; periodAmount: bigint; periodDuration: number; startDate: number }
  /** A fixed, distinct salt per case (one non-zero byte each, so every salt costs the same calldata gas). */
  salt(caseIndex: number): Hex
  /** `scope + caveats` from the owner to the Golem, signed by the owner. */
  sign(caveats: readonly Caveat[], salt: Hex): Promise<Delegation>
  /** Signs `scope + caveats` with the owner and redeems it twice in the same period. */
  measure(label: string, caveats: readonly Caveat[], salt: Hex): Promise<GasPair>
  /** Redeems an already signed chain (leaf first) twice. */
  measureChain(label: string, chain: readonly Delegation[]): Promise<GasPair>
  stop(): Promise<void>
}

export async function startGasChain(): Promise<GasChain> {
  const devnet = await startDevnet({ timestamp: BENCH_T0 })
  try {
    const { publicClient, deployer, operator, deployment } = devnet
    // From here each block is exactly one second after the last, whatever the wall clock does, so a
    // time-dependent branch (a feed's age, a period boundary) takes the same path on every run.
    await publicClient.request({ method: 'anvil_setBlockTimestampInterval' as never, params: [1] as never })
    const { usdc, usdcUsdFeed, vault } = deployment.assets
    const golem = mnemonicToAccount(TEST_MNEMONIC, { addressIndex: 2 })
    const ownerSigner = mnemonicToAccount(TEST_MNEMONIC, { addressIndex: 3 })
    const golemWallet = createWalletClient({ account: golem, chain: devnet.chain, transport: http(devnet.rpcUrl), pollingInterval: 25 })
    const wait = async (label: string, hash: Promise<Hex>) => {
      const receipt = await publicClient.waitForTransactionReceipt({ hash: await hash })
      if (receipt.status !== 'success') throw new Error(`gas bench setup: ${label} reverted`)
      return receipt
    }

    const deploy = async (label: string, abi: readonly unknown[], bytecode: Hex, args: readonly unknown[]) => {
      const receipt = await wait(label, deployer.deployContract({ abi: abi as never, bytecode, args: args as never }))
      if (!receipt.contractAddress) throw new Error(`gas bench setup: ${label} has no address`)
      return receipt.contractAddress
    }
    const noopEnforcer = await deploy('NoopEnforcer', NoopEnforcerAbi, NoopEnforcerBytecode, [])

    // Oracle and asset state every enforcer needs to pass while doing its real work.
    await wait(
      'registerGolem',
      operator.writeContract({
        address: deployment.vitalityOracle,
        abi: VitalityOracleAbi,
        functionName: 'registerGolem',
        args: [golem.address],
      }),
    )
    await wait(
      'setPAD',
      golemWallet.writeContract({ address: deployment.daimonOracle, abi: DaimonOracleAbi, functionName: 'setPAD', args: [20, 10, 30] }),
    )
    await wait(
      'feed',
      deployer.writeContract({ address: usdcUsdFeed, abi: MockPriceFeedAbi, functionName: 'setAnswer', args: [100_000_000n] }),
    )
    // The vault's totalAssets is its USDC balance: 1,000,000 USDC.
    await devnet.mintUsdc(vault, 1_000_000_000_000n)
    // A non-zero Golem balance before the first case, so no case pays for creating the recipient's slot.
    await devnet.mintUsdc(golem.address, 1_000_000n)

    const smartAccount = await toMetaMaskSmartAccount({
      client: publicClient as never,
      implementation: Implementation.Hybrid,
      deployParams: [ownerSigner.address, [], [], []],
      deploySalt: '0x',
      signer: { account: ownerSigner },
      environment: deployment.environment,
    })
    const { factory, factoryData } = await smartAccount.getFactoryArgs()
    if (!factory || !factoryData) throw new Error('gas bench setup: the owner smart account has no factory data')
    await wait('owner account', deployer.sendTransaction({ to: factory, data: factoryData }))
    await devnet.mintUsdc(smartAccount.address, 10_000_000_000n)

    const scope = { type: 'erc20PeriodTransfer' as const, tokenAddress: usdc, ...RUNWAY }
    const transfer = encodeFunctionData({ abi: TestUSDCAbi, functionName: 'transfer', args: [golem.address, REDEEM_AMOUNT] })

    const redeemOnce = async (label: string, data: Hex) => {
      const hash = await golemWallet.sendTransaction({ to: deployment.environment.DelegationManager, data })
      const receipt = await publicClient.waitForTransactionReceipt({ hash })
      if (receipt.status !== 'success') throw new Error(`gas bench: redeeming ${label} reverted`)
      return receipt.gasUsed
    }
    const measureChain = async (label: string, chain: readonly Delegation[]): Promise<GasPair> => {
      const data = encodeRedemptions([{ chain, executions: [{ target: usdc, value: 0n, callData: transfer }] }])
      const first = await redeemOnce(`${label} (first)`, data)
      const repeat = await redeemOnce(`${label} (repeat)`, data)
      return { first, repeat, calldata: calldataGas(data) }
    }

    const sign = async (caveats: readonly Caveat[], salt: Hex): Promise<Delegation> => {
      const delegation = createDelegation({
        environment: deployment.environment,
        from: smartAccount.address,
        to: golem.address,
        scope,
        caveats: [...caveats],
        salt,
      })
      return { ...delegation, signature: await smartAccount.signDelegation({ delegation }) }
    }

    return {
      devnet,
      golem,
      owner: { address: smartAccount.address, smartAccount },
      noopEnforcer,
      scope,
      salt(caseIndex) {
        if (!Number.isInteger(caseIndex) || caseIndex < 0 || caseIndex > 254)
          throw new Error(`gas bench: case index ${caseIndex} is outside 0..254`)
        return toHex(caseIndex + 1, { size: 32 })
      },
      sign,
      async measure(label, caveats, salt) {
        return measureChain(label, [await sign(caveats, salt)])
      },
      measureChain,
      stop: devnet.stop,
    }
  } catch (error) {
    await devnet.stop()
    throw error
  }
}
