import { BardoError } from '../errors.ts'

// Errors that can be thrown from inside a viem account (signTransaction / signTypedData) carry their
// data in named fields, not in `details`: viem reads `err.details` of a signing error as a string
// (getNodeError calls .toLowerCase() on it) and would crash on an object. Find them in a viem error
// with `err.walk((e) => e instanceof SignerPolicyError)`.

/** A signing request that the Golem is not allowed to make. `rule` names the policy rule it broke. */
export class SignerPolicyError extends BardoError {
  readonly rule: string
  constructor(rule: string, message: string) {
    super('SIGNER_POLICY', `signer policy "${rule}": ${message}`)
    this.rule = rule
  }
}

/** Any signing attempt after `zero()`: the key bytes are gone, by design. */
export class SessionKeyZeroedError extends BardoError {
  readonly address: string
  constructor(address: string) {
    super('SESSION_KEY_ZEROED', `session key ${address} was zeroed: every signing after zero() fails`)
    this.address = address
  }
}

export class KeystorePassphraseError extends BardoError {
  constructor(path?: string) {
    super('KEYSTORE_PASSPHRASE', 'keystore passphrase is wrong: MAC mismatch', path === undefined ? undefined : { details: { path } })
  }
}

/** The keystore file is malformed, of an unsupported version/cipher/KDF, or unreadable. */
export class KeystoreFormatError extends BardoError {
  constructor(field: string, rule: string, path?: string) {
    super('KEYSTORE_FORMAT', `keystore ${field}: ${rule}`, { details: { field, ...(path === undefined ? {} : { path }) } })
  }
}

/** The keystore file (or its write) does not have owner-only permissions. */
export class KeystorePermissionError extends BardoError {
  constructor(path: string, mode: number, rule: string) {
    const octal = `0${(mode & 0o777).toString(8)}`
    super('KEYSTORE_PERMISSION', `keystore ${path} has mode ${octal}: ${rule}`, { details: { path, mode: octal } })
  }
}

/** KMS answered with a key or signature this signer cannot use. */
export class KmsSignerError extends BardoError {
  readonly keyId: string
  constructor(keyId: string, message: string) {
    super('KMS_SIGNER', `KMS key ${keyId}: ${message}`)
    this.keyId = keyId
  }
}

/** The Privy server-wallet API refused or answered something unusable. Never carries the app secret. */
export class PrivySignerError extends BardoError {
  readonly walletId: string
  readonly status: number | undefined
  constructor(walletId: string, message: string, status?: number) {
    super('PRIVY_SIGNER', `Privy wallet ${walletId}: ${message}`)
    this.walletId = walletId
    this.status = status
  }
}

/** A custody configuration value (mode, policy, rotation policy) is missing or out of range. */
export class CustodyConfigError extends BardoError {
  constructor(field: string, rule: string) {
    super('CUSTODY_CONFIG', `${field}: ${rule}`, { details: { field } })
  }
}

/** A Golem's profile names a key this resolver cannot sign with (another kind, a retired or missing key). */
export class SignerResolutionError extends BardoError {
  constructor(message: string) {
    super('SIGNER_UNRESOLVED', message)
  }
}

/**
 * The heartbeat that ticked holds no keys of the profile's kind (a KMS Golem ticked by `bardo run`, a
 * keystore Golem by a stack without the passphrase): another heartbeat's Golem, not a failure of the Golem's.
 */
export class SignerNotHeldError extends SignerResolutionError {
  override readonly code = 'SIGNER_NOT_HELD'
}
