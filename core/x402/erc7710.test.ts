// ERC-7710 payments without a chain: the payload checks (DelegationManager, root delegator, the only
// redeemer), the ledger key, the header's ERC-7710 shape, and processPayment's ERC-7710 path with a
// scripted facilitator (refusals name the field and change nothing; the facilitator is asked to redeem
// the paid amount; a spent or short delegation is refused and the claim released).
import { ANY_BENEFICIARY, ROOT_AUTHORITY, type Delegation } from '@metamask/smart-accounts-kit'
import { encodeDelegations, hashDelegation } from '@metamask/smart-accounts-kit/utils'
import type { PaymentRequirements } from '@x402/core/types'
import fc from 'fast-check'
import { concatHex, decodeFunctionData, getAddress, type Address, type Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { InMemoryPaymentLedger } from '../../test/support/x402/memoryLedger.ts'
import { DelegationManagerAbi } from '../delegations/frameworkAbi.ts'
import { checkErc7710Payload, erc7710RedemptionCalldata, type Erc7710Terms } from './erc7710.ts'
import type { PaymentFacilitator } from './facilitator.ts'
import { parsePaymentHeader } from './header.ts'
import { processPayment, type PaymentOutcome } from './processPayment.ts'
import { requirementsFor, resolveX402Config } from './requirements.ts'

const OPERATOR: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const USDC: Address = '0x5FbDB2315678afecb367f032d93F642f64180aa3'
const SETTLEMENT: Address = '0x90F79bf6EB2c4f870365E785982E1f101E93b906'
const PAYER: Address = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
const STRANGER: Address = '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65'
const TERMS: Erc7710Terms = {
  delegationManager: '0xdb9B1e94B5b69Df7e401DDbedE43491141047dB3',
  redeemerEnforcer: '0xE144b0b2618071B4E56f746313528a669c7E65c5',
}
const config = resolveX402Config({
  chainId: 31337,
  asset: USDC,
  payTo: OPERATOR,
  pricing: { runtimeCostPerHour: 500_000n, deathReserve: 5_000_000n },
  erc7710: TERMS,
})

const delegation = (o: Partial<Delegation> = {}): Delegation => ({
  delegate: ANY_BENEFICIARY,
  delegator: PAYER,
  authority: ROOT_AUTHORITY,
  caveats: [{ enforcer: TERMS.redeemerEnforcer, terms: SETTLEMENT, args: '0x' }],
  salt: '0x01',
  signature: `0x${'22'.repeat(65)}`,
  ...o,
})
const payloadOf = (chain: Delegation[], o: { delegationManager?: Address; delegator?: Address } = {}) => ({
  delegationManager: o.delegationManager ?? TERMS.delegationManager,
  permissionContext: encodeDelegations(chain),
  delegator: o.delegator ?? PAYER,
})

describe('checkErc7710Payload', () => {
  it('accepts an open delegation whose RedeemerEnforcer names only the settlement account, or one delegated to it; the key is the leaf hash', () => {
    const open = delegation()
    expect(checkErc7710Payload(payloadOf([open]), TERMS, SETTLEMENT)).toMatchObject({ ok: true, key: hashDelegation(open) })
    const direct = delegation({ delegate: SETTLEMENT, caveats: [] })
    expect(checkErc7710Payload(payloadOf([direct]), TERMS, SETTLEMENT)).toMatchObject({ ok: true, key: hashDelegation(direct) })
  })

  it.each([
    ['another DelegationManager', payloadOf([delegation()], { delegationManager: STRANGER }), 'payload.delegationManager'],
    ['a context that does not decode', { ...payloadOf([delegation()]), permissionContext: '0x1234' as Hex }, 'payload.permissionContext'],
    ['an empty chain', payloadOf([]), 'payload.permissionContext'],
    ['a delegator that is not the root', payloadOf([delegation()], { delegator: STRANGER }), 'payload.delegator'],
    ['a leaf delegated to someone else', payloadOf([delegation({ delegate: STRANGER, caveats: [] })]), 'payload.permissionContext'],
    ['an open leaf with no redeemer caveat', payloadOf([delegation({ caveats: [] })]), 'payload.permissionContext'],
    [
      'an open leaf whose redeemers include another account',
      payloadOf([delegation({ caveats: [{ enforcer: TERMS.redeemerEnforcer, terms: concatHex([SETTLEMENT, STRANGER]), args: '0x' }] })]),
      'payload.permissionContext',
    ],
    [
      'an open leaf naming the settlement account through another enforcer',
      payloadOf([delegation({ caveats: [{ enforcer: STRANGER, terms: SETTLEMENT, args: '0x' }] })]),
      'payload.permissionContext',
    ],
  ])('refuses %s, naming %s', (_name, payload, field) => {
    expect(checkErc7710Payload(payload, TERMS, SETTLEMENT)).toMatchObject({ ok: false, field, rule: expect.any(String) })
  })

  it('never throws on arbitrary permission contexts', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 600 }), (bytes) => {
        const hex = `0x${Buffer.from(bytes).toString('hex')}` as Hex
        const result = checkErc7710Payload({ ...payloadOf([delegation()]), permissionContext: hex }, TERMS, SETTLEMENT)
        expect(result.ok).toBe(false)
      }),
      { numRuns: 500 },
    )
  })
})

it('the redemption is redeemDelegations with one single-call execution: the asset, no value, transfer(payTo, amount)', () => {
  const permissionContext = encodeDelegations([delegation()])
  const data = erc7710RedemptionCalldata({ permissionContext, asset: USDC, payTo: OPERATOR, amount: 5_000_000n })
  const { functionName, args } = decodeFunctionData({ abi: DelegationManagerAbi, data })
  expect(functionName).toBe('redeemDelegations')
  const [contexts, modes, executions] = args as [Hex[], Hex[], Hex[]]
  expect(contexts).toEqual([permissionContext])
  expect(modes).toEqual([`0x${'00'.repeat(32)}`])
  // Single-call execution: target (20 bytes), value (32 bytes), then the call: transfer(address,uint256).
  const execution = executions[0]!
  expect(getAddress(`0x${execution.slice(2, 42)}`)).toBe(USDC)
  expect(BigInt(`0x${execution.slice(42, 106)}`)).toBe(0n)
  expect(execution.slice(106, 114)).toBe('a9059cbb')
  expect(getAddress(`0x${execution.slice(138, 178)}`)).toBe(OPERATOR)
  expect(BigInt(`0x${execution.slice(178)}`)).toBe(5_000_000n)
})

/** An ERC-7710 PAYMENT-SIGNATURE for `accepted` (the feed requirement marked erc7710 unless overridden). */
function header(o: { accepted?: Partial<PaymentRequirements>; payload?: Record<string, unknown> } = {}): string {
  const req = requirementsFor(config, 'feed')
  const accepted = { ...req, extra: { assetTransferMethod: 'erc7710', facilitatorAddresses: [SETTLEMENT] }, ...o.accepted }
  const payload = o.payload ?? payloadOf([delegation()])
  return Buffer.from(JSON.stringify({ x402Version: 2, accepted, payload })).toString('base64')
}

describe('the header', () => {
  it('parses an ERC-7710 payload when the accepted requirement says erc7710', () => {
    expect(parsePaymentHeader(header())).toMatchObject({ ok: true, payload: { payload: { delegator: PAYER } } })
  })

  it.each(['delegationManager', 'permissionContext', 'delegator'])('names payload.%s when it is missing', (field) => {
    const payload: Record<string, unknown> = payloadOf([delegation()])
    delete payload[field]
    expect(parsePaymentHeader(header({ payload }))).toMatchObject({
      ok: false,
      code: 'PAYMENT_HEADER_INVALID',
      message: `PAYMENT-SIGNATURE: payload.${field} is required`,
    })
  })
})

describe('processPayment by ERC-7710', () => {
  type Call = { requirements: PaymentRequirements; payload: Record<string, unknown> }
  function facilitator(o: { verifyFails?: string; found?: boolean } = {}) {
    const calls: { verify: Call[]; settle: Call[]; find: number } = { verify: [], settle: [], find: 0 }
    const f: PaymentFacilitator = {
      settlementAccount: SETTLEMENT,
      async verify(payload, requirements) {
        calls.verify.push({ requirements, payload: payload.payload })
        return o.verifyFails === undefined
          ? { isValid: true, payer: PAYER }
          : { isValid: false, invalidReason: 'invalid_erc7710_redemption', invalidMessage: o.verifyFails }
      },
      async settle(payload, requirements) {
        calls.settle.push({ requirements, payload: payload.payload })
        return { success: true, transaction: `0x${'cd'.repeat(32)}`, network: config.network, payer: PAYER }
      },
      async findSettlement() {
        calls.find++
        return null
      },
    }
    return { f, calls }
  }
  const pay = (h: string, ledger: InMemoryPaymentLedger, f: PaymentFacilitator, erc7710: Erc7710Terms | null = TERMS) =>
    processPayment({
      header: h,
      golemId: 'g1',
      golem: { id: 'g1', lifecycle: 'alive' },
      kind: 'feed',
      requirements: requirementsFor(config, 'feed'),
      pricing: config.pricing,
      ledger,
      ledgerId: 'unit',
      facilitator: f,
      erc7710,
      now: 1_000_000,
    })
  const refused = (o: PaymentOutcome) => {
    if (o.ok) throw new Error('credited')
    return o
  }

  it('credits the paid amount once, keyed by (delegator, leaf hash); the facilitator redeems exactly that amount', async () => {
    const ledger = new InMemoryPaymentLedger()
    const { f, calls } = facilitator()
    const outcome = await pay(header({ accepted: { amount: '6000000' } }), ledger, f)
    expect(outcome).toMatchObject({
      ok: true,
      payer: PAYER,
      nonce: hashDelegation(delegation()),
      credit: { kind: 'feed', amount: 6_000_000n },
    })
    expect(calls.verify[0]!.requirements).toMatchObject({ amount: '6000000', payTo: OPERATOR, extra: { assetTransferMethod: 'erc7710' } })
    expect(calls.settle).toHaveLength(1)
    const replay = refused(await pay(header({ accepted: { amount: '6000000' } }), ledger, f))
    expect(replay).toMatchObject({ code: 'PAYMENT_REPLAYED', message: 'payload.permissionContext: this payment was already credited' })
    // The same delegation for another amount: bound to the first.
    const other = refused(await pay(header({ accepted: { amount: '7000000' } }), ledger, f))
    expect(other).toMatchObject({ code: 'PAYMENT_BOUND_ELSEWHERE', message: expect.stringMatching(/^accepted\.amount: /) })
    expect(calls.settle).toHaveLength(1)
  })

  it.each([
    ['not accepted here', { erc7710: null }, 'PAYMENT_SCHEME_UNSUPPORTED', /^accepted\.extra\.assetTransferMethod: /],
    ['underpaid', { accepted: { amount: '4999999' } }, 'PAYMENT_UNDERPAID', /^accepted\.amount: must be at least 5000000/],
    ['paid elsewhere', { accepted: { payTo: STRANGER } }, 'PAYMENT_WRONG_PAY_TO', /^accepted\.payTo: /],
    [
      'another DelegationManager',
      { payload: payloadOf([delegation()], { delegationManager: STRANGER }) },
      'PAYMENT_INVALID',
      /^payload\.delegationManager: /,
    ],
    ['redeemable by others', { payload: payloadOf([delegation({ caveats: [] })]) }, 'PAYMENT_INVALID', /^payload\.permissionContext: /],
  ] as const)('refuses a payment %s before the ledger or the chain', async (_name, o, code, message) => {
    const ledger = new InMemoryPaymentLedger()
    const { f, calls } = facilitator()
    const h = header({
      ...('accepted' in o ? { accepted: o.accepted as Partial<PaymentRequirements> } : {}),
      ...('payload' in o ? { payload: o.payload } : {}),
    })
    const outcome = refused(await pay(h, ledger, f, 'erc7710' in o ? o.erc7710 : TERMS))
    expect(outcome).toMatchObject({ code, message: expect.stringMatching(message) })
    expect(calls.verify).toHaveLength(0)
    // Nothing claimed: a valid payment of the same delegation still goes through.
    expect(await pay(header(), ledger, f)).toMatchObject({ ok: true })
  })

  it('a short delegation is refused as underpaid naming payload.permissionContext; the claim is released and the chain searched', async () => {
    const ledger = new InMemoryPaymentLedger()
    const short = facilitator({ verifyFails: 'ERC20TransferAmountEnforcer:allowance-exceeded' })
    const outcome = refused(await pay(header(), ledger, short.f))
    expect(outcome).toMatchObject({
      code: 'PAYMENT_UNDERPAID',
      message: expect.stringMatching(/^payload\.permissionContext: must redeem for a transfer of exactly 5000000 .*allowance-exceeded/),
    })
    expect(short.calls.settle).toHaveLength(0)
    expect(short.calls.find).toBe(1)
    expect(await pay(header(), ledger, facilitator().f)).toMatchObject({ ok: true })
  })
})
