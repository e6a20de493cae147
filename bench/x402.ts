// What one x402 payment costs the operator: milliseconds per facilitator verify+settle (in-process
// @x402/core + @x402/evm exact, EIP-3009 on TestUSDC) and the gas of the settle transaction, against
// a plain ERC-20 transfer of the same amount between the same kind of accounts, measured in the same
// run on the same anvil. Also the whole processPayment pipeline (parse, ledger, verify, settle, record).
// Run: npx tsx bench/x402.ts
import { encodePaymentSignatureHeader } from '@x402/core/http'
import { createWalletClient, http, parseEther, type Hex } from 'viem'
import { TestUSDCAbi } from '../contracts/artifacts/index.ts'
import { InMemoryPaymentLedger } from '../test/support/x402/memoryLedger.ts'
import { createX402Payments } from '../core/x402/payments.ts'
import { signPayment, startX402Chain } from '../test/x402.harness.ts'

export type X402BenchResult = {
  iterations: number
  /** Median wall-clock ms of facilitator.verify + facilitator.settle (settle waits for the receipt). */
  msPerVerifySettle: number
  /** Median ms of the full processPayment pipeline for one extend payment. */
  msPerProcessPayment: number
  /** Median ms to send a plain ERC-20 transfer and wait for its receipt. */
  msPerTransfer: number
  /** Median gasUsed of the transferWithAuthorization settle transaction. */
  settleGas: bigint
  /** Median gasUsed of a plain ERC-20 transfer of the same amount. */
  transferGas: bigint
  /** settleGas / transferGas. */
  gasRatio: number
  /** msPerVerifySettle / msPerTransfer. */
  msRatio: number
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const medianBig = (xs: bigint[]) => [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))[Math.floor(xs.length / 2)]!

export async function runX402Bench(options: { iterations?: number } = {}): Promise<X402BenchResult> {
  const iterations = options.iterations ?? 20
  const chain = await startX402Chain()
  try {
    const { publicClient, deployer, facilitator, config } = chain
    const operator = chain.operator.account.address
    const requirements = createX402Payments({ config, ledger: new InMemoryPaymentLedger(), facilitator }).requirements('extend')
    const amount = BigInt(requirements.amount)

    // Both payers start with balance and have paid the operator once, so every measured transfer is
    // the steady state (non-zero to non-zero balances) for both methods.
    const x402Payer = await chain.newPayer(amount * BigInt(3 * iterations + 10))
    const transferPayer = await chain.newPayer(amount * BigInt(iterations + 10))
    const fund = await deployer.sendTransaction({ to: transferPayer.address, value: parseEther('1') })
    await publicClient.waitForTransactionReceipt({ hash: fund })
    const wallet = createWalletClient({
      account: transferPayer,
      chain: chain.chain,
      transport: http(chain.anvil.rpcUrl),
      pollingInterval: 25,
    })
    const sendTransfer = async (): Promise<Hex> =>
      wallet.writeContract({ address: chain.usdc, abi: TestUSDCAbi, functionName: 'transfer', args: [operator, amount] })
    await publicClient.waitForTransactionReceipt({ hash: await sendTransfer() })
    const warm = await signPayment(x402Payer, requirements)
    await facilitator.verify(warm, requirements)
    await facilitator.settle(warm, requirements)

    // Interleaved, so JIT warm-up and chain growth weigh on every method alike.
    const payments = createX402Payments({ config, ledger: new InMemoryPaymentLedger(), facilitator })
    const settleMs: number[] = []
    const settleGas: bigint[] = []
    const transferMs: number[] = []
    const transferGas: bigint[] = []
    const pipelineMs: number[] = []
    for (let i = 0; i < iterations; i++) {
      const payload = await signPayment(x402Payer, requirements)
      let t0 = performance.now()
      const verified = await facilitator.verify(payload, requirements)
      const settled = await facilitator.settle(payload, requirements)
      settleMs.push(performance.now() - t0)
      if (!verified.isValid || !settled.success) throw new Error(`bench payment failed: ${verified.invalidReason ?? settled.errorReason}`)
      settleGas.push((await publicClient.getTransactionReceipt({ hash: settled.transaction as Hex })).gasUsed)

      t0 = performance.now()
      const receipt = await publicClient.waitForTransactionReceipt({ hash: await sendTransfer() })
      transferMs.push(performance.now() - t0)
      transferGas.push(receipt.gasUsed)

      const header = encodePaymentSignatureHeader(await signPayment(x402Payer, requirements))
      t0 = performance.now()
      const outcome = await payments.extend({
        header,
        golemId: 'bench',
        golem: { id: 'bench', lifecycle: 'alive' },
      })
      pipelineMs.push(performance.now() - t0)
      if (!outcome.ok) throw new Error(`bench pipeline failed: ${outcome.code}`)
    }

    const result = {
      iterations,
      msPerVerifySettle: median(settleMs),
      msPerProcessPayment: median(pipelineMs),
      msPerTransfer: median(transferMs),
      settleGas: medianBig(settleGas),
      transferGas: medianBig(transferGas),
      gasRatio: 0,
      msRatio: 0,
    }
    result.gasRatio = Number(result.settleGas) / Number(result.transferGas)
    result.msRatio = result.msPerVerifySettle / result.msPerTransfer
    return result
  } finally {
    await chain.stop()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await runX402Bench()
  console.log(
    `x402 verify+settle: ${r.msPerVerifySettle.toFixed(1)} ms (processPayment ${r.msPerProcessPayment.toFixed(1)} ms) vs ERC-20 transfer ${r.msPerTransfer.toFixed(1)} ms -> x${r.msRatio.toFixed(2)}`,
  )
  console.log(
    `gas: transferWithAuthorization ${r.settleGas} vs transfer ${r.transferGas} -> x${r.gasRatio.toFixed(2)} (median of ${r.iterations})`,
  )
}
