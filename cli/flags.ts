// Flags the commands share, each checked as it is read: a flag that breaks its rule is refused with the
// flag's name and the rule (exit code 2) before anything is sent or written.
import { getAddress, isAddress, type Address } from 'viem'
import { CliUsageError } from './errors.ts'

export function addressFlag(flag: string, raw: string | undefined): Address | undefined {
  if (raw === undefined) return undefined
  if (!isAddress(raw, { strict: false })) throw new CliUsageError(flag, `must be a 20-byte hex address, got ${JSON.stringify(raw)}`)
  return getAddress(raw)
}

export function wholeFlag(flag: string, raw: string, min: number): number {
  const n = Number(raw)
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < min)
    throw new CliUsageError(flag, `must be a whole number of at least ${min}, got ${JSON.stringify(raw)}`)
  return n
}
