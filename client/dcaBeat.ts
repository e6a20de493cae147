// One beat of the example DCA strategy as a Golem runtime would run it through custody: approve the
// router for a slice of USDC and swap it for WETH in one transaction, asking a minimum output within
// the slippage bound at the feed price. Custody's answer (a receipt or a refusal in words) is returned
// as one console line, so the local demo shows swaps going through and caveats refusing them.
import type { Address } from 'viem'
import type { ActionOutcome } from '../app/actions/executeAction.ts'
import type { GolemActions } from './golemActions.ts'

export type DcaBeatParams = {
  actions: GolemActions
  router: Address
  usdc: Address
  weth: Address
  /** USDC base units per beat. */
  sliceUsdc: bigint
  /** WETH per USDC at the feed price, scaled by 1e18 per 1e6 USDC (e.g. 1e18 / 3000 for $3,000 WETH). */
  wethPerUsdc: bigint
  /** How far below the feed price the minimum output may be, in bps (within the grant's MaxSlippage to go through). */
  slippageBps: number
  requestId?: string
}

/** Runs the beat and returns custody's outcome and a line for the console. */
export async function dcaBeat(p: DcaBeatParams): Promise<{ outcome: ActionOutcome; line: string }> {
  const fair = (p.sliceUsdc * p.wethPerUsdc) / 1_000_000n
  const minOut = (fair * BigInt(10_000 - p.slippageBps)) / 10_000n
  const outcome = await p.actions.batch(
    [
      { kind: 'approve', token: p.usdc, spender: p.router, amount: p.sliceUsdc },
      { kind: 'swap', router: p.router, tokenIn: p.usdc, tokenOut: p.weth, amountIn: p.sliceUsdc, amountOutMinimum: minOut },
    ],
    p.requestId ? { requestId: p.requestId } : {},
  )
  return {
    outcome,
    line: describeOutcome(outcome, `swap ${formatUsdc(p.sliceUsdc)} USDC -> WETH (min out ${p.slippageBps} bps under the feed)`),
  }
}

/** "swap ... : executed in 0xabc… (block 12)" or "swap ...: refused by custody: golemPhase: ...". */
export function describeOutcome(outcome: ActionOutcome, what: string): string {
  switch (outcome.status) {
    case 'executed':
      return `${what}: executed in ${outcome.txHash} (block ${outcome.receipt.blockNumber}${outcome.duplicate ? ', a repeat of an earlier request' : ''})`
    case 'refused':
      return `${what}: refused by ${outcome.checkedBy === 'custody' ? 'custody before sending' : 'the chain'}: ${outcome.refusal.reason}`
    case 'failed':
      return `${what}: failed (${outcome.reason})`
    case 'pending':
      return `${what}: in flight (${outcome.reason})`
    case 'spawned':
      return `${what}: spawned Replicant ${outcome.replicantId} (${outcome.replicantKey})${outcome.duplicate ? ', a repeat of an earlier request' : ''}`
  }
}

const formatUsdc = (units: bigint): string => {
  const whole = units / 1_000_000n
  const frac = (units % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '')
  return frac ? `${whole}.${frac}` : `${whole}`
}
