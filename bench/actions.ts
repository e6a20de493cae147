// Bench: custody's off-chain pre-check of a Golem's action (the covering delegation chosen, every caveat
// run in its on-chain order on one chain read) against the on-chain redemption it guards (sign, send,
// receipt), both timed inside executeAction on the same requests: the example strategy's DCA beat,
// approve + swap in one transaction, on anvil through the real DelegationManager.
//   npx tsx bench/actions.ts
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { InMemoryStore } from '../adapters/store/memoryStore.ts'
import { MemorySignerResolver } from '../adapters/signers/memorySignerResolver.ts'
import { dcaBeat } from '../client/dcaBeat.ts'
import { golemActions, inProcessTransport } from '../client/golemActions.ts'
import { startDevnet } from '../local/devnet.ts'
import { provisionGolem } from '../local/provision.ts'
import { formatRatio, formatTable } from './lib/table.ts'

export type ActionsBenchResult = {
  samples: number
  /** Milliseconds per action (a beat checks two). */
  precheckP50: number
  precheckP99: number
  /** Milliseconds per redemption (one transaction for both actions). */
  redeemP50: number
  redeemP99: number
  /** precheck per action / redemption, at p50. */
  ratio: number
}

const quantile = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

export async function runActionsBench(o: { samples?: number; log?: (line: string) => void } = {}): Promise<ActionsBenchResult> {
  const samples = o.samples ?? 30
  const devnet = await startDevnet()
  try {
    const store = new InMemoryStore()
    const signers = new MemorySignerResolver(devnet.deployment)
    const owner = await devnet.createOwner()
    await provisionGolem({
      clients: devnet,
      deployment: devnet.deployment,
      store,
      signers,
      owner,
      golemId: 'bench',
      strategy: readFileSync(new URL('../examples/STRATEGY.md', import.meta.url), 'utf8'),
      lifeSeconds: 86_400n,
    })
    const actions = golemActions({
      golemId: 'bench',
      transport: inProcessTransport({ store, client: devnet.publicClient, deployment: devnet.deployment, signers, invocationId: 'bench' }),
    })
    const { router, usdc, weth } = devnet.deployment.assets
    const check: number[] = []
    const redeem: number[] = []
    for (let i = 0; i < samples; i++) {
      if (i % 10 === 0) await devnet.refreshFeeds()
      const { outcome } = await dcaBeat({
        actions,
        router,
        usdc,
        weth,
        sliceUsdc: 10_000n,
        wethPerUsdc: 10n ** 18n / 3_000n,
        slippageBps: 50,
      })
      if (outcome.status !== 'executed' || !outcome.timings) throw new Error(`actions bench: beat ${i} was ${outcome.status}`)
      check.push(outcome.timings.checkMs / 2)
      redeem.push(outcome.timings.redeemMs)
      o.log?.(`beat ${i + 1}/${samples}`)
    }
    const precheckP50 = quantile(check, 0.5)
    const redeemP50 = quantile(redeem, 0.5)
    return {
      samples,
      precheckP50,
      precheckP99: quantile(check, 0.99),
      redeemP50,
      redeemP99: quantile(redeem, 0.99),
      ratio: precheckP50 / redeemP50,
    }
  } finally {
    await devnet.stop()
  }
}

export function formatActionsBench(r: ActionsBenchResult): string {
  const ms = (n: number) => `${n.toFixed(1)} ms`
  return formatTable(
    ['step', { header: 'p50', align: 'right' }, { header: 'p99', align: 'right' }, { header: 'vs redemption (p50)', align: 'right' }],
    [
      ['off-chain pre-check, per action', ms(r.precheckP50), ms(r.precheckP99), formatRatio(r.ratio, 3)],
      [`baseline: the redemption (sign, send, receipt), ${r.samples} beats`, ms(r.redeemP50), ms(r.redeemP99), formatRatio(1, 3)],
    ],
  )
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(formatActionsBench(await runActionsBench({ log: (l) => process.stderr.write(`${l}\n`) })))
}
