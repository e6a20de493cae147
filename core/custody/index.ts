// Public surface of custody. Raw signers (memory, keystore, KMS, Privy) are deliberately not
// exported here: the rest of the system only ever gets a GolemSigner.
export type { CustodyMode, CustodySigner, DelegationBounds } from './custodyMode.ts'
export { GolemSigner, type OperationRecorder, type UnsignedDelegation } from './golemSigner.ts'
export {
  DISABLE_DELEGATION_SELECTOR,
  ERC20_TRANSFER_SELECTOR,
  REDEEM_DELEGATIONS_SELECTOR,
  type SignerPolicyConfig,
  type SigningPurpose,
  type TransactionPurpose,
} from './policy.ts'
export { golemSignerPolicy, ownerOf } from './golemPolicy.ts'
export {
  MemoryPaymentLedger,
  paymentTypedData,
  type PaymentAuthorization,
  type PaymentLedger,
  type PaymentPolicy,
} from './paymentPolicy.ts'
export { SessionKey, rotateSessionKey, type SessionKeyParameters } from './sessionKey.ts'
export {
  DEFAULT_ROTATION_POLICY,
  resolveRotationPolicy,
  shouldRotate,
  type RotationDecision,
  type RotationPolicy,
  type RotationReason,
} from './rotation.ts'
export type { RevocationState, SessionKeyEvent, SessionKeyEventListener } from './events.ts'
export {
  CustodyConfigError,
  KeystoreFormatError,
  KeystorePassphraseError,
  KeystorePermissionError,
  KmsSignerError,
  PrivySignerError,
  SessionKeyZeroedError,
  SignerPolicyError,
} from './errors.ts'
export { REDACTED, redact, redactText } from './redact.ts'
