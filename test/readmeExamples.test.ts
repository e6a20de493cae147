// The README's copy-paste programs are the example files as they are: `tsc` checks the files against the
// installed packages, and the end-to-end suites run them against `npm start`
// (test/e2e/cliWalkthrough.test.ts runs examples/payLocally.ts), so the README's copy is checked too.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { root } from './e2e/stackProcess.ts'

const readme = readFileSync(join(root, 'README.md'), 'utf8')

/** The first TypeScript block under the README heading `heading`. */
function blockUnder(heading: string): string {
  const at = readme.indexOf(`\n## ${heading}\n`)
  expect(at, `README has a section "${heading}"`).toBeGreaterThan(-1)
  const next = readme.indexOf('\n## ', at + 1)
  const section = readme.slice(at, next === -1 ? undefined : next)
  const block = /```ts\n([\s\S]*?)```\n/.exec(section)
  expect(block, `a TypeScript block under "${heading}"`).not.toBeNull()
  return block![1]!
}

/** The example file without its leading comment (what to run and how). */
function program(file: string): string {
  const text = readFileSync(join(root, file), 'utf8')
  return text.slice(text.indexOf('\nimport ') + 1)
}

describe('README examples', () => {
  it('"Paying locally with a stock x402 client" is examples/payLocally.ts', () => {
    expect(blockUnder('Paying locally with a stock x402 client')).toBe(program('examples/payLocally.ts'))
  })
})
