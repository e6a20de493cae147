#!/usr/bin/env node
// The `bardo` command (package.json bin): loads tsx's ESM hooks, then runs the TypeScript CLI as the
// npm scripts do, with no build step.
import { register } from 'tsx/esm/api'

register()
await import('../cli/main.ts')
