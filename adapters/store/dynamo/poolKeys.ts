// Claims on the KMS key pool: one item per key (POOLKEY#<keyId>), written only if absent, so two ticks
// never take the same key; and a pointer per claimant (POOLCLAIM#<claimant>) so a retried rotation finds
// the key it took in one read. The pointer is written after the claim: a crash between the two leaves a
// claim that the claimant's next scan of the pool finds (and the pointer is written then).
import { parseClaimPoolKey, parsePoolKeyClaimant, parsePoolKeyId } from '../../../core/store/inputs.ts'
import { StoreConflictError } from '../../../core/store/errors.ts'
import * as k from '../keys.ts'
import type { Address } from 'viem'
import type * as S from '../../../core/store/store.ts'
import type { DynamoTable } from './table.ts'

type Item = Record<string, unknown>

const claimOf = (item: Item): S.PoolKeyClaim => ({
  keyId: String(item.keyId),
  address: String(item.address) as Address,
  claimant: String(item.claimant),
  claimedAt: Number(item.claimedAt),
})

export async function claimPoolKey(table: DynamoTable, raw: S.ClaimPoolKeyInput): Promise<S.ClaimPoolKeyResult> {
  const i = parseClaimPoolKey(raw)
  const claim: S.PoolKeyClaim = { keyId: i.keyId, address: i.address, claimant: i.claimant, claimedAt: i.now }
  const written = await table.put({ pk: k.poolKeyPk(i.keyId), sk: k.SK.poolKey, ...claim }, { expression: 'attribute_not_exists(pk)' })
  const held = written ? claim : await getPoolKeyClaim(table, i.keyId)
  // Claims are never deleted, so a refused write that reads back nothing means the table was tampered with.
  if (!held) throw new StoreConflictError('keyId', `the claim on ${i.keyId} was refused but cannot be read back`)
  const mine = held.claimant === i.claimant
  if (mine) await table.put({ pk: k.poolClaimantPk(i.claimant), sk: k.SK.poolKey, ...held })
  return mine ? { claimed: true, claim: held } : { claimed: false, claim: held }
}

export async function getPoolKeyClaim(table: DynamoTable, keyId: string): Promise<S.PoolKeyClaim | null> {
  const item = await table.get({ pk: k.poolKeyPk(parsePoolKeyId(keyId)), sk: k.SK.poolKey })
  return item ? claimOf(item) : null
}

export async function findPoolKeyClaim(table: DynamoTable, claimant: string): Promise<S.PoolKeyClaim | null> {
  const item = await table.get({ pk: k.poolClaimantPk(parsePoolKeyClaimant(claimant)), sk: k.SK.poolKey })
  return item ? claimOf(item) : null
}
