// The API on a real local stack for the test/api suites: a devnet (anvil, the MetaMask framework, the
// Bardo contracts, TestUSDC), a store, Golems provisioned the way onboarding does it, and the app from
// createLocalApi: the same services the Lambda handler wires, minus AWS.
import { readFileSync } from 'node:fs'
import { decodePaymentRequiredHeader } from '@x402/core/http'
import type { PaymentRequirements } from '@x402/core/types'
import { erc20Abi, type Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { parseGolemProfile, type GolemProfile } from '../../core/lifecycle/profile.ts'
import { InMemoryStore } from '../../adapters/store/index.ts'
import type { Store } from '../../core/store/index.ts'
import type { GolemPricing } from '../../core/x402/index.ts'
import { createLocalApi, type LocalApiOptions } from '../../functions/api/local.ts'
import { MemorySignerResolver } from '../../adapters/signers/memorySignerResolver.ts'
import { startDevnet, type Devnet, type OwnerAccount } from '../../local/devnet.ts'
import { provisionGolem, type ProvisionedGolem } from '../../local/provision.ts'

export const STRATEGY = readFileSync(new URL('../../examples/STRATEGY.md', import.meta.url), 'utf8')
/** $0.50 per runtime hour and a $5 death reserve (USDC, 6 decimals). */
export const PRICING: GolemPricing = { runtimeCostPerHour: 500_000n, deathReserve: 5_000_000n }

export type ApiStack = {
  devnet: Devnet
  store: Store
  signers: MemorySignerResolver
  owner: OwnerAccount
  /** The settlement account (a gas-only EOA, like the deployed SettlementKey). */
  settlement: PrivateKeyAccount
  operator: Address
  unexpected: unknown[]
  app(overrides?: Partial<LocalApiOptions>): ReturnType<typeof createLocalApi>
  provision(golemId: string, o?: { owner?: OwnerAccount }): Promise<ProvisionedGolem>
  profile(golemId: string): Promise<GolemProfile>
  /** A fresh EOA holding `usdc` TestUSDC and no ETH (EIP-3009 payers need none). */
  newPayer(usdc?: bigint): Promise<PrivateKeyAccount>
  usdcBalance(address: Address): Promise<bigint>
  stop(): Promise<void>
}

export async function startApiStack(o: { store?: Store } = {}): Promise<ApiStack> {
  const devnet = await startDevnet()
  try {
    const store = o.store ?? new InMemoryStore()
    const signers = new MemorySignerResolver(devnet.deployment)
    const owner = await devnet.createOwner()
    const settlement = await devnet.fundedAccount()
    const operator = devnet.operator.account.address
    const unexpected: unknown[] = []
    // Mints go one at a time: concurrent sends from the deployer key would race for its nonce.
    let minting: Promise<unknown> = Promise.resolve()
    return {
      devnet,
      store,
      signers,
      owner,
      settlement,
      operator,
      unexpected,
      app: (overrides = {}) =>
        createLocalApi({
          store,
          publicClient: devnet.publicClient,
          deployment: devnet.deployment,
          operator,
          settlement,
          pricing: PRICING,
          config: { rateLimits: { public: 100_000 }, allowedOrigins: ['https://bardo.ai'] },
          onUnexpectedError: (e) => unexpected.push(e),
          ...overrides,
        }),
      provision: (golemId, p = {}) =>
        provisionGolem({
          clients: devnet,
          deployment: devnet.deployment,
          store,
          signers,
          owner: p.owner ?? owner,
          golemId,
          strategy: STRATEGY,
          runwayDays: 30,
          periodAmount: 10_000_000n,
        }),
      profile: async (golemId) => parseGolemProfile((await store.getGolem(golemId))!.profile),
      async newPayer(usdc = 100_000_000n) {
        const payer = privateKeyToAccount(generatePrivateKey())
        const mint = minting.then(() => devnet.mintUsdc(payer.address, usdc))
        minting = mint.catch(() => undefined)
        await mint
        return payer
      },
      usdcBalance: (address) =>
        devnet.publicClient.readContract({
          address: devnet.deployment.assets.usdc,
          abi: erc20Abi,
          functionName: 'balanceOf',
          args: [address],
        }),
      stop: () => devnet.stop(),
    }
  } catch (error) {
    await devnet.stop()
    throw error
  }
}

/** The requirements a 402 answer carries in PAYMENT-REQUIRED (what a standard x402 client reads). */
export function requirementsOf(res: Response): PaymentRequirements {
  const header = res.headers.get('payment-required')
  if (!header) throw new Error(`no PAYMENT-REQUIRED header on a ${res.status}`)
  return decodePaymentRequiredHeader(header).accepts[0]!
}

export const postJson = (
  app: { request: (path: string, init: RequestInit) => Response | Promise<Response> },
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
) =>
  Promise.resolve(
    app.request(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }),
  )
