// Where npm put the Foundry binary for this platform: @foundry-rs/<tool> installs exactly one of its
// per-platform packages (@foundry-rs/<tool>-<os>-<arch>) as an optional dependency.
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { LocalStackError } from './errors.ts'

export type FoundryTool = 'anvil' | 'forge'

const ARCH: Partial<Record<NodeJS.Architecture, string>> = { x64: 'amd64', arm64: 'arm64' }
const OS: Partial<Record<NodeJS.Platform, string>> = { linux: 'linux', darwin: 'darwin', win32: 'win32' }

export function foundryPackage(
  tool: FoundryTool,
  platform: NodeJS.Platform = process.platform,
  arch: NodeJS.Architecture = process.arch,
): string {
  const os = OS[platform]
  const cpu = ARCH[arch]
  if (!os || !cpu)
    throw new LocalStackError(
      'FOUNDRY_BINARY',
      `${tool}: Foundry publishes no binary for ${platform}/${arch} (linux, darwin and win32 on x64 or arm64)`,
    )
  return `@foundry-rs/${tool}-${os}-${cpu}`
}

export function foundryBinary(tool: FoundryTool): string {
  const pkg = foundryPackage(tool)
  const require = createRequire(import.meta.url)
  let manifest: string
  try {
    manifest = require.resolve(`${pkg}/package.json`)
  } catch {
    throw new LocalStackError(
      'FOUNDRY_BINARY',
      `${tool}: ${pkg} is not installed; run npm install (npm installs the package for this platform)`,
    )
  }
  return join(dirname(manifest), 'bin', process.platform === 'win32' ? `${tool}.exe` : tool)
}
