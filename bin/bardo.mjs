#!/usr/bin/env node
// The `bardo` command (package.json bin): runs the TypeScript CLI (cli/main.ts) with no build step,
// from the kept bundle of the project's modules it imports (bin/entryBundle.mjs). A command starts in
// about 2.2 s instead of 4 s through tsx (`npm run bench -- cli`).
import { runEntry } from './entryBundle.mjs'

await runEntry('cli/main.ts')
