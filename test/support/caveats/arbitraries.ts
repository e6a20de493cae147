import fc from 'fast-check'
import { bytesToHex, getAddress, zeroAddress, type Address, type Hex } from 'viem'
import {
  RUNWAY_PHASE_MASKS,
  type BardoCaveat,
  type BardoCaveatType,
  type GolemPhaseCaveat,
  type LifeWindow,
  type PhaseMasks,
  type TokenFeed,
} from '../../../core/caveats/types.ts'
import { POLICY_RULES, type Constitution } from '../../../core/policy/constitution.ts'

/** fast-check generators for valid values of every Bardo caveat (test helpers only). */
export const address = (): fc.Arbitrary<Address> => fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => getAddress(bytesToHex(b)))
export const selector = (): fc.Arbitrary<Hex> => fc.uint8Array({ minLength: 4, maxLength: 4 }).map((b) => bytesToHex(b))
const uint = (bits: number) => fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n })
const int8 = () => fc.integer({ min: -128, max: 127 })

export const tokenFeeds = (): fc.Arbitrary<TokenFeed[]> =>
  fc
    .uniqueArray(fc.oneof({ weight: 1, arbitrary: fc.constant(zeroAddress as Address) }, { weight: 4, arbitrary: address() }), {
      maxLength: 4,
      selector: (a) => a.toLowerCase(),
    })
    .chain((tokens) =>
      fc.tuple(
        ...tokens.map((token) =>
          fc
            .record({
              decimals: token === zeroAddress ? fc.constant(18) : fc.integer({ min: 0, max: 255 }),
              feed: address().filter((a) => a !== zeroAddress),
            })
            .map((r) => ({ token, ...r })),
        ),
      ),
    )
    .map((feeds) => [...feeds])

const masks = (): fc.Arbitrary<PhaseMasks> =>
  fc.tuple(...Array.from({ length: 5 }, () => fc.integer({ min: 0, max: 0x1f }))) as unknown as fc.Arbitrary<PhaseMasks>

/** GolemPhase's window: uint64 bounds, start <= end (a one-second window included). */
export const lifeWindow = (): fc.Arbitrary<LifeWindow> =>
  fc.tuple(uint(64), uint(64)).map(([a, b]) => ({ startTime: a < b ? a : b, endTime: a < b ? b : a }))

const tableGate = (): fc.Arbitrary<GolemPhaseCaveat> =>
  fc
    .record({ golem: address(), phaseMasks: fc.option(masks(), { nil: undefined }), window: fc.option(lifeWindow(), { nil: undefined }) })
    .map(({ golem, phaseMasks, window }): GolemPhaseCaveat => {
      const gate = { type: 'golemPhase' as const, golem, ...(phaseMasks === undefined ? {} : { phaseMasks }) }
      return window === undefined ? gate : { ...gate, ...window }
    })

export const bardoCaveatOf: { [T in BardoCaveatType]: () => fc.Arbitrary<Extract<BardoCaveat, { type: T }>> } = {
  golemPhase: () =>
    fc.oneof(
      { weight: 3, arbitrary: tableGate() },
      // Runway terms, as decoded: their fixed masks, a uint48 window.
      {
        weight: 1,
        arbitrary: fc.record({ golem: address(), a: uint(48), b: uint(48) }).map(
          ({ golem, a, b }): GolemPhaseCaveat => ({
            type: 'golemPhase',
            golem,
            phaseMasks: RUNWAY_PHASE_MASKS,
            startTime: a < b ? a : b,
            endTime: a < b ? b : a,
            runway: true,
          }),
        ),
      },
    ),
  mortalityTimeWindow: () =>
    fc
      .tuple(uint(256), uint(256))
      .filter(([a, b]) => a !== b)
      .map(([a, b]) => ({ type: 'mortalityTimeWindow', startTime: a < b ? a : b, endTime: a < b ? b : a })),
  dreamMode: () => address().map((golem) => ({ type: 'dreamMode', golem })),
  emotionalState: () =>
    fc
      .record({
        golem: address(),
        minPleasure: int8(),
        maxArousal: int8(),
        minDominance: int8(),
        restrictedSelectors: fc.array(selector(), { maxLength: 5 }),
      })
      .map((r) => ({ type: 'emotionalState', ...r })),
  vaultNav: () => fc.record({ vault: address(), maxNavBps: fc.integer({ min: 1, max: 10_000 }) }).map((r) => ({ type: 'vaultNav', ...r })),
  dailySpendLimit: () =>
    fc
      .record({ dailyLimitUsd: uint(256), maxPriceAge: fc.integer({ min: 0, max: 2 ** 32 - 1 }), feeds: tokenFeeds() })
      .map((r) => ({ type: 'dailySpendLimit', ...r })),
  replicantBudget: () =>
    fc
      .record({
        maxBudgetUsd: uint(256),
        maxLifespanSeconds: uint(64),
        maxPriceAge: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        feeds: tokenFeeds(),
      })
      .map((r) => ({ type: 'replicantBudget', ...r })),
  maxSlippage: () =>
    fc
      .record({
        maxSlippageBps: fc.integer({ min: 0, max: 10_000 }),
        maxPriceAge: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        feeds: tokenFeeds(),
      })
      .map((r) => ({ type: 'maxSlippage', ...r })),
  knowledgeRoyalty: () =>
    fc
      .record({ token: address(), author: address(), royaltyBps: fc.integer({ min: 0, max: 10_000 }) })
      .map((r) => ({ type: 'knowledgeRoyalty', ...r })),
  policyCage: () =>
    fc
      .record({
        policyCage: address().filter((a) => a !== zeroAddress),
        golem: address().filter((a) => a !== zeroAddress),
        maxPriceAge: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        constitution: constitution(),
        feeds: tokenFeeds(),
      })
      .map((r) => ({ type: 'policyCage', ...r })),
}

/** A valid constitution as decoding returns it: assets sorted by address, revokeOn in POLICY_RULES order. */
export const constitution = (): fc.Arbitrary<Constitution> =>
  fc
    .record({
      baseAsset: address().filter((a) => a !== zeroAddress),
      assets: fc.uniqueArray(
        fc.record({ address: address().filter((a) => a !== zeroAddress), maxConcentrationBps: fc.integer({ min: 0, max: 10_000 }) }),
        { maxLength: 4, selector: (a) => a.address.toLowerCase() },
      ),
      usd: fc.tuple(uint(90), uint(90), uint(90)),
      maxDrawdownBps: fc.integer({ min: 0, max: 10_000 }),
      revoke: fc.subarray([...POLICY_RULES]),
    })
    .filter((r) => !r.assets.some((a) => a.address.toLowerCase() === r.baseAsset.toLowerCase()))
    .map(({ baseAsset, assets, usd: [a, b, c], maxDrawdownBps, revoke }) => {
      const tx = [a, b, c].reduce((x, y) => (x < y ? x : y))
      return {
        v: 1 as const,
        baseAsset,
        assets: [...assets].sort((x, y) => (BigInt(x.address) < BigInt(y.address) ? -1 : 1)),
        maxTransactionUsd: tx,
        maxSessionUsd: b,
        maxDayUsd: c,
        maxDrawdownBps,
        revokeOn: revoke,
      }
    })

export const anyBardoCaveat = (): fc.Arbitrary<BardoCaveat> =>
  fc.oneof(...Object.values(bardoCaveatOf).map((f) => f() as fc.Arbitrary<BardoCaveat>))
