import type { Abi } from 'viem'
import { describe, expect, it } from 'vitest'
import { DreamOracleAbi, INonfungiblePositionManagerViewsAbi, PolicyCageAbi, VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import { decodingParameter } from './chainErrorsSource.ts'
import { DreamOracleTickAbi, PolicyCageTickAbi, VitalityOracleTickAbi } from './oracleAbi.ts'
import { PositionManagerTickAbi } from './positionManagerAbi.ts'

type Item = Abi[number] & { name?: string; inputs?: readonly unknown[]; outputs?: readonly unknown[] }

/** An artifact entry as the tick's ABI keeps it: without internalType, at any depth. */
function withoutInternalType(item: Item): Item {
  const out = { ...item } as Item & Record<string, unknown>
  for (const key of ['inputs', 'outputs'] as const)
    if (item[key]) out[key] = (item[key] as Parameters<typeof decodingParameter>[0][]).map(decodingParameter)
  return out
}

describe('the oracle and position manager entries a tick uses, against the generated artifacts', () => {
  it.each([
    ['VitalityOracle', VitalityOracleTickAbi, VitalityOracleAbi],
    ['DreamOracle', DreamOracleTickAbi, DreamOracleAbi],
    ['PolicyCage', PolicyCageTickAbi, PolicyCageAbi],
    ['INonfungiblePositionManagerViews', PositionManagerTickAbi, INonfungiblePositionManagerViewsAbi],
  ] as const)('%s: every entry is the artifact entry of that name, which has no overload', (_, ours, artifact) => {
    for (const entry of ours as readonly Item[]) {
      const named = (artifact as readonly Item[]).filter((i) => i.type === entry.type && i.name === entry.name)
      expect(named).toHaveLength(1)
      expect(entry).toEqual(withoutInternalType(named[0]!))
    }
  })
})
