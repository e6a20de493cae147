// The onboarding suites' API on a heartbeat environment: the local API with the stack's onboarding
// (the devnet's operator registers keys and fronts their first gas), a heartbeat invoker that keeps
// every tick error for the test to see, and optionally the Alchemy webhook waking Golems through it.
import { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import { createLocalApi } from '../../functions/api/local.ts'
import type { StackChain } from '../../local/chain.ts'
import { devnetAccount } from '../../local/devnet.ts'
import { localOnboarding } from '../../local/onboarding.ts'
import type { AlchemySigningKey } from '../../core/webhooks/index.ts'
import type { HeartbeatEnv } from '../heartbeat/harness.ts'

/** `signingKey`: the Alchemy webhook's, so deliveries wake Golems at once through the same invoker. */
export function onboardingApi(env: HeartbeatEnv, o: { signingKey?: AlchemySigningKey } = {}) {
  const tickErrors: unknown[] = []
  const invoker = new LocalInvoker((id) => env.deps(id), { onError: (_id, e) => tickErrors.push(e) })
  const chain: StackChain = {
    rpcUrl: env.devnet.rpcUrl,
    publicClient: env.devnet.publicClient as never,
    deployment: env.devnet.deployment,
    usdc: env.devnet.deployment.assets.usdc,
    operator: env.devnet.operator.account,
    settlement: devnetAccount(2),
    devnet: env.devnet,
    stop: async () => undefined,
  }
  const api = createLocalApi({
    store: env.store,
    publicClient: env.devnet.publicClient,
    deployment: env.devnet.deployment,
    operator: env.devnet.operator.account,
    settlement: devnetAccount(2),
    onboarding: localOnboarding({ chain, store: env.store, keys: env.signers }),
    ...(o.signingKey ? { alchemyWebhook: { signingKey: o.signingKey, invoker } } : {}),
  })
  const post = (path: string, body: unknown) =>
    api.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { api, invoker, tickErrors, post }
}
