// What the self-extension suites share: the real API served over HTTP on the heartbeat env's store and
// chain (the operator its payTo, devnet account 2 its settlement account), and the Golem's payment
// policy toward it.
import type { Address } from 'viem'
import type { ConfirmationDepths } from '../../core/finality.ts'
import type { PaymentPolicy } from '../../core/custody/paymentPolicy.ts'
import { createLocalApi } from '../../functions/api/local.ts'
import { serveApi, type RunningApi } from '../../functions/api/server.ts'
import { devnetAccount } from '../../local/devnet.ts'
import { USDC, type HeartbeatEnv } from './harness.ts'

export type SelfExtensionStand = { api: RunningApi; operator: Address; settlement: Address; payments: PaymentPolicy }

/** `confirmations`: the API's confirmation depths (a credit is applied once its settlement is that deep). */
export async function startSelfExtensionStand(
  env: HeartbeatEnv,
  o: { confirmations?: ConfirmationDepths } = {},
): Promise<SelfExtensionStand> {
  const operator = env.devnet.operator.account.address
  const settlement = devnetAccount(2)
  const payments: PaymentPolicy = {
    asset: env.devnet.deployment.assets.usdc,
    assetName: 'USD Coin',
    assetVersion: '2',
    payees: [operator],
    maxPerPayment: USDC(2),
    maxPerPeriod: USDC(5),
    periodSeconds: 86_400n,
    maxValiditySeconds: 900n,
  }
  const app = createLocalApi({
    store: env.store,
    publicClient: env.devnet.publicClient as never,
    deployment: env.devnet.deployment,
    operator,
    settlement,
    ...(o.confirmations === undefined ? {} : { confirmations: o.confirmations }),
    onUnexpectedError: (e) => {
      throw e
    },
  })
  return { api: await serveApi(app, 0), operator, settlement: settlement.address, payments }
}
