// Verifies a signed CladeChallenge and issues nothing: the caller decides what a
// success buys (a session token at the edge).
import { getAddress, isAddressEqual, recoverTypedDataAddress, type Address, type Hex } from 'viem'
import { cladeChallengeTypedData, isIssuedCladeChallenge, type CladeChallenge } from './challenge.ts'
import { CladeAuthError } from './errors.ts'
import type { NonceStore } from './nonceStore.ts'
import type { OperatorRegistry } from './operators.ts'
import type { CladeSecret } from './secret.ts'

export type VerifyCladeChallengeParameters = {
  challenge: CladeChallenge
  signature: Hex
  secret: CladeSecret
  chainId: number
  nowMs: number
  operators: OperatorRegistry
  nonces: NonceStore
}

export type VerifiedCladeCaller = { caller: Address; target: Address; operator: Address }

/**
 * Checks, cheapest and storeless first, so that nothing an anonymous caller sends can burn a nonce:
 * 1. the challenge is one this server issued, unchanged (nonce MAC);
 * 2. the signature recovers to `caller` under the Bardo Clade domain of this chain (a wrong domain,
 *    a wrong chain or a forged signature all recover some other address);
 * 3. it has not expired;
 * 4. caller and target are registered under the same operator;
 * 5. the nonce was not used before (the one store write, last).
 */
export async function verifyCladeChallenge(p: VerifyCladeChallengeParameters): Promise<VerifiedCladeCaller> {
  const { challenge } = p
  if (!isIssuedCladeChallenge(p.secret, challenge, p.chainId)) {
    throw new CladeAuthError(
      'CLADE_CHALLENGE_NOT_ISSUED',
      'X-Clade-Challenge: was not issued by this server or was altered; request a new one from GET /clade/v1/challenge',
    )
  }
  let recovered: Address
  try {
    recovered = await recoverTypedDataAddress({ ...cladeChallengeTypedData(challenge, p.chainId), signature: p.signature })
  } catch {
    throw new CladeAuthError('CLADE_BAD_SIGNATURE', 'CladeChallenge signature: is not a valid secp256k1 signature')
  }
  if (!isAddressEqual(recovered, challenge.caller)) {
    throw new CladeAuthError(
      'CLADE_BAD_SIGNATURE',
      `CladeChallenge signature: must be by caller ${challenge.caller} over the Bardo Clade domain of chain ${p.chainId}`,
      { caller: challenge.caller, chainId: p.chainId },
    )
  }
  const now = Math.floor(p.nowMs / 1000)
  if (now >= challenge.expiresAt) {
    throw new CladeAuthError('CLADE_CHALLENGE_EXPIRED', `X-Clade-Challenge: expired at ${challenge.expiresAt}, now ${now}`, {
      expiresAt: challenge.expiresAt,
      now,
    })
  }
  const [callerOp, targetOp] = await Promise.all([p.operators.operatorOf(challenge.caller), p.operators.operatorOf(challenge.target)])
  if (callerOp === undefined) {
    throw new CladeAuthError('CLADE_UNKNOWN_AGENT', `caller: ${challenge.caller} has no operator in the registry`, {
      caller: challenge.caller,
    })
  }
  if (targetOp === undefined) {
    throw new CladeAuthError('CLADE_UNKNOWN_AGENT', `target: ${challenge.target} has no operator in the registry`, {
      target: challenge.target,
    })
  }
  if (!isAddressEqual(callerOp, targetOp)) {
    throw new CladeAuthError('CLADE_OPERATOR_MISMATCH', `caller: operator ${callerOp} must equal the target's operator ${targetOp}`, {
      callerOperator: callerOp,
      targetOperator: targetOp,
    })
  }
  if (!(await p.nonces.useNonce(challenge.nonce, challenge.expiresAt, now))) {
    throw new CladeAuthError('CLADE_NONCE_REUSED', 'X-Clade-Challenge: nonce was already used; request a new challenge')
  }
  return { caller: getAddress(challenge.caller), target: getAddress(challenge.target), operator: getAddress(callerOp) }
}
