// The IAM actions the stack gives each function: sst.config.ts run against the stand-ins (stacks/testing.ts)
// with a made-up deployment, each function's permissions plus what its links grant. A test compares the
// AWS requests a handler sends with these: the local stand-ins enforce no IAM, so a request its function
// may not send (AccessDenied on AWS) fails there.
import { vi } from 'vitest'
import { effectiveStatements, installStandIns, type StandIns } from '../../stacks/testing.ts'
import { testDeployment } from '../support/deployment.ts'

/** Every action each named function's statements allow, on the production stage. */
export async function allowedActions<N extends string>(names: readonly N[]): Promise<Record<N, string[]>> {
  vi.stubEnv('BARDO_DEPLOYMENT', JSON.stringify(testDeployment()))
  vi.stubEnv('BARDO_CHAIN_ID', '84532')
  let standIns: StandIns | undefined
  try {
    standIns = installStandIns({ stage: 'production' })
    const { default: config } = (await import('../../sst.config.ts')) as unknown as { default: { run(): Promise<unknown> } }
    await config.run()
    const found = standIns
    return Object.fromEntries(
      names.map((name) => [name, effectiveStatements(found, found.one('sst:aws:Function', name)).flatMap((s) => s.actions)]),
    ) as Record<N, string[]>
  } finally {
    standIns?.uninstall()
    vi.unstubAllEnvs()
  }
}
