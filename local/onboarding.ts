// Onboarding on the local stack: the API's OnboardingService wired to what the runner holds — the chain,
// the store, the Golems' keys in the stack's keystore (local/stackKeys.ts), the operator's key for the oracle registration
// and the first gas, the local price feeds for action grants, and the stack's life and period settings.
import { createWalletClient, http } from 'viem'
import { serialSender } from '../adapters/chain/serialSender.ts'
import { StackKeyIssuer, type StackKeys } from './stackKeys.ts'
import { MemoryKeyIssuer, MemorySignerResolver } from '../adapters/signers/memorySignerResolver.ts'
import { OnboardingService, type OperatorSender } from '../app/onboarding/onboarding.ts'
import { localRegistry, publicRegistry } from '../core/permissions/index.ts'
import type { Store } from '../core/store/index.ts'
import type { KeyIssuer } from '../core/custody/keyIssuer.ts'
import type { StackChain } from './chain.ts'
import { localChain } from './devnet.ts'
import { localUsdCaps } from './provision.ts'
import { LocalStackError } from './errors.ts'

/** The operator's transactions, one at a time (the heartbeat sends from the same account: one retry on a taken nonce). */
export function operatorSender(chain: StackChain): OperatorSender {
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

/** Where the stack's new Golem keys go: its keystore, or a resolver's memory (a test's stack in one process). */
export function stackKeyIssuer(keys: StackKeys | MemorySignerResolver, chain: StackChain): KeyIssuer {
  return keys instanceof MemorySignerResolver ? new MemoryKeyIssuer(keys, chain.deployment) : new StackKeyIssuer(keys, chain.deployment)
}

export function localOnboarding(o: {
  chain: StackChain
  store: Store
  /** Where new Golems' keys go: the stack's keystore, or a resolver's memory (a test's stack in one process). */
  keys: StackKeys | MemorySignerResolver
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
    keys: stackKeyIssuer(o.keys, chain),
    operator: operatorSender(chain),
    ...(assets ? { usdCaps: () => localUsdCaps(chain.publicClient as never, assets) } : {}),
    life: {
      ...(o.lifeSeconds === undefined ? {} : { lifeSeconds: o.lifeSeconds }),
      ...(o.periodSeconds === undefined ? {} : { periodSeconds: o.periodSeconds }),
    },
  })
}
