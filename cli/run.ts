// `bardo run`: the heartbeat on the operator's own machine, for Golems whose keys are keystore files (the
// CLI's own custody) or Privy wallets (with the Privy app's settings): the heartbeat and tick code the AWS stack runs (app/heartbeat, app/tick), ticking in
// this process a beat a minute, as the deployed schedule does, or as --beat-ms says, until interrupted or
// --beats are done. A Golem whose key this machine does not hold (in memory of a running stack, in KMS)
// is refused by the signer at its tick and left to the deployment that holds it.
import type { LocalAccount, PublicClient } from 'viem'
import { runHeartbeat } from '../app/heartbeat/heartbeat.ts'
import { LocalInvoker } from '../app/heartbeat/invokers.ts'
import type { TickResult } from '../app/tick/types.ts'
import type { SignerResolver } from '../core/custody/signerResolver.ts'
import type { BardoDeployment } from '../core/deployment.ts'
import type { Store } from '../core/store/index.ts'
import { formatUnits } from 'viem'

export type SelfHostedHeartbeat = {
  store: Store
  client: PublicClient
  deployment: BardoDeployment
  signers: SignerResolver
  /** The VitalityOracle's owner: posts phases and deregisters the dead. */
  operator: LocalAccount
  /** Stop after this many beats; undefined: until `stopped`. */
  beats?: number
  beatMs: number
  /** Ticks of one Golem that may fail in a row before it is halted (core/lifecycle/heartbeatAnomaly.ts); default 5. */
  maxConsecutiveFailures?: number
  stopped: Promise<void>
  progress(line: string): void
}

export type SelfHostedSummary = { beats: number; ticks: number; redeemed: string; failed: number }

/** One tick in words: the Golem, its phase, its redemption (USDC, 6 decimals) and how it ended. */
export function tickLine(r: TickResult): string {
  const parts = [`tick ${r.golemId}: ${r.outcome}`]
  if (r.phase) parts.push(`phase ${r.phase.from} -> ${r.phase.to}${r.phase.posted ? ' (posted)' : ''}`)
  if (r.redemption)
    parts.push(
      `redemption ${r.redemption.status}${r.redemption.amount === undefined ? '' : ` ${formatUnits(r.redemption.amount, 6)} USDC`}${r.redemption.txHash ? ` in ${r.redemption.txHash}` : ''}`,
    )
  if (r.rotated) parts.push(`key rotated ${r.rotated.from} -> ${r.rotated.to}`)
  return parts.join(' | ')
}

export async function runSelfHostedHeartbeat(o: SelfHostedHeartbeat): Promise<SelfHostedSummary> {
  let ticks = 0
  let failed = 0
  let redeemed = 0n
  const invoker = new LocalInvoker(
    (invocationId) => ({
      store: o.store,
      client: o.client as never,
      deployment: o.deployment,
      signers: o.signers,
      operator: o.operator,
      invocationId: `bardo-run-${invocationId}`,
      ...(o.maxConsecutiveFailures === undefined ? {} : { maxConsecutiveFailures: o.maxConsecutiveFailures }),
    }),
    {
      onResult: (r) => {
        ticks++
        if (r.redemption?.status === 'confirmed') redeemed += r.redemption.amount ?? 0n
        o.progress(tickLine(r))
      },
      onError: (golemId, e) => {
        failed++
        o.progress(`tick ${golemId} failed: ${e instanceof Error ? e.message.split('\n')[0] : String(e)} (the next beat retries)`)
      },
    },
  )
  let beats = 0
  let stopping = false
  void o.stopped.then(() => (stopping = true))
  while (!stopping) {
    try {
      const beat = await runHeartbeat({ store: o.store, client: o.client as never, deployment: o.deployment, invoker })
      o.progress(`beat ${beats + 1}: ${beat.due} due, ${beat.invoked} ticked at block ${beat.blockNumber}`)
    } catch (e) {
      o.progress(`beat ${beats + 1} failed: ${e instanceof Error ? e.message.split('\n')[0] : String(e)} (retrying at the next beat)`)
    }
    beats++
    if (o.beats !== undefined && beats >= o.beats) break
    await Promise.race([o.stopped, new Promise((r) => setTimeout(r, o.beatMs))])
  }
  return { beats, ticks, redeemed: redeemed.toString(), failed }
}
