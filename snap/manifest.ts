// Writes snap.manifest.json from manifest.source.json before a build. The manifest must name the npm
// registry the Snap is published to; it is taken from npm's own configuration (asked outside the
// workspace, where `npm config` refuses to run) rather than written into
// the repository, so a build against another registry (a mirror, a private one) names that one.
// `mm-snap build` then replaces the placeholder shasum with the bundle's.
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'

const here = new URL('.', import.meta.url)
const source = JSON.parse(readFileSync(new URL('manifest.source.json', here), 'utf8')) as {
  source: { shasum: string; location: { npm: Record<string, string> } }
}
const registry =
  process.env.npm_config_registry ||
  execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8', cwd: tmpdir(), stdio: ['ignore', 'pipe', 'ignore'] }).trim()
if (!/^https?:\/\//.test(registry)) throw new Error(`snap manifest: npm's registry must be an http(s) URL, got ${JSON.stringify(registry)}`)
source.source.location.npm.registry = registry
const target = new URL('snap.manifest.json', here)
// Keep the shasum of the last build when the manifest exists, so an unchanged bundle rebuilds to an unchanged file.
try {
  const previous = JSON.parse(readFileSync(target, 'utf8')) as typeof source
  source.source.shasum = previous.source.shasum
} catch {}
writeFileSync(target, `${JSON.stringify(source, null, 2)}\n`)
