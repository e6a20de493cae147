#!/usr/bin/env node
// `node bin/run.mjs <module.ts> [args…]`: runs one of the project's TypeScript programs (`npm start`, the
// local stack's processes) from the kept bundle of the modules it imports (bin/entryBundle.mjs), with
// the arguments that follow it. The program sees itself as the script Node runs (process.argv[1]).
import { resolve } from 'node:path'
import { runEntry } from './entryBundle.mjs'

const [entry] = process.argv.splice(2, 1)
if (!entry) {
  process.stderr.write('usage: node bin/run.mjs <module.ts> [args…]\n')
  process.exit(2)
}
process.argv[1] = resolve(entry)
await runEntry(process.argv[1])
