// The heartbeat's fee data in the tick payload: carried as decimal strings, validated on arrival, and
// optional (a payload without it, from an older heartbeat or a chain without EIP-1559, still decodes).
import { describe, expect, it } from 'vitest'
import { decodeTickPayload, encodeTickPayload } from './tickPayload.ts'

const fees = { baseFeePerGas: 7_000_000_000n, maxPriorityFeePerGas: 1_500_000_000n }

describe('tick payload fees', () => {
  it('round-trips the fees with every request, as bigints', () => {
    const decoded = decodeTickPayload(encodeTickPayload([{ golemId: 'g1', fees }, { golemId: 'g2' }]))
    expect(decoded).toEqual([{ golemId: 'g1', fees }, { golemId: 'g2' }])
  })

  it('refuses fees that are not whole non-negative numbers, or a fee left out of the pair', () => {
    const bad = [
      { baseFeePerGas: '-1', maxPriorityFeePerGas: '1' },
      { baseFeePerGas: '1.5', maxPriorityFeePerGas: '1' },
      { baseFeePerGas: '0x10', maxPriorityFeePerGas: '1' },
      { baseFeePerGas: '1' },
      { maxPriorityFeePerGas: '1' },
    ]
    for (const f of bad) {
      const text = JSON.stringify({ requests: [{ golemId: 'g1', fees: f }] })
      expect(() => decodeTickPayload(text), JSON.stringify(f)).toThrow(/baseFeePerGas|maxPriorityFeePerGas/)
    }
  })
})
