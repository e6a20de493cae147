// Every payment outcome code has exactly one HTTP status, in the one table of them (errors.ts
// paymentStatus): no other source writes a status for a code, and docs/x402.md prints the same ones.
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { paymentOutcomeCodes } from '../../core/x402/errors.ts'
import { apiErrorStatus, paymentStatus } from './errors.ts'

const ROOT = join(import.meta.dirname, '..', '..')
const SOURCES = ['core', 'app', 'adapters', 'functions', 'local', 'client', 'cli']

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(path)
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : []
  })
}

/** Where `CODE: <status>` is written, across every source file, as file paths. */
function statusEntries(): Map<string, string[]> {
  const found = new Map<string, string[]>()
  for (const file of SOURCES.flatMap((d) => sourceFiles(join(ROOT, d)))) {
    for (const [, code] of readFileSync(file, 'utf8').matchAll(/^\s*'?([A-Z][A-Z0-9_]+)'?\s*:\s*[1-5]\d\d\b/gm)) {
      found.set(code!, [...(found.get(code!) ?? []), relative(ROOT, file)])
    }
  }
  return found
}

/** The status column of docs/x402.md's code table. */
function documentedStatuses(): Map<string, number> {
  const doc = readFileSync(join(ROOT, 'docs', 'x402.md'), 'utf8')
  return new Map([...doc.matchAll(/^\|\s*(\d{3})\s*\|\s*`([A-Z][A-Z0-9_]+)`/gm)].map(([, status, code]) => [code!, Number(status)]))
}

describe('payment outcome codes and HTTP statuses', () => {
  it('each code is listed once', () => {
    expect(new Set(paymentOutcomeCodes).size).toBe(paymentOutcomeCodes.length)
  })

  it('has exactly one status per payment outcome code, in the one table', () => {
    expect(Object.keys(paymentStatus).sort()).toEqual([...paymentOutcomeCodes].sort())
    const entries = statusEntries()
    for (const code of paymentOutcomeCodes) {
      const status = paymentStatus[code]
      expect(status >= 200 && status < 600, code).toBe(true)
      // Written once: in the payment table, or in the API's own table for a code the API shares.
      expect({ code, written: entries.get(code) }).toEqual({ code, written: ['functions/api/errors.ts'] })
      if (code in apiErrorStatus) expect(status).toBe(apiErrorStatus[code as keyof typeof apiErrorStatus])
    }
    expect(paymentStatus.PAYMENT_CREDITED).toBe(200)
  })

  it('docs/x402.md prints the same status for every code', () => {
    const documented = documentedStatuses()
    expect(Object.fromEntries(paymentOutcomeCodes.map((code) => [code, documented.get(code)]))).toEqual(
      Object.fromEntries(paymentOutcomeCodes.map((code) => [code, paymentStatus[code]])),
    )
  })
})
