// Onboarding on the local stack: the API's OnboardingService wired to what the runner holds — the chain,
// the store, the Golems' keys in this process's memory, the operator's key for the oracle registration
// and the first gas, the local price feeds for action grants, and the stack's life and period settings.
import { createWalletClient, http } from 'viem'
import { serialSender } from '../adapters/chain/serialSender.ts'
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
  return serialSender(
    chain.publicClient,
    wallet,
    (hash, call) => new LocalStackError('OPERATOR_TX_REVERTED', `operator: transaction ${hash} to ${call.to} reverted`),
  )
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
