// A Golem's seat on a council: the GolemSigner co-signs a proposal only when it checks out, and refuses
// anything else by the field and the rule, signing nothing.
import { ROOT_AUTHORITY, type Delegation } from '@metamask/smart-accounts-kit'
import { encodeFunctionData, erc20Abi, getAddress, recoverTypedDataAddress, type Address, type Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import {
  buildCouncilProposal,
  councilProposalTypedData,
  serializeCouncilProposal,
  type CouncilAction,
  type CouncilProposal,
} from '../council/index.ts'
import { SignerPolicyError } from './errors.ts'
import { GolemSigner, type OperationRecorder } from './golemSigner.ts'
import { MemoryKey } from './memoryKey.ts'
import { CHAIN_ID, DELEGATION_MANAGER, policy } from '../../test/support/custody/fixtures.ts'

const COUNCIL = getAddress('0x000000000000000000000000000000000000C0c1')
const OTHER_COUNCIL = getAddress('0x000000000000000000000000000000000000C0c2')
const TREASURY = getAddress('0x0000000000000000000000000000000000007EA5')
const USDC = getAddress('0x0000000000000000000000000000000000005DC0')
const ENTRY_POINT = getAddress('0x0000000071727De22E5E9d8BAf0edAc6f37da032')
const NOW = 1_750_000_000n

const delegation = (delegate: Address = COUNCIL): Delegation => ({
  delegate,
  delegator: getAddress('0x00000000000000000000000000000000000000A1'),
  authority: ROOT_AUTHORITY,
  caveats: [],
  salt: '0x01',
  signature: `0x${'11'.repeat(65)}`,
})
const transfer = (amount: bigint, to: Address = TREASURY): CouncilAction => ({
  target: USDC,
  value: 0n,
  callData: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }),
})
const build = (over: { council?: Address; chainId?: number; action?: CouncilAction } = {}): CouncilProposal =>
  buildCouncilProposal({
    config: {
      council: over.council ?? COUNCIL,
      chainId: over.chainId ?? CHAIN_ID,
      entryPoint: ENTRY_POINT,
      delegationManager: DELEGATION_MANAGER,
    },
    delegation: delegation(over.council ?? COUNCIL),
    action: over.action ?? transfer(500n),
    id: `0x${'ab'.repeat(16)}`,
    deadline: NOW + 3_600n,
    now: NOW,
    gas: { callGasLimit: 1n, verificationGasLimit: 2n, preVerificationGas: 3n, maxFeePerGas: 4n, maxPriorityFeePerGas: 5n },
  })

function seat(councils: Address[] | undefined = [COUNCIL], now = NOW) {
  const operations: string[] = []
  const recorder: OperationRecorder = { assertUsable: () => {}, recordOperation: (op) => operations.push(op.purpose) }
  const golem = new GolemSigner({ signer: MemoryKey.generate().toRawSigner(), policy: policy({ councils }), recorder, now: () => now })
  return { golem, operations }
}

async function refusal(p: Promise<unknown>): Promise<SignerPolicyError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(SignerPolicyError)
  return error as SignerPolicyError
}

describe('GolemSigner: a council proposal', () => {
  it('co-signs a proposal that checks out: the MultiSigDeleGator typed data, recovering to the Golem’s key', async () => {
    const { golem, operations } = seat()
    const proposal = build()
    const signature = await golem.signCouncilProposal({ proposal: serializeCouncilProposal(proposal), action: transfer(500n) })
    expect(await recoverTypedDataAddress({ ...councilProposalTypedData(proposal), signature })).toBe(golem.address)
    expect(operations).toEqual(['council-proposal'])
  })

  const cases: [string, () => { text: string; action?: CouncilAction; councils?: Address[]; now?: bigint }, string, RegExp][] = [
    [
      'a Golem on no council',
      () => ({ text: serializeCouncilProposal(build()), councils: [] }),
      'council-configured',
      /sits on no council/,
    ],
    [
      'a council the Golem does not sit on',
      () => ({ text: serializeCouncilProposal(build({ council: OTHER_COUNCIL })) }),
      'council-member',
      /proposal\.council: .* is not a council this Golem sits on/,
    ],
    ['text that is not a proposal', () => ({ text: '{not json' }), 'council-proposal', /proposal: must be a council proposal/],
    [
      'a user operation that is not its stated action',
      () => {
        const p = build()
        return {
          text: serializeCouncilProposal({
            ...p,
            userOperation: { ...p.userOperation, callData: build({ action: transfer(9n) }).userOperation.callData },
          }),
        }
      },
      'council-proposal',
      /proposal\.userOperation\.callData must redeem the council delegation for exactly the proposed action/,
    ],
    [
      'a stated action rewritten together with its user operation',
      () => ({ text: serializeCouncilProposal(build({ action: transfer(900_000n) })) }),
      'council-action',
      /action\.callData: the proposal's 0x.* is not the stated 0x/,
    ],
    [
      'another chain',
      () => ({ text: serializeCouncilProposal(build({ chainId: 1 })) }),
      'council-chain',
      /proposal\.chainId: must be this Golem's chain 31337, got 1/,
    ],
    [
      'a delegation to someone other than the council',
      () => ({ text: serializeCouncilProposal({ ...build(), delegation: delegation(OTHER_COUNCIL) }) }),
      'council-proposal',
      /proposal\.(userOperation\.callData|delegation\.delegate)/,
    ],
    [
      'a proposal past its deadline',
      () => ({ text: serializeCouncilProposal(build()), now: NOW + 3_601n }),
      'council-deadline',
      /proposal\.deadline: .* has passed/,
    ],
  ]

  for (const [name, make, rule, message] of cases) {
    it(`refuses ${name}, signing nothing`, async () => {
      const { text, action, councils, now } = make()
      const { golem, operations } = seat(councils, now)
      const error = await refusal(golem.signCouncilProposal({ proposal: text, action: action ?? transfer(500n) }))
      expect(error.rule).toBe(rule)
      expect(error.message).toMatch(message)
      expect(operations).toEqual([])
    })
  }

  it('keeps the council typed data off its generic typed-data path (the proposal must be checked first)', async () => {
    const { golem, operations } = seat()
    await expect(golem.account.signTypedData(councilProposalTypedData(build()) as never)).rejects.toThrow()
    expect(operations).toEqual([])
  })

  it('refuses a policy whose councils are not addresses', () => {
    expect(() => seat(['0x12' as Hex as Address])).toThrow('policy.councils')
  })
})
