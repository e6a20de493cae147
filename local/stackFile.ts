// What a running local stack publishes in its state directory for the clients beside it: the faucet,
// the `bardo` CLI and tests. `npm start` writes it when it is ready and removes it when it stops. The
// addresses and endpoints are public; the demo owner's key and the stack's read key are the secrets, each
// kept in a file of its own that only its owner can read (the local demo only: a real owner's key never
// leaves the wallet).
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { isAddress, type Address, type Hex } from 'viem'
import { BardoError } from '../core/errors.ts'

export const STACK_FILE = 'stack.json'
export const DEPLOYMENT_FILE = 'deployment.json'
export const OWNER_KEY_FILE = 'owner.key'
export const READ_KEY_FILE = 'read.key'

export type StackInfo = {
  rpcUrl: string
  chainId: number
  usdc: Address
  apiUrl: string
  network: string
  dashboardUrl?: string
  /** The deployment file, in the format `bardo deploy` writes. */
  deploymentFile?: string
  /** The stack's store: a DynamoDB endpoint (dynalite) and table. */
  store?: { endpoint: string; tableName: string }
  /** The demo owner's key (mode 0600), for `bardo` acting as the demo owner. */
  ownerKeyFile?: string
  /** The API's read key (mode 0600), for `bardo`'s reads of the owner's views (observer list). */
  readKeyFile?: string
}

export class StackFileError extends BardoError {
  constructor(file: string, rule: string) {
    super('STACK_FILE_INVALID', `${file}: ${rule}`, { details: { field: file, rule } })
  }
}

export function stackFilePath(stateDir: string): string {
  return join(stateDir, STACK_FILE)
}

/** A secret in a 0600 file of the state directory; its path. */
function writeSecret(stateDir: string, name: string, value: string): string {
  const file = join(stateDir, name)
  writeFileSync(file, `${value}\n`, { mode: 0o600 })
  chmodSync(file, 0o600)
  return file
}

/** Written with mode 0600 (it names the keys' files); each key goes to a 0600 file of its own. */
export function writeStackInfo(stateDir: string, info: StackInfo, secrets: { ownerKey?: Hex; readKey?: string } = {}): StackInfo {
  const written: StackInfo = {
    ...info,
    ...(secrets.ownerKey ? { ownerKeyFile: writeSecret(stateDir, OWNER_KEY_FILE, secrets.ownerKey) } : {}),
    ...(secrets.readKey ? { readKeyFile: writeSecret(stateDir, READ_KEY_FILE, secrets.readKey) } : {}),
  }
  writeFileSync(stackFilePath(stateDir), `${JSON.stringify(written, null, 2)}\n`, { mode: 0o600 })
  return written
}

/** Removes what writeStackInfo wrote and the deployment file beside it: they describe a stack that is gone. */
export function removeStackInfo(stateDir: string): void {
  rmSync(stackFilePath(stateDir), { force: true })
  rmSync(join(stateDir, OWNER_KEY_FILE), { force: true })
  rmSync(join(stateDir, READ_KEY_FILE), { force: true })
  rmSync(join(stateDir, DEPLOYMENT_FILE), { force: true })
}

/** The running stack's info, or undefined when no stack has written one in this state directory. */
export function findStackInfo(stateDir: string): StackInfo | undefined {
  const file = stackFilePath(stateDir)
  if (!existsSync(file)) return undefined
  let raw: Partial<StackInfo>
  try {
    raw = JSON.parse(readFileSync(file, 'utf8')) as Partial<StackInfo>
  } catch {
    throw new StackFileError(file, 'must be JSON')
  }
  if (typeof raw.rpcUrl !== 'string' || !/^https?:\/\//.test(raw.rpcUrl)) throw new StackFileError(file, 'rpcUrl must be an http URL')
  if (typeof raw.chainId !== 'number') throw new StackFileError(file, 'chainId must be a number')
  if (typeof raw.usdc !== 'string' || !isAddress(raw.usdc, { strict: false })) throw new StackFileError(file, 'usdc must be an address')
  if (typeof raw.apiUrl !== 'string') throw new StackFileError(file, 'apiUrl must be a URL')
  return raw as StackInfo
}

const readSecret = (file: string | undefined): string | undefined =>
  file && existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined

/** The demo owner's key from the stack's key file. */
export const readOwnerKey = (info: StackInfo): Hex | undefined => readSecret(info.ownerKeyFile) as Hex | undefined

/** The stack's read key from its key file. */
export const readReadKey = (info: StackInfo): string | undefined => readSecret(info.readKeyFile)
