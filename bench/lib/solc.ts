// Compiles one contract of contracts/src at bench time with the `solc` npm package and the exact settings
// of contracts/build.ts, so a bench-only prototype (contracts/src/test-assets/Bench*.sol) is measured
// under the same optimizer as the deployed enforcers without touching the shared generated artifacts.
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Abi, Hex } from 'viem'

const require = createRequire(import.meta.url)
const solc = require('solc') as { compile(input: string, opts?: unknown): string }

const contractsRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'contracts')

type Output = {
  errors?: { severity: string; formattedMessage: string }[]
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>
}

/** `source` is relative to contracts/ (e.g. `src/test-assets/BenchFoldedGolemEnforcer.sol`). */
export function compileContract(source: string, name: string): { abi: Abi; bytecode: Hex } {
  const input = {
    language: 'Solidity',
    sources: { [source]: { content: readFileSync(join(contractsRoot, source), 'utf8') } },
    settings: {
      // Keep in step with contracts/build.ts.
      optimizer: { enabled: true, runs: 10_000 },
      evmVersion: 'cancun',
      outputSelection: { [source]: { [name]: ['abi', 'evm.bytecode.object'] } },
    },
  }
  const findImports = (p: string) => {
    try {
      return { contents: readFileSync(resolve(contractsRoot, p), 'utf8') }
    } catch {
      return { error: `File not found: ${p}` }
    }
  }
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports })) as Output
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length > 0) throw new Error(`solc failed on ${source}:\n${errors.map((e) => e.formattedMessage).join('\n')}`)
  const c = output.contracts?.[source]?.[name]
  if (!c || c.evm.bytecode.object.length === 0) throw new Error(`solc produced no bytecode for ${name} in ${source}`)
  return { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` }
}
