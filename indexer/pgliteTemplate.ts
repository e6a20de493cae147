// A new index's PGlite directory starts as a copy of an empty database cluster, made once per PGlite
// version and kept in node_modules/.cache/bardo. Making a cluster (initdb, in WebAssembly) took 3.7 s of
// every indexer's start; copying a made one (27 MB) and opening it takes 0.6 s. Ponder opens the
// directory as it would one it had made itself, and creates its schema there.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'

const projectRoot = join(import.meta.dirname, '..')

/** The PGlite Ponder runs: its module's path and its version (the cluster's format follows it). */
function ponderPglite(): { module: string; version: string } {
  const module = createRequire(join(projectRoot, 'node_modules', 'ponder', 'package.json')).resolve('@electric-sql/pglite')
  const pkg = JSON.parse(readFileSync(join(dirname(module), '..', 'package.json'), 'utf8')) as { name: string; version: string }
  if (pkg.name !== '@electric-sql/pglite') throw new Error(`not PGlite's package.json: ${pkg.name}`)
  return { module, version: pkg.version }
}

/** The kept empty cluster for this PGlite version, made (once, atomically) where it is missing. */
async function template(cacheDir: string): Promise<string> {
  const pglite = ponderPglite()
  const kept = join(cacheDir, `pglite-${pglite.version}`)
  if (existsSync(join(kept, 'PG_VERSION'))) return kept
  mkdirSync(cacheDir, { recursive: true })
  const making = mkdtempSync(join(cacheDir, `.pglite-${process.pid}-`))
  try {
    const { PGlite } = (await import(pathToFileURL(pglite.module).href)) as typeof import('@electric-sql/pglite')
    const db = new PGlite(making)
    await db.waitReady
    await db.close()
    // Made under a name of this process, then renamed: another process making it meanwhile keeps its own.
    renameSync(making, kept)
  } catch (error) {
    if (!existsSync(join(kept, 'PG_VERSION'))) throw error
  } finally {
    rmSync(making, { recursive: true, force: true })
  }
  return kept
}

/**
 * Fills a new (missing or empty) PGlite directory with a copy of the kept empty cluster. A directory
 * that holds anything is left as it is, and so is one this cannot fill: Ponder then makes the cluster.
 */
export async function seedPgliteDir(dir: string, cacheDir = join(projectRoot, 'node_modules', '.cache', 'bardo')): Promise<boolean> {
  if (existsSync(dir) && readdirSync(dir).length > 0) return false
  const copy = `${dir}.${process.pid}`
  try {
    cpSync(await template(cacheDir), copy, { recursive: true })
    // A whole copy or nothing: renamed over the empty directory in one step.
    rmSync(dir, { recursive: true, force: true })
    renameSync(copy, dir)
    return true
  } catch {
    rmSync(copy, { recursive: true, force: true })
    return false
  }
}
