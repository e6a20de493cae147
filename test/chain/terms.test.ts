// The enforcers' own getTermsInfo, on a devnet, against core/caveats: GolemPhase (with and without its
// life window) and MortalityTimeWindow read every encoded caveat back as exactly the encoded values, and
// the chain and decodeBardoTerms agree on which mutated terms are valid. Any disagreement is a caveat
// Bardo would sign that the chain reads differently, or refuses.
import fc from 'fast-check'
import { BaseError, bytesToHex, concatHex, ContractFunctionRevertedError, hexToBytes, type Address, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as artifacts from '../../contracts/artifacts/index.ts'
import { decodeBardoTerms, effectiveMasks, encodeBardoTerms, type BardoCaveatOf } from '../../core/caveats/index.ts'
import { bardoCaveatOf } from '../support/caveats/arbitraries.ts'
import { startDevnet, type Devnet } from '../../local/devnet.ts'

const NO_END = (1n << 64n) - 1n

let devnet: Devnet
beforeAll(async () => {
  devnet = await startDevnet()
})
afterAll(async () => devnet?.stop())

/** The enforcer's answer, or undefined when getTermsInfo reverts (any other failure is thrown). */
async function onChain<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read()
  } catch (error) {
    if (error instanceof BaseError && error.walk((e) => e instanceof ContractFunctionRevertedError)) return undefined
    throw error
  }
}

const golemPhaseInfo = (terms: Hex) =>
  onChain(() =>
    devnet.publicClient.readContract({
      address: devnet.deployment.enforcers.golemPhase,
      abi: artifacts.GolemPhaseEnforcerAbi,
      functionName: 'getTermsInfo',
      args: [terms],
    }),
  )
const mortalityInfo = (terms: Hex) =>
  onChain(() =>
    devnet.publicClient.readContract({
      address: devnet.deployment.enforcers.mortalityTimeWindow,
      abi: artifacts.MortalityTimeWindowEnforcerAbi,
      functionName: 'getTermsInfo',
      args: [terms],
    }),
  )

function offChain<T extends 'golemPhase' | 'mortalityTimeWindow'>(type: T, terms: Hex): BardoCaveatOf<T> | undefined {
  try {
    return decodeBardoTerms(type, terms)
  } catch {
    return undefined
  }
}

/** What getTermsInfo must return for a decoded golemPhase: the effective masks, and 0 / NO_END without a window. */
const expectedGolemPhase = (c: BardoCaveatOf<'golemPhase'>): readonly [Address, Hex, bigint, bigint] => [
  c.golem,
  bytesToHex(Uint8Array.from(effectiveMasks(c.phaseMasks))),
  c.startTime ?? 0n,
  c.endTime ?? NO_END,
]

/** Truncated, extended by random bytes, or with one byte changed. */
const mutated = (terms: Hex) =>
  fc.oneof(
    fc.nat().map((n) => bytesToHex(hexToBytes(terms).subarray(0, n % ((terms.length - 2) / 2)))),
    fc.uint8Array({ minLength: 1, maxLength: 24 }).map((extra) => concatHex([terms, bytesToHex(extra)])),
    fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })).map(([at, xor]) => {
      const bytes = hexToBytes(terms)
      const i = at % bytes.length
      bytes[i] = bytes[i]! ^ xor
      return bytesToHex(bytes)
    }),
  )

describe('GolemPhaseEnforcer.getTermsInfo agrees with core/caveats', () => {
  it('reads every encoded golemPhase (20, 25, 32, 36 and 41 bytes) back as exactly the encoded values', async () => {
    const lengths = new Set<number>()
    await fc.assert(
      fc.asyncProperty(bardoCaveatOf.golemPhase(), async (c) => {
        const terms = encodeBardoTerms(c)
        lengths.add((terms.length - 2) / 2)
        expect(await golemPhaseInfo(terms)).toEqual(expectedGolemPhase(c))
      }),
      { numRuns: 300 },
    )
    expect([...lengths].sort()).toEqual([20, 25, 32, 36, 41])
  })

  it('refuses exactly the mutated terms decodeBardoTerms refuses, and reads the others the same', async () => {
    let valid = 0
    let invalid = 0
    await fc.assert(
      fc.asyncProperty(
        bardoCaveatOf.golemPhase().chain((c) => mutated(encodeBardoTerms(c))),
        async (terms) => {
          const chain = await golemPhaseInfo(terms)
          const decoded = offChain('golemPhase', terms)
          expect(chain === undefined, terms).toBe(decoded === undefined)
          if (decoded === undefined) invalid++
          else {
            valid++
            expect(chain).toEqual(expectedGolemPhase(decoded))
          }
        },
      ),
      { numRuns: 500 },
    )
    // Both sides of the comparison were exercised.
    expect(valid).toBeGreaterThan(20)
    expect(invalid).toBeGreaterThan(20)
  })

  it('accepts a one-second window and refuses an inverted one, as the decoder does', async () => {
    const golem = '0x1111111111111111111111111111111111111111'
    const oneSecond = encodeBardoTerms({ type: 'golemPhase', golem, startTime: 7n, endTime: 7n })
    expect(await golemPhaseInfo(oneSecond)).toEqual([golem, '0x1f17161610', 7n, 7n])
    const inverted = `${golem}${'0000000000000008'}${'0000000000000007'}` as Hex
    expect(await golemPhaseInfo(inverted)).toBeUndefined()
    expect(offChain('golemPhase', inverted)).toBeUndefined()
  })
})

describe('MortalityTimeWindowEnforcer.getTermsInfo agrees with core/caveats', () => {
  it('reads every encoded window back, and refuses exactly the mutated terms the decoder refuses', async () => {
    await fc.assert(
      fc.asyncProperty(bardoCaveatOf.mortalityTimeWindow(), async (c) => {
        expect(await mortalityInfo(encodeBardoTerms(c))).toEqual([c.startTime, c.endTime])
      }),
      { numRuns: 100 },
    )
    await fc.assert(
      fc.asyncProperty(
        bardoCaveatOf.mortalityTimeWindow().chain((c) => mutated(encodeBardoTerms(c))),
        async (terms) => {
          const chain = await mortalityInfo(terms)
          const decoded = offChain('mortalityTimeWindow', terms)
          expect(chain === undefined, terms).toBe(decoded === undefined)
          if (decoded !== undefined) expect(chain).toEqual([decoded.startTime, decoded.endTime])
        },
      ),
      { numRuns: 200 },
    )
  })
})
