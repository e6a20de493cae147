// The demo owner's EOA on the local stack (the key that controls the owner's MetaMask smart account).
// BARDO_OWNER_KEY fixes it, so a browser wallet that imports the key acts as the owner on the dashboard;
// a fresh key per run by default. The key is never printed: the banner shows the smart account only.
import { isHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import type { Hex } from 'viem'
import { BardoError } from '../core/errors.ts'

/** The configured key is not a private key; the message names the variable, never the value. */
export class OwnerKeyConfigError extends BardoError {
  constructor(rule: string) {
    super('OWNER_KEY_INVALID', `BARDO_OWNER_KEY: ${rule}`)
  }
}

/** The demo owner's key and account: the key itself goes only to the stack's 0600 key file. */
export function localOwnerKey(env: NodeJS.ProcessEnv = process.env): { key: Hex; account: PrivateKeyAccount } {
  const given = env.BARDO_OWNER_KEY
  if (given === undefined || given === '') {
    const key = generatePrivateKey()
    return { key, account: privateKeyToAccount(key) }
  }
  if (!isHex(given) || given.length !== 66)
    throw new OwnerKeyConfigError('must be a 32-byte hex private key (0x followed by 64 hex digits)')
  try {
    return { key: given, account: privateKeyToAccount(given) }
  } catch {
    throw new OwnerKeyConfigError('must be a valid secp256k1 private key')
  }
}
