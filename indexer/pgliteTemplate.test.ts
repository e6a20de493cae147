// A new index's PGlite directory is filled with a copy of the kept empty cluster; a directory that
// holds anything is left alone. (Ponder opening a filled directory is what every indexer suite runs on.)
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { seedPgliteDir } from './pgliteTemplate.ts'

const dir = mkdtempSync(join(tmpdir(), 'bardo-pglite-template-'))
const cache = join(dir, 'cache')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("an index's PGlite directory", () => {
  it('starts as a copy of the empty cluster, made once and kept per PGlite version', async () => {
    const fresh = join(dir, 'index-a')
    mkdirSync(fresh)
    expect(await seedPgliteDir(fresh, cache)).toBe(true)
    expect(readdirSync(fresh)).toContain('PG_VERSION')
    expect(readdirSync(cache).filter((f) => f.startsWith('pglite-'))).toHaveLength(1)
    // A missing directory is made; the kept cluster is used again.
    const missing = join(dir, 'index-b')
    expect(await seedPgliteDir(missing, cache)).toBe(true)
    expect(readdirSync(cache)).toEqual(readdirSync(cache).filter((f) => f.startsWith('pglite-')))
    expect(readdirSync(missing, { recursive: true }).sort()).toEqual(readdirSync(fresh, { recursive: true }).sort())
  }, 60_000)

  it('is left as it is when it holds anything', async () => {
    const used = join(dir, 'index-c')
    mkdirSync(used)
    writeFileSync(join(used, 'something'), 'x')
    expect(await seedPgliteDir(used, cache)).toBe(false)
    expect(readdirSync(used)).toEqual(['something'])
  })
})
