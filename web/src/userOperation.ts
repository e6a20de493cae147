// The owner's user operation as the API drafts it (JSON: integers as decimal strings) and as the
// EntryPoint takes it once the owner has signed. No browser API here: the tests read drafts with it too.
import type { UserOperation } from 'viem/account-abstraction'

/** An owner's user operation as a draft carries it: integers as decimal strings. */
export type UserOperationDraft = {
  userOperation: Record<string, string>
  entryPoint: `0x${string}`
}

const USER_OPERATION_INTEGERS = [
  'nonce',
  'callGasLimit',
  'verificationGasLimit',
  'preVerificationGas',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
] as const

/** The draft's user operation with the owner's signature, its integers read back from their decimal strings. */
export function signedUserOperation(draft: UserOperationDraft, signature: `0x${string}`): UserOperation<'0.7'> {
  const o = draft.userOperation
  return {
    sender: o.sender as `0x${string}`,
    callData: o.callData as `0x${string}`,
    signature,
    ...Object.fromEntries(USER_OPERATION_INTEGERS.map((k) => [k, BigInt(o[k] ?? '0')])),
  } as UserOperation<'0.7'>
}
