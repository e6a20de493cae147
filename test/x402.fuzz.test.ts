// Fuzzes the PAYMENT-SIGNATURE header through the whole payment pipeline on anvil (real facilitator,
// real TestUSDC): arbitrary strings, base64 of arbitrary JSON, and mutations of valid payments.
// Every answer must be a 4xx refusal with no credit; at the end nothing is settled or claimed and
// no USDC has moved.
import { encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload } from '@x402/core/types'
import fc from 'fast-check'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { InMemoryPaymentLedger } from './support/x402/memoryLedger.ts'
import { createX402Payments, type X402Payments } from '../core/x402/payments.ts'
import { answered, countingFacilitator, signPayment, startX402Chain, type AnsweredPayment, type X402Chain } from './x402.harness.ts'

let chain: X402Chain
let ledger: InMemoryPaymentLedger
let facilitator: ReturnType<typeof countingFacilitator>
let payments: X402Payments
/** Valid payments from payers with no USDC: any mutation, even of unsigned fields, cannot settle. */
let brokePayloads: PaymentPayload[]
/** Valid payments from funded payers: mutated only in fields that the signature or our checks bind. */
let fundedPayloads: PaymentPayload[]
let funded: PrivateKeyAccount[]
const balancesBefore = new Map<string, bigint>()

const seen = { inputs: 0, byCode: new Map<string, number>() }

beforeAll(async () => {
  chain = await startX402Chain()
  ledger = new InMemoryPaymentLedger()
  facilitator = countingFacilitator(chain.facilitator)
  payments = createX402Payments({
    config: { chainId: chain.anvil.chainId, asset: chain.usdc, payTo: chain.operator.account.address, pricing: chain.config.pricing },
    ledger,
    facilitator,
  })
  const req = payments.requirements('extend')
  const broke = await Promise.all(Array.from({ length: 4 }, () => chain.newPayer(0n)))
  funded = await Promise.all(Array.from({ length: 4 }, () => chain.newPayer(50_000_000n)))
  brokePayloads = await Promise.all(broke.map((p) => signPayment(p, req)))
  fundedPayloads = await Promise.all(funded.map((p) => signPayment(p, req)))
  for (const a of [...funded.map((p) => p.address), chain.operator.account.address]) balancesBefore.set(a, await chain.balanceOf(a))
})
afterAll(async () => chain?.stop())

async function submit(header: string): Promise<AnsweredPayment> {
  const outcome = answered(
    await payments.extend({ header, golemId: 'golem-1', golem: { id: 'golem-1', lifecycle: 'alive' } }),
    'extend',
    'http://127.0.0.1/api/v1/extend',
  )
  seen.inputs++
  const key = outcome.ok ? 'CREDITED' : outcome.code
  seen.byCode.set(key, (seen.byCode.get(key) ?? 0) + 1)
  expect(outcome.ok, `credited: ${header.slice(0, 120)}`).toBe(false)
  expect(outcome.status).toBeGreaterThanOrEqual(400)
  expect(outcome.status, `${outcome.ok ? '' : outcome.code} for ${header.slice(0, 120)}`).toBeLessThan(500)
  expect(outcome).not.toHaveProperty('credit')
  return outcome
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64')
const hexDigits = '0123456789abcdef'

/** Changes one hex digit to a different value (never a case-only change). */
const flipHex = (value: string) =>
  fc.nat().chain((i) =>
    fc.integer({ min: 1, max: 15 }).map((delta) => {
      const body = value.slice(2).toLowerCase()
      const at = i % body.length
      const digit = hexDigits[(hexDigits.indexOf(body[at]!) + delta) % 16]!
      return `0x${body.slice(0, at)}${digit}${body.slice(at + 1)}`
    }),
  )

/** A different decimal string for a uint field. */
const otherUint = (value: string) =>
  fc
    .oneof(
      fc.constant(BigInt(value) + 1n),
      fc.constant(BigInt(value) > 0n ? BigInt(value) - 1n : 2n),
      fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }),
      fc.constant(BigInt(value) * 10n),
    )
    .filter((v) => v.toString() !== value)
    .map((v) => v.toString())

type Path = readonly string[]
const signedPaths: Path[] = [
  ['payload', 'authorization', 'from'],
  ['payload', 'authorization', 'to'],
  ['payload', 'authorization', 'value'],
  ['payload', 'authorization', 'validAfter'],
  ['payload', 'authorization', 'validBefore'],
  ['payload', 'authorization', 'nonce'],
  ['payload', 'signature'],
  ['accepted', 'network'],
  ['accepted', 'asset'],
  ['accepted', 'payTo'],
  ['accepted', 'amount'],
  ['accepted', 'scheme'],
  ['x402Version'],
]
const anyPaths: Path[] = [
  ...signedPaths,
  ['accepted'],
  ['payload'],
  ['payload', 'authorization'],
  ['resource'],
  ['accepted', 'extra'],
  ['accepted', 'maxTimeoutSeconds'],
  ['extensions'],
]

function getAt(root: unknown, path: Path): unknown {
  return path.reduce<unknown>((node, k) => (node as Record<string, unknown> | undefined)?.[k], root)
}
function setAt(root: PaymentPayload, path: Path, value: unknown, remove = false): unknown {
  const copy = structuredClone(root) as unknown as Record<string, unknown>
  let node = copy
  for (const k of path.slice(0, -1)) node = node[k] as Record<string, unknown>
  if (remove) delete node[path.at(-1)!]
  else node[path.at(-1)!] = value
  return copy
}

/** A value that differs from the original in a way the signature or our checks notice. */
function mutateSigned(original: unknown): fc.Arbitrary<unknown> {
  if (typeof original === 'string' && /^0x[0-9a-fA-F]+$/.test(original)) return flipHex(original)
  if (typeof original === 'string' && /^[0-9]+$/.test(original)) return otherUint(original)
  if (original === 'exact') return fc.constantFrom('upto', 'EXACT', 'exact ', 'batch-settlement')
  if (typeof original === 'string')
    return fc.constantFrom('eip155:1', 'eip155:8453', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', 'eip155:031337')
  return fc.oneof(fc.integer(), fc.constant(1), fc.constant('2')).filter((v) => v !== original)
}

describe('PAYMENT-SIGNATURE fuzz through processPayment on anvil', () => {
  test('arbitrary strings (1,500)', async () => {
    const header = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.base64String({ maxLength: 400 }),
      fc.constantFrom('', ' ', '=', '====', 'null', 'e30=', 'W10='),
    )
    await fc.assert(
      fc.asyncProperty(header, async (h) => void (await submit(h))),
      { numRuns: 1500 },
    )
  })

  test('base64 of arbitrary JSON, including payment-shaped JSON with arbitrary leaves (1,500)', async () => {
    const hexUnit = fc.constantFrom(...'0123456789abcdefABCDEF')
    // Hex of the lengths that matter (address, nonce, signature) or any length, so some inputs pass the schema.
    const hex = fc
      .oneof(fc.constantFrom(40, 64, 130), fc.nat({ max: 140 }))
      .chain((n) => fc.string({ unit: hexUnit, minLength: n, maxLength: n }))
      .map((h) => `0x${h}`)
    const leaf = fc.oneof(fc.jsonValue({ maxDepth: 2 }), hex, fc.bigInt({ min: -1n, max: 2n ** 257n }).map(String))
    const shaped = fc.record({
      x402Version: fc.oneof(fc.constant(2), leaf),
      accepted: fc.oneof(
        fc.constant(structuredClone(payments.requirements('extend')) as unknown),
        fc.record({
          scheme: fc.oneof(fc.constant('exact'), leaf),
          network: fc.oneof(fc.constant(`eip155:${chain.anvil.chainId}`), leaf),
          asset: leaf,
          amount: leaf,
          payTo: leaf,
          maxTimeoutSeconds: leaf,
        }),
      ),
      payload: fc.record({
        signature: leaf,
        authorization: fc.record({ from: leaf, to: leaf, value: leaf, validAfter: leaf, validBefore: leaf, nonce: leaf }),
      }),
    })
    const json = fc.oneof(
      fc.jsonValue().map((v) => JSON.stringify(v) ?? 'null'),
      shaped.map((v) => JSON.stringify(v)),
    )
    await fc.assert(
      fc.asyncProperty(json, async (j) => void (await submit(b64(j)))),
      { numRuns: 1500 },
    )
  })

  test('mutated valid headers: bytes of the base64 text (1,000)', async () => {
    const mutation = fc.record({
      which: fc.nat(),
      at: fc.nat(),
      kind: fc.constantFrom('replace', 'delete', 'insert', 'truncate', 'swap'),
      text: fc.string({ minLength: 1, maxLength: 4 }),
    })
    await fc.assert(
      fc.asyncProperty(mutation, async ({ which, at, kind, text }) => {
        const h = encodePaymentSignatureHeader(brokePayloads[which % brokePayloads.length]!)
        const i = at % h.length
        const mutated =
          kind === 'replace'
            ? h.slice(0, i) + text + h.slice(i + text.length)
            : kind === 'delete'
              ? h.slice(0, i) + h.slice(i + text.length)
              : kind === 'insert'
                ? h.slice(0, i) + text + h.slice(i)
                : kind === 'truncate'
                  ? h.slice(0, i)
                  : h.slice(0, i) + h.slice(i + 1, i + 2) + h.slice(i, i + 1) + h.slice(i + 2)
        await submit(mutated)
      }),
      { numRuns: 1000 },
    )
  })

  test('mutated valid headers: any JSON field replaced or removed, unfunded payers (700)', async () => {
    const mutation = fc.record({
      which: fc.nat(),
      path: fc.constantFrom(...anyPaths),
      value: fc.jsonValue({ maxDepth: 2 }),
      remove: fc.boolean(),
    })
    await fc.assert(
      fc.asyncProperty(mutation, async ({ which, path, value, remove }) => {
        await submit(b64(JSON.stringify(setAt(brokePayloads[which % brokePayloads.length]!, path, value, remove))))
      }),
      { numRuns: 700 },
    )
  })

  test('mutated valid headers: one signed or checked field changed, funded payers (800)', async () => {
    const mutation = fc.record({ which: fc.nat(), path: fc.constantFrom(...signedPaths) }).chain(({ which, path }) => {
      const payload = fundedPayloads[which % fundedPayloads.length]!
      return mutateSigned(getAt(payload, path)).map((value) => setAt(payload, path, value))
    })
    await fc.assert(
      fc.asyncProperty(mutation, async (mutated) => void (await submit(b64(JSON.stringify(mutated))))),
      { numRuns: 800 },
    )
  })

  test('afterwards: at least 5,000 inputs, nothing settled, nothing claimed, no USDC moved', async () => {
    expect(seen.inputs).toBeGreaterThanOrEqual(5000)
    expect(seen.byCode.get('CREDITED')).toBeUndefined()
    expect(facilitator.calls.settle).toBe(0)
    expect(ledger.settled()).toEqual([])
    expect(ledger.entries()).toEqual([])
    for (const [address, before] of balancesBefore) expect(await chain.balanceOf(address as `0x${string}`)).toBe(before)
    // The untouched originals are still payable: the fuzz refused mutations, not the payers.
    const fine = await payments.extend({
      header: encodePaymentSignatureHeader(fundedPayloads[0]!),
      golemId: 'golem-1',
      golem: { id: 'golem-1', lifecycle: 'alive' },
    })
    expect(fine.ok).toBe(true)
    console.log(
      `x402 fuzz: ${seen.inputs} inputs, ${facilitator.calls.verify} reached the facilitator;`,
      Object.fromEntries([...seen.byCode].sort((a, b) => b[1] - a[1])),
    )
  })
})
