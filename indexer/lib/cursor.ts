// Opaque page cursors for the /v1 routes: the (block, log index) of the last item returned. Chain
// order is stable under new blocks, so a cursor stays valid while the indexer keeps writing.

export type Position = { blockNumber: bigint; logIndex: number }

export function encodeCursor(p: Position): string {
  return Buffer.from(`${p.blockNumber}.${p.logIndex}`).toString('base64url')
}

/** Undefined when `cursor` is not one this API issued. */
export function decodeCursor(cursor: string): Position | undefined {
  const text = Buffer.from(cursor, 'base64url').toString()
  const match = /^(\d{1,20})\.(\d{1,9})$/.exec(text)
  if (match === null) return undefined
  return { blockNumber: BigInt(match[1]!), logIndex: Number(match[2]!) }
}
