// The constitution's hash: keccak256 of its ABI encoding, with the assets sorted by address and the
// revocation rules as a bit mask in POLICY_RULES order, so two constitutions that say the same thing
// hash the same however their JSON was written. The hash is what the PolicyCage contract stores.
import { decodeAbiParameters, encodeAbiParameters, keccak256, type Hex } from 'viem'
import { parseConstitution, POLICY_RULES, type Constitution, type PolicyRule } from './constitution.ts'

export const CONSTITUTION_ABI = [
  {
    type: 'tuple',
    components: [
      { name: 'v', type: 'uint8' },
      { name: 'baseAsset', type: 'address' },
      {
        name: 'assets',
        type: 'tuple[]',
        components: [
          { name: 'asset', type: 'address' },
          { name: 'maxConcentrationBps', type: 'uint16' },
        ],
      },
      { name: 'maxTransactionUsd', type: 'uint256' },
      { name: 'maxSessionUsd', type: 'uint256' },
      { name: 'maxDayUsd', type: 'uint256' },
      { name: 'maxDrawdownBps', type: 'uint16' },
      { name: 'revokeOnMask', type: 'uint8' },
    ],
  },
] as const

/** One bit per rule, in POLICY_RULES order. */
export const revokeOnMask = (rules: readonly PolicyRule[]): number => rules.reduce((mask, r) => mask | (1 << POLICY_RULES.indexOf(r)), 0)

/** The canonical ABI encoding the hash is taken over. */
export function encodeConstitution(c: Constitution): Hex {
  const assets = [...c.assets]
    .sort((x, y) => (BigInt(x.address) < BigInt(y.address) ? -1 : 1))
    .map((a) => ({ asset: a.address, maxConcentrationBps: a.maxConcentrationBps }))
  return encodeAbiParameters(CONSTITUTION_ABI, [
    {
      v: c.v,
      baseAsset: c.baseAsset,
      assets,
      maxTransactionUsd: c.maxTransactionUsd,
      maxSessionUsd: c.maxSessionUsd,
      maxDayUsd: c.maxDayUsd,
      maxDrawdownBps: c.maxDrawdownBps,
      revokeOnMask: revokeOnMask(c.revokeOn),
    },
  ])
}

export const constitutionHash = (c: Constitution): Hex => keccak256(encodeConstitution(c))

/**
 * The constitution an encoding carries (the inverse of encodeConstitution), checked by the constitution's
 * own rules: a ConstitutionError names the field. Throws viem's decoding error on bytes that are not the
 * tuple's encoding.
 */
export function decodeConstitution(encoded: Hex): Constitution {
  const [t] = decodeAbiParameters(CONSTITUTION_ABI, encoded)
  const revokeOn = POLICY_RULES.filter((_, i) => (t.revokeOnMask & (1 << i)) !== 0)
  const c = parseConstitution({
    v: t.v,
    baseAsset: t.baseAsset,
    assets: t.assets.map((a) => ({ address: a.asset, maxConcentrationBps: a.maxConcentrationBps })),
    maxTransactionUsd: t.maxTransactionUsd.toString(),
    maxSessionUsd: t.maxSessionUsd.toString(),
    maxDayUsd: t.maxDayUsd.toString(),
    maxDrawdownBps: t.maxDrawdownBps,
    revokeOn,
  })
  return c
}
