// The constitution's hash: keccak256 of its ABI encoding, with the assets sorted by address and the
// revocation rules as a bit mask in POLICY_RULES order, so two constitutions that say the same thing
// hash the same however their JSON was written. The hash is what the PolicyCage contract stores.
import { encodeAbiParameters, keccak256, type Hex } from 'viem'
import { POLICY_RULES, type Constitution, type PolicyRule } from './constitution.ts'

const CONSTITUTION_ABI = [
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
