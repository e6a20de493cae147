// Onboarding on the local stack: the API's OnboardingService wired to what the runner holds — the chain,
// the store, the Golems' keys in this process's memory, the operator's key for the oracle registration
// and the first gas, the local price feeds for action grants, and the stack's life and period settings.
import { createWalletClient, http, type Hex } from 'viem'
import { MemoryKeyIssuer, type MemorySignerResolver } from '../adapters/signers/memorySignerResolver.ts'
import { OnboardingService, type OperatorSender } from '../app/onboarding/onboarding.ts'
import { localRegistry, publicRegistry } from '../core/permissions/index.ts'
import type { Store } from '../core/store/index.ts'
import type { StackChain } from './chain.ts'
import { localChain } from './devnet.ts'
import { localUsdCaps } from './provision.ts'
import { LocalStackError } from './errors.ts'

/** The operator's transactions, one at a time (the heartbeat sends from the same account: one retry on a taken nonce). */
function operatorSender(chain: StackChain): OperatorSender {
  const wallet = createWalletClient({
    account: chain.operator,
    chain: localChain(chain.rpcUrl, chain.deployment.chainId),
    transport: http(chain.rpcUrl),
  })
  let queue: Promise<unknown> = Promise.resolve()
  const sendOnce = async (call: { to: Hex; data?: Hex; value?: bigint }) => {
    const hash = await wallet.sendTransaction({ to: call.to, data: call.data, value: call.value })
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash })
    if (receipt.status !== 'success')
      throw new LocalStackError('OPERATOR_TX_REVERTED', `operator: transaction ${hash} to ${call.to} reverted`)
    return hash
  }
  return {
    send(call) {
      const run = queue.then(async () => {
        try {
          return await sendOnce(call)
        } catch (error) {
          if (!/nonce/i.test(String((error as Error).message))) throw error
          return sendOnce(call)
        }
      })
      queue = run.catch(() => undefined)
      return run
    },
  }
}

export function localOnboarding(o: {
  chain: StackChain
  store: Store
  signers: MemorySignerResolver
  lifeSeconds?: bigint
  periodSeconds?: bigint
}): OnboardingService {
  const { chain } = o
  const assets = chain.deployment.assets
  return new OnboardingService({
    store: o.store,
    client: chain.publicClient as never,
    deployment: chain.deployment,
    registry: assets ? localRegistry(assets) : publicRegistry(chain.deployment.chainId),
    keys: new MemoryKeyIssuer(o.signers, chain.deployment),
    operator: operatorSender(chain),
    ...(assets ? { usdCaps: () => localUsdCaps(chain.publicClient as never, assets) } : {}),
    life: {
      ...(o.lifeSeconds === undefined ? {} : { lifeSeconds: o.lifeSeconds }),
      ...(o.periodSeconds === undefined ? {} : { periodSeconds: o.periodSeconds }),
    },
  })
}
