// `npm run build:dashboard`: the owner's dashboard as static files for a deployment (web/dist: the page
// and its one script), the page's settings from the build's environment: BARDO_SNAP_ID (the Snap it
// pairs; default the published Bardo Snap). A deployed page names no default owner (the owner's wallet
// or `?owner=` does) and reads the API from its own origin.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { bundleDashboard } from '../local/dashboard.ts'
import { dashboardPage, isSnapId, PUBLISHED_SNAP_ID, SNAP_ID_RULE } from '../web/src/page.ts'

export async function buildDashboard(outDir: string, env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const snapId = env.BARDO_SNAP_ID?.trim() || PUBLISHED_SNAP_ID
  if (!isSnapId(snapId)) throw new Error(`BARDO_SNAP_ID: ${SNAP_ID_RULE}`)
  const script = await bundleDashboard()
  mkdirSync(outDir, { recursive: true })
  const files = [join(outDir, 'index.html'), join(outDir, 'app.js')]
  writeFileSync(files[0]!, dashboardPage({ owner: null, apiUrl: null, snapId, readKey: 'owner' }))
  writeFileSync(files[1]!, script)
  return files
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const out = join(import.meta.dirname, '..', 'web', 'dist')
  buildDashboard(out).then(
    (files) => console.log(`dashboard: ${files.join(', ')}`),
    (error: Error) => {
      console.error(error.message)
      process.exit(1)
    },
  )
}
