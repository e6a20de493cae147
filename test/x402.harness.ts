// Chain harness for the x402 suites: anvil at wall-clock time (x402 checks validity windows against
// Date.now, so no time travel here), TestUSDC, Multicall3 (the facilitator's failure diagnosis uses
// it, as on every real chain), the in-process facilitator with the operator's key, and payers that
// sign EIP-3009 authorizations exactly as an x402 client does (or deliberately wrongly).
import { x402Client } from '@x402/core/client'
import { encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { authorizationTypes } from '@x402/evm'
import { ExactEvmScheme as ExactEvmClientScheme } from '@x402/evm/exact/client'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { getAddress, toHex, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { TestUSDCAbi, TestUSDCBytecode } from '../contracts/artifacts/index.ts'
import { createInProcessFacilitator, type InProcessFacilitator } from '../adapters/x402/settlement.ts'
import type { PaymentFacilitator } from '../core/x402/facilitator.ts'
import type { PaymentKind } from '../core/x402/pricing.ts'
import type { PaymentOutcome } from '../core/x402/processPayment.ts'
import { answerPayment, paymentResource, type PaymentAnswer } from '../functions/api/paymentResponse.ts'
import { resolveX402Config, type ResolvedX402Config } from '../core/x402/requirements.ts'
import { startAnvil, type Anvil } from '../local/anvil.ts'
import { devnetClients, type DevnetClients } from '../local/devnet.ts'

export const MULTICALL3_ADDRESS: Address = '0xcA11bde05977b3631167028862bE2a173976CA11'
/** $0.50 per runtime hour and a $5 death reserve, in USDC atomic units (6 decimals). */
export const PRICING = { runtimeCostPerHour: 500_000n, deathReserve: 5_000_000n }

export type X402Chain = DevnetClients & {
  anvil: Anvil
  usdc: Address
  config: ResolvedX402Config
  facilitator: InProcessFacilitator
  /** A fresh EOA holding `usdc` test USDC (no ETH: paying via EIP-3009 needs none). */
  newPayer(usdc?: bigint): Promise<PrivateKeyAccount>
  balanceOf(address: Address): Promise<bigint>
  stop(): Promise<void>
}

export async function startX402Chain(): Promise<X402Chain> {
  const anvil = await startAnvil()
  const clients = devnetClients(anvil.rpcUrl, anvil.chainId)
  const { publicClient, deployer, operator } = clients
  try {
    const hash = await deployer.deployContract({ abi: TestUSDCAbi, bytecode: TestUSDCBytecode })
    const receipt = await publicClient.waitForTransactionReceipt({ hash })
    if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error('deploying TestUSDC failed')
    const usdc = receipt.contractAddress
    await installMulticall3(anvil.rpcUrl)
    const config = resolveX402Config({ chainId: anvil.chainId, asset: usdc, payTo: operator.account.address, pricing: PRICING })
    const facilitator = createInProcessFacilitator({
      publicClient,
      walletClient: operator,
      networks: [config.network],
      confirmationTimeoutMs: 30_000,
    })
    const balanceOf = (address: Address) =>
      publicClient.readContract({ address: usdc, abi: TestUSDCAbi, functionName: 'balanceOf', args: [address] })
    // Mints go one at a time: concurrent sends from the deployer key would race for its nonce.
    let minting: Promise<unknown> = Promise.resolve()
    const newPayer = async (amount = 100_000_000n) => {
      const payer = privateKeyToAccount(generatePrivateKey())
      if (amount > 0n) {
        const mint = minting.then(async () => {
          const h = await deployer.writeContract({ address: usdc, abi: TestUSDCAbi, functionName: 'mint', args: [payer.address, amount] })
          await publicClient.waitForTransactionReceipt({ hash: h })
        })
        minting = mint.catch(() => undefined)
        await mint
      }
      return payer
    }
    return { ...clients, anvil, usdc, config, facilitator, newPayer, balanceOf, stop: () => anvil.stop() }
  } catch (error) {
    await anvil.stop()
    throw error
  }
}

/** A payment's outcome with the API's answer to it: the status, x402 headers and body a client receives. */
export type AnsweredPayment = PaymentOutcome & PaymentAnswer

/** Answers the outcome as the API does for a request to `url` (core's outcome carries no HTTP). */
export function answered(outcome: PaymentOutcome, kind: PaymentKind, url: string): AnsweredPayment {
  return { ...outcome, ...answerPayment(outcome, paymentResource(kind, url)) }
}

/** Puts Multicall3's runtime code at its canonical address (anvil has none). */
async function installMulticall3(rpcUrl: string): Promise<void> {
  // viem ships Multicall3's creation code but does not export it; load it by file path. The first
  // 32 bytes are the constructor, which CODECOPYs the runtime from offset 0x20.
  const require = createRequire(import.meta.url)
  const { multicall3Bytecode } = require(join(dirname(require.resolve('viem')), 'constants', 'contracts.js')) as { multicall3Bytecode: Hex }
  const runtime = `0x${multicall3Bytecode.slice(2 + 0x20 * 2)}` as Hex
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_setCode', params: [MULTICALL3_ADDRESS, runtime] }),
  })
  const body = (await res.json()) as { error?: unknown }
  if (body.error !== undefined) throw new Error(`anvil_setCode failed: ${JSON.stringify(body.error)}`)
}

/** The standard client path: @x402/core's x402Client with @x402/evm's exact client scheme. */
export async function payWithX402Client(payer: PrivateKeyAccount, requirements: PaymentRequirements, resourceUrl: string): Promise<string> {
  // Spend controls allow only well-known assets by default; TestUSDC is local, so they are off.
  const client = x402Client.fromConfig({
    schemes: [{ network: 'eip155:*', client: new ExactEvmClientScheme(payer) }],
    spendControls: false,
  })
  const payload = await client.createPaymentPayload({ x402Version: 2, resource: { url: resourceUrl }, accepts: [requirements] })
  return encodePaymentSignatureHeader(payload)
}

export type AuthorizationOverrides = {
  value?: bigint
  to?: Address
  validAfter?: bigint
  validBefore?: bigint
  nonce?: Hex
  /** Sign with this key instead of the payer's (a forged signature). */
  signer?: PrivateKeyAccount
  /** Sign under this EIP-712 domain instead of the requirements' (chain id, token). */
  domain?: { chainId?: number; verifyingContract?: Address; name?: string; version?: string }
  /** Fields of `accepted` to claim, whatever was signed. */
  accepted?: Partial<PaymentRequirements>
}

/** An x402 v2 exact payload signed field by field, so tests can get each field wrong on purpose. */
export async function signPayment(
  payer: PrivateKeyAccount,
  requirements: PaymentRequirements,
  o: AuthorizationOverrides = {},
): Promise<PaymentPayload> {
  const now = BigInt(Math.floor(Date.now() / 1000))
  const authorization = {
    from: payer.address,
    to: getAddress(o.to ?? (requirements.payTo as Address)),
    value: o.value ?? BigInt(requirements.amount),
    validAfter: o.validAfter ?? 0n,
    validBefore: o.validBefore ?? now + BigInt(requirements.maxTimeoutSeconds),
    nonce: o.nonce ?? toHex(crypto.getRandomValues(new Uint8Array(32))),
  }
  const chainId = o.domain?.chainId ?? Number(requirements.network.split(':')[1])
  const signature = await (o.signer ?? payer).signTypedData({
    domain: {
      name: o.domain?.name ?? (requirements.extra.name as string),
      version: o.domain?.version ?? (requirements.extra.version as string),
      chainId,
      verifyingContract: o.domain?.verifyingContract ?? (requirements.asset as Address),
    },
    types: authorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message: authorization,
  })
  const accepted = { ...requirements, amount: authorization.value.toString(), ...o.accepted }
  return {
    x402Version: 2,
    resource: { url: 'http://127.0.0.1/api/v1/extend' },
    accepted,
    payload: {
      signature,
      authorization: {
        ...authorization,
        value: authorization.value.toString(),
        validAfter: authorization.validAfter.toString(),
        validBefore: authorization.validBefore.toString(),
      },
    },
  }
}

export async function signedHeader(
  payer: PrivateKeyAccount,
  requirements: PaymentRequirements,
  o: AuthorizationOverrides = {},
): Promise<string> {
  return encodePaymentSignatureHeader(await signPayment(payer, requirements, o))
}

/** Wraps a facilitator to count calls (exactly-once assertions look at settle). */
export function countingFacilitator(
  inner: PaymentFacilitator,
): PaymentFacilitator & { calls: { verify: number; settle: number; findSettlement: number } } {
  const calls = { verify: 0, settle: 0, findSettlement: 0 }
  return {
    calls,
    settlementAccount: inner.settlementAccount,
    verify: (p, r) => (calls.verify++, inner.verify(p, r)),
    settle: (p, r, o) => (calls.settle++, inner.settle(p, r, o)),
    findSettlement: (q) => (calls.findSettlement++, inner.findSettlement(q)),
  }
}
