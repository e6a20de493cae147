// viem's http transport with every JSON-RPC request counted by method, in process (no proxy hop, so
// nothing is added to the timings): what the heartbeat and API benches report as RPC per tick or request.
import { http, type Transport } from 'viem'

export function countingTransport(url: string, counts: Map<string, number>): Transport {
  const inner = http(url, { batch: false })
  return ((config: Parameters<Transport>[0]) => {
    const t = inner(config)
    return {
      ...t,
      request: (async (args: { method: string }) => {
        counts.set(args.method, (counts.get(args.method) ?? 0) + 1)
        return (t.request as (a: unknown) => Promise<unknown>)(args)
      }) as typeof t.request,
    }
  }) as Transport
}
