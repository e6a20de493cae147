// The owner's dashboard, deployed: the page (web/, built by `npm run build:dashboard` into web/dist) on
// one CloudFront origin with the API and the indexer behind it, so the page reads `/api/...`,
// `/council/...` and `/graphql` from its own origin as it does on the local stack (no CORS, no read key
// in the page: it reads under the anonymous tier, and the owner's acts are signed in the owner's wallet).
// Nothing here holds a secret: the page's settings are its default owner (none), the API's origin for
// the Snap (the page's own) and the Snap it pairs.
import type { StackConfig } from './config.ts'

export type DashboardInputs = {
  config: Pick<StackConfig, 'snapId'>
  apiUrl: Sst.Output<string>
  indexerUrl: Sst.Output<string>
}

export function createDashboard({ config, apiUrl, indexerUrl }: DashboardInputs) {
  const router = new sst.aws.Router('Dashboard')
  router.route('/api', apiUrl)
  router.route('/council', apiUrl)
  router.route('/graphql', indexerUrl)
  const site = new sst.aws.StaticSite('DashboardPage', {
    path: '.',
    build: { command: 'npm run build:dashboard', output: 'web/dist' },
    environment: { BARDO_SNAP_ID: config.snapId },
    router: { instance: router },
  })
  return { router, site, url: router.url }
}
