// The deployed dashboard's files: `npm run build:dashboard` writes the page with its settings (no default
// owner, the API at the page's own origin, the Snap it pairs) and the one script, and refuses a Snap id
// MetaMask would not install, writing nothing.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { buildDashboard } from '../../scripts/buildDashboard.ts'
import { pageSettings, SETTINGS_ELEMENT } from '../../web/src/page.ts'

const dir = mkdtempSync(join(tmpdir(), 'bardo-dashboard-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The page's settings element, as the browser's getElementById would find it. */
const settingsOf = (html: string) =>
  pageSettings({
    getElementById: (id) => {
      const text = new RegExp(`<script type="application/json" id="${id}">(.*?)</script>`, 's').exec(html)?.[1]
      return text === undefined ? null : { textContent: text }
    },
  })

describe('npm run build:dashboard', () => {
  it('writes the page with its settings and the script it loads', async () => {
    const out = join(dir, 'dist')
    await buildDashboard(out, { BARDO_SNAP_ID: 'npm:@bardo/snap' })
    const html = readFileSync(join(out, 'index.html'), 'utf8')
    expect(html).toContain(`id="${SETTINGS_ELEMENT}"`)
    expect(html).toContain('<script type="module" src="/app.js"></script>')
    expect(settingsOf(html)).toEqual({ owner: null, apiUrl: null, snapId: 'npm:@bardo/snap', readKey: 'owner' })
    // The script reads the chain's settings and the fleet from the API, never from a local route.
    const script = readFileSync(join(out, 'app.js'), 'utf8')
    expect(script).toContain('/api/v1/dashboard/config')
    expect(script).toContain('/api/v1/fleet?owner=')
    expect(script).not.toContain('/local/')
  }, 60_000)

  it('refuses a Snap id MetaMask would not install, naming the variable, and writes nothing', async () => {
    const out = join(dir, 'refused')
    await expect(buildDashboard(out, { BARDO_SNAP_ID: 'https://evil.example/snap' })).rejects.toThrow(
      'BARDO_SNAP_ID: must be a Snap id: npm:<package> or local:<http(s) URL>',
    )
    expect(existsSync(out)).toBe(false)
  })
})
