// The last wall before the table: no item that looks like it carries a private key is ever written.
// Both stores run every item (and every updated attribute) through assertNoKeyMaterial. It is a
// heuristic on purpose: hashes and nonces look like keys, so it judges by the attribute's name.
import { KeyMaterialError } from './errors.ts'

/** Names that never belong in the store, whatever the value. */
const SECRET_NAME = /priv(ate)?[_-]?key|secret|mnemonic|seed[_-]?phrase|passphrase|password/i
/** Names under which 32 bytes of hex (or a word list) would be a key. */
const KEY_NAME = /key|priv/i
/** 32 bytes of hex standing alone in a string (with or without 0x). */
const HEX32 = /(?<![0-9a-fA-F])(0x)?[0-9a-fA-F]{64}(?![0-9a-fA-F])/
/** A BIP-39 shaped phrase: 12 to 24 short lowercase words. */
const MNEMONIC = /^\s*([a-z]{3,8}\s+){11,23}[a-z]{3,8}\s*$/
/** The table's own key attributes: built by the store from validated parts, not data. */
const STRUCTURAL = new Set(['pk', 'sk'])

/** Throws KeyMaterialError naming the first attribute path that looks like key material. */
export function assertNoKeyMaterial(item: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(item)) {
    if (STRUCTURAL.has(name)) continue
    walk(name, value, name, 0)
  }
}

function walk(name: string, value: unknown, path: string, depth: number): void {
  if (value === undefined || value === null) return
  if (SECRET_NAME.test(name)) throw new KeyMaterialError(path, `an attribute named like "${name}" is refused`)
  if (value instanceof Uint8Array) {
    if (value.length === 32) throw new KeyMaterialError(path, '32 raw bytes are refused')
    return
  }
  if (typeof value === 'string') {
    if (KEY_NAME.test(name) && (HEX32.test(value) || MNEMONIC.test(value))) {
      throw new KeyMaterialError(path, `32-byte hex or a word phrase under a key-like name ("${name}") is refused`)
    }
    // JSON text (a signed delegation, for one) is checked inside as well.
    const trimmed = value.trimStart()
    if (depth < 32 && (trimmed.startsWith('{') || trimmed.startsWith('['))) {
      const parsed = tryParse(value)
      if (parsed !== undefined) walk(name, parsed, path, depth + 1)
    }
    return
  }
  if (typeof value !== 'object' || depth >= 32) return
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) walk(name, item, `${path}[${i}]`, depth + 1)
    return
  }
  if (value instanceof Set) {
    for (const item of value) walk(name, item, `${path}[]`, depth + 1)
    return
  }
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) walk(k, v, `${path}.${k}`, depth + 1)
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
