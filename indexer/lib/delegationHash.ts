// The DelegationManager's EIP-712 struct hash of a delegation (EncoderLib._getDelegationHash). The
// enforcers key their events by this hash; RedeemedDelegation carries the struct, so the indexer
// recomputes it to join the two. Same result as the kit's hashDelegation (checked in the tests).
import { encodeAbiParameters, keccak256, type Address, type Hex } from 'viem'

export const DELEGATION_TYPEHASH: Hex = '0x88c1d2ecf185adf710588203a5f263f0ff61be0d33da39792cde19ba9aa4331e'
export const CAVEAT_TYPEHASH: Hex = '0x80ad7e1b04ee6d994a125f4714ca0720908bd80ed16063ec8aee4b88e9253e2d'

export type DelegationStruct = {
  delegate: Address
  delegator: Address
  authority: Hex
  caveats: readonly { enforcer: Address; terms: Hex; args: Hex }[]
  salt: bigint
}

const CAVEAT_PARAMS = [{ type: 'bytes32' }, { type: 'address' }, { type: 'bytes32' }] as const
const DELEGATION_PARAMS = [
  { type: 'bytes32' },
  { type: 'address' },
  { type: 'address' },
  { type: 'bytes32' },
  { type: 'bytes32' },
  { type: 'uint256' },
] as const

export function delegationHash(d: DelegationStruct): Hex {
  // Caveat args are not signed (the redeemer fills them), so they are not part of the hash.
  const caveatHashes = d.caveats.map((c) =>
    keccak256(encodeAbiParameters(CAVEAT_PARAMS, [CAVEAT_TYPEHASH, c.enforcer, keccak256(c.terms)])),
  )
  const caveatsHash = keccak256(caveatHashes.length === 0 ? '0x' : (`0x${caveatHashes.map((h) => h.slice(2)).join('')}` as Hex))
  return keccak256(encodeAbiParameters(DELEGATION_PARAMS, [DELEGATION_TYPEHASH, d.delegate, d.delegator, d.authority, caveatsHash, d.salt]))
}

/**
 * delegationHash with a bounded memo: a Golem redeems the same delegation on every tick, and keccak in
 * JavaScript costs more than building the key. A pure function's cache is safe across reorgs.
 */
export function createDelegationHasher(maxEntries = 10_000): (d: DelegationStruct) => Hex {
  const memo = new Map<string, Hex>()
  return (d) => {
    let key = `${d.delegate}${d.delegator}${d.authority}${d.salt}`
    for (const c of d.caveats) key += `|${c.enforcer}${c.terms}`
    const hit = memo.get(key)
    if (hit !== undefined) return hit
    const hash = delegationHash(d)
    if (memo.size >= maxEntries) memo.delete(memo.keys().next().value!)
    memo.set(key, hash)
    return hash
  }
}
