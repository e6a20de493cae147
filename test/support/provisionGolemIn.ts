// A Golem provisioned on a suite's devnet, store and signers, as `npm start` provisions its demo.
import { readFileSync } from 'node:fs'
import type { Devnet } from '../../local/devnet.ts'
import { provisionGolem, type ProvisionedGolem, type ProvisionGolemParams } from '../../local/provision.ts'

/** For a fresh owner and from examples/STRATEGY.md unless `options` names them. */
export async function provisionGolemIn(
  env: { devnet: Devnet; store: ProvisionGolemParams['store']; signers: ProvisionGolemParams['signers'] },
  golemId: string,
  options: Partial<Omit<ProvisionGolemParams, 'clients' | 'deployment' | 'store' | 'signers' | 'golemId'>> = {},
): Promise<ProvisionedGolem> {
  return provisionGolem({
    ...options,
    clients: env.devnet,
    deployment: env.devnet.deployment,
    store: env.store,
    signers: env.signers,
    owner: options.owner ?? (await env.devnet.createOwner()),
    golemId,
    strategy: options.strategy ?? readFileSync(new URL('../../examples/STRATEGY.md', import.meta.url), 'utf8'),
  })
}
