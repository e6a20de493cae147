// Which transaction dates a revocation, from the logs a node answers: the last disabling of a delegation
// in the chain, or the first nonce increment at or past the grant's nonce, whichever came first.
import { describe, expect, it } from 'vitest'
import type { Address, Hex } from 'viem'
import { findRevocation } from './revocation.ts'

const DM = '0x00000000000000000000000000000000000000d1' as Address
const ENFORCER = '0x00000000000000000000000000000000000000e1' as Address
const OWNER = '0x00000000000000000000000000000000000000a1' as Address
const HASH = `0x${'11'.repeat(32)}` as Hex
const tx = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex

type Log = { blockNumber: bigint; logIndex: number; transactionHash: Hex; args: { nonce?: bigint } }
const log = (block: number, index: number, args: { nonce?: bigint } = {}): Log => ({
  blockNumber: BigInt(block),
  logIndex: index,
  transactionHash: tx(block * 100 + index),
  args,
})

/** A node answering `disabled` for the DelegationManager and `used` for the NonceEnforcer; a block's time is 10x its number. */
function node(disabled: Log[], used: Log[]) {
  const asked: { address: Address; args: unknown; fromBlock: unknown; toBlock: unknown }[] = []
  const client = {
    getLogs: async (q: { address: Address; args: unknown; fromBlock: unknown; toBlock: unknown }) => {
      asked.push(q)
      return q.address === DM ? disabled : used
    },
    getBlock: async ({ blockNumber }: { blockNumber: bigint }) => ({ timestamp: blockNumber * 10n }),
  }
  return { client: client as never, asked }
}

const blocks = { fromBlock: 5n, toBlock: 90n }

describe('findRevocation', () => {
  it('dates a disable by its block and transaction, asking only for the chain’s hashes over the given blocks', async () => {
    const { client, asked } = node([log(40, 2)], [])
    expect(await findRevocation(client, DM, { chainHashes: [HASH] }, blocks)).toEqual({ at: 400n, txHash: tx(4002), blockNumber: 40n })
    expect(asked).toEqual([{ address: DM, event: expect.anything(), args: { delegationHash: [HASH] }, fromBlock: 5n, toBlock: 90n }])
  })

  it('a delegation disabled, enabled and disabled again dates from its last disabling', async () => {
    const { client } = node([log(70, 0), log(30, 1), log(70, 3)], [])
    expect(await findRevocation(client, DM, { chainHashes: [HASH] }, blocks)).toMatchObject({ txHash: tx(7003), at: 700n })
  })

  it("the owner's nonce increment: the first at or past the grant's nonce, before a later disable", async () => {
    const nonce = { enforcer: ENFORCER, delegator: OWNER, value: 2n }
    const { client, asked } = node([log(80, 0)], [log(20, 0, { nonce: 1n }), log(60, 5, { nonce: 3n }), log(50, 1, { nonce: 2n })])
    expect(await findRevocation(client, DM, { chainHashes: [HASH], nonce }, blocks)).toEqual({
      at: 500n,
      txHash: tx(5001),
      blockNumber: 50n,
    })
    expect(asked[1]).toMatchObject({ address: ENFORCER, args: { delegationManager: DM, delegator: OWNER } })
  })

  it('null when the logs hold neither (a node still indexing them), or only increments before the grant’s nonce', async () => {
    expect(await findRevocation(node([], []).client, DM, { chainHashes: [HASH] }, blocks)).toBeNull()
    const nonce = { enforcer: ENFORCER, delegator: OWNER, value: 4n }
    expect(await findRevocation(node([], [log(20, 0, { nonce: 3n })]).client, DM, { chainHashes: [HASH], nonce }, blocks)).toBeNull()
  })
})
