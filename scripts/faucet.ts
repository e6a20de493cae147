// `npm run faucet -- <address> [usdc] [eth]`: test USDC and ETH for any address on the running local stack.
import { formatEther, formatUnits } from 'viem'
import { FaucetUsageError, fund, parseFaucetArgs, readStackInfo } from '../local/faucet.ts'

try {
  const request = parseFaucetArgs(process.argv.slice(2))
  const stack = readStackInfo()
  const { usdcBalance, ethBalance } = await fund(stack, request)
  process.stdout.write(
    `${request.to}: ${formatUnits(usdcBalance, 6)} USDC (${stack.usdc}), ${formatEther(ethBalance)} ETH on ${stack.network} ${stack.rpcUrl}\n`,
  )
} catch (error) {
  process.stderr.write(`faucet: ${error instanceof Error ? error.message : String(error)}\n`)
  if (error instanceof FaucetUsageError) process.stderr.write('usage: npm run faucet -- <address> [usdc, default 100] [eth, default 1]\n')
  process.exitCode = 1
}
