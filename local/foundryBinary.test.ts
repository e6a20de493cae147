import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { foundryBinary, foundryPackage } from './foundryBinary.ts'

describe('foundryBinary', () => {
  it('names the per-platform package npm installs for each supported platform', () => {
    expect(foundryPackage('anvil', 'linux', 'x64')).toBe('@foundry-rs/anvil-linux-amd64')
    expect(foundryPackage('forge', 'darwin', 'arm64')).toBe('@foundry-rs/forge-darwin-arm64')
    expect(foundryPackage('anvil', 'win32', 'x64')).toBe('@foundry-rs/anvil-win32-amd64')
  })

  it('refuses a platform Foundry publishes no binary for, naming it', () => {
    expect(() => foundryPackage('forge', 'freebsd', 'x64')).toThrow(/no binary for freebsd\/x64/)
    expect(() => foundryPackage('anvil', 'linux', 'ia32')).toThrow(/linux\/ia32/)
  })

  it('finds the installed binary for this machine', () => {
    expect(existsSync(foundryBinary('anvil'))).toBe(true)
    expect(existsSync(foundryBinary('forge'))).toBe(true)
  })
})
