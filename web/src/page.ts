// The dashboard's one HTML page, with the settings that belong to where it is served (not to the API):
// the owner it shows by default, the API's origin the Snap reads (null: the page's own origin, where a
// deployment routes /api to the API), and the Snap it pairs. The local stack's server and the deployed
// build (web/build.ts) both write it from here; the page reads the settings from its `#bardo-settings`
// element, and the chain's settings from the API (GET /api/v1/dashboard/config).
export type PageSettings = {
  owner: string | null
  apiUrl: string | null
  snapId: string
  /** Who adds the read key to the API reads: the page's server (local), or the owner, in the page (deployed). */
  readKey: 'server' | 'owner'
}

export const SETTINGS_ELEMENT = 'bardo-settings'

/** The Bardo Snap as published on npm: what a deployed page pairs unless BARDO_SNAP_ID names another. */
export const PUBLISHED_SNAP_ID = 'npm:@bardo/snap'

/** A Snap id MetaMask installs: a package on npm, or a local server's (`local:http://...`, development). */
export const SNAP_ID_RULE = 'must be a Snap id: npm:<package> or local:<http(s) URL>'
export const isSnapId = (id: string): boolean =>
  /^npm:(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/.test(id) || /^local:https?:\/\/[^\s]+$/.test(id)

/** The page, its settings as JSON that cannot close the script element it sits in. */
export function dashboardPage(settings: PageSettings): string {
  const json = JSON.stringify(settings).replace(/</g, '\\u003c')
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Bardo: the owner's dashboard</title>
<link rel="icon" href="data:,">
<script type="application/json" id="${SETTINGS_ELEMENT}">${json}</script>
</head>
<body>
<div id="app"></div>
<script type="module" src="/app.js"></script>
</body>
</html>
`
}

/** The settings the page was served with. */
export function pageSettings(doc: { getElementById(id: string): { textContent: string | null } | null }): PageSettings {
  const text = doc.getElementById(SETTINGS_ELEMENT)?.textContent
  if (!text) throw new Error(`settings: the page has no #${SETTINGS_ELEMENT} element`)
  return JSON.parse(text) as PageSettings
}
