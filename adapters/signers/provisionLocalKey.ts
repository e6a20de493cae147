import type { Address } from 'viem'
import { createKeystoreKey } from './keystoreSigner.ts'

/**
 * LocalKey provisioning: generate a key, write it encrypted (mode 0600) and return only its address,
 * which the owner names as the delegate. The in-memory copy is zeroed before returning.
 */
export async function provisionLocalKey(path: string, passphrase: string, options: { scryptN?: number } = {}): Promise<Address> {
  const { key } = await createKeystoreKey(path, passphrase, options)
  const address = key.address
  key.zero()
  return address
}
