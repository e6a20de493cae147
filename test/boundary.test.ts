// The house rules, enforced: core/ decides and holds no I/O; adapters/ implement core's ports and import
// nothing above them; app/ holds the use cases and imports no entry point. Probe files are linted with the
// project's own biome.json in a scratch directory laid out like the repository; a bad import must fail.
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const root = resolve(fileURLToPath(new URL('..', import.meta.url)))
const biome = join(root, 'node_modules', '.bin', 'biome')
let dir: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'bardo-boundary-'))
  const config = JSON.parse(readFileSync(join(root, 'biome.json'), 'utf8')) as Record<string, unknown>
  // The scratch directory is no git checkout and has no node_modules to take the schema from.
  delete config.vcs
  delete config.$schema
  writeFileSync(join(dir, 'biome.json'), JSON.stringify(config))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function lint(path: string, source: string): { ok: boolean; output: string } {
  const file = join(dir, path)
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, source)
  const run = spawnSync(biome, ['lint', '--only=style/noRestrictedImports', path], { cwd: dir, encoding: 'utf8' })
  rmSync(file)
  return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` }
}

describe('the core/ import boundary', () => {
  it.each([
    ['an adapter', "import { DynamoStore } from '../../adapters/store/index.ts'"],
    ['a use case (app/)', "import { runTick } from '../../app/tick/runTick.ts'"],
    ['functions/', "import { runTick } from '../../functions/tick/runTick.ts'"],
    ['local/', "import { startAnvil } from '../../local/anvil.ts'"],
    ['indexer/', "import { settings } from '../../indexer/lib/settings.ts'"],
    ['the AWS SDK', "import { KMSClient } from '@aws-sdk/client-kms'"],
    ['hono', "import { Hono } from 'hono'"],
    ["node's fs", "import { readFileSync } from 'node:fs'"],
    ["node's net", "import { createServer } from 'node:net'"],
    ["node's http", "import { request } from 'node:http'"],
  ])('fails when core/ imports %s', (_what, line) => {
    const result = lint('core/lifecycle/probe.ts', `${line}\nexport const probe = 1\n`)
    expect(result.ok).toBe(false)
    expect(result.output).toMatch(/noRestrictedImports/)
  })

  it('passes core/ importing core/, viem and zod', () => {
    const source =
      "import { parseGolemProfile } from './profile.ts'\nimport { isAddress } from 'viem'\nimport { z } from 'zod/v4'\nexport const probe = [parseGolemProfile, isAddress, z]\n"
    expect(lint('core/lifecycle/probe.ts', source)).toMatchObject({ ok: true })
  })

  it('lints a helper under a testing/ folder in core/ like any core file (test material lives in test/support/)', () => {
    const result = lint('core/lifecycle/testing/probe.ts', "import { readFileSync } from 'node:fs'\nexport const probe = readFileSync\n")
    expect(result.ok).toBe(false)
    expect(result.output).toMatch(/noRestrictedImports/)
  })

  it('lets the edges and core tests do I/O', () => {
    expect(lint('adapters/store/probe.ts', "import { readFileSync } from 'node:fs'\nexport const probe = readFileSync\n")).toMatchObject({
      ok: true,
    })
    expect(
      lint(
        'core/lifecycle/probe.test.ts',
        "import { DynamoStore } from '../../adapters/store/index.ts'\nexport const probe = DynamoStore\n",
      ),
    ).toMatchObject({ ok: true })
  })
})

describe('the layers above core/', () => {
  it.each([
    ['adapters/ importing a use case', 'adapters/chain/probe.ts', "import { runTick } from '../../app/tick/runTick.ts'"],
    ['adapters/ importing an entry point', 'adapters/chain/probe.ts', "import { handler } from '../../functions/tick/handler.ts'"],
    ['app/ importing an entry point', 'app/tick/probe.ts', "import { handler } from '../../functions/tick/handler.ts'"],
    ['app/ importing the local runner', 'app/tick/probe.ts', "import { provisionGolem } from '../../local/provision.ts'"],
    ['app/ importing the CLI', 'app/probe.ts', "import { runCli } from '../cli/bardo.ts'"],
  ])('fails %s', (_what, path, line) => {
    const result = lint(path, `${line}\nexport const probe = 1\n`)
    expect(result.ok).toBe(false)
    expect(result.output).toMatch(/noRestrictedImports/)
  })

  it('passes each layer importing the ones below it', () => {
    expect(
      lint('app/tick/probe.ts', "import { sendOnce } from '../../adapters/chain/sendOnce.ts'\nexport const probe = sendOnce\n"),
    ).toMatchObject({
      ok: true,
    })
    expect(
      lint('functions/tick/probe.ts', "import { runTick } from '../../app/tick/runTick.ts'\nexport const probe = runTick\n"),
    ).toMatchObject({
      ok: true,
    })
  })
})
