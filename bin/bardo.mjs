#!/usr/bin/env node
// The `bardo` command (package.json bin): runs the TypeScript CLI (cli/main.ts) with no build step.
//
// tsx's hooks load each of the modules a command imports one by one, so `bardo --help` took about
// 4 s to start. The project's own modules are therefore run from one bundle that esbuild builds on
// first use and keeps in node_modules/.cache/bardo: packages stay external, resolved by Node as
// usual, and the bundle is built again as soon as one of the files it was built from changes. A
// command then starts in about 2.2 s (`npm run bench -- cli`). Where no bundle can be built or kept
// (esbuild missing, a read-only install, a file esbuild cannot compile), tsx runs cli/main.ts as
// before, and a compile error is reported by tsx as it always was.
import { cliBundle } from './cliBundle.mjs'

const bundle = await cliBundle().catch(() => null)
if (bundle) await import(bundle)
else {
  const { register } = await import('tsx/esm/api')
  register()
  await import('../cli/main.ts')
}
