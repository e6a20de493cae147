// `bardo feed`: Feed-the-Golem from any payer, through the API's x402 endpoint. The API answers 402 with
// its offer (the death reserve, in the chain's USDC); the payer signs an EIP-3009 authorization for it
// with x402's own client, unless the offer is above --max-usdc, and the API settles and credits it once.
import { x402Client } from '@x402/core/client'
import { x402HTTPClient } from '@x402/core/http'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import type { PrivateKeyAccount } from 'viem'
import { formatUsdc } from '../core/permissions/index.ts'
import { CliRefusedError, CliUsageError } from './errors.ts'

/** An http(s) base URL without its trailing slashes, or a usage error naming `field`. */
export function httpUrl(field: string, url: string): string {
  if (!/^https?:\/\//.test(url)) throw new CliUsageError(field, `must be an http or https URL, got ${JSON.stringify(url)}`)
  return url.replace(/\/+$/, '')
}

export function apiUrlOf(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  const url = flag ?? env.BARDO_API_URL
  if (!url) throw new CliUsageError('--api', 'must be the API base URL (or set BARDO_API_URL)')
  return httpUrl('--api', url)
}

export type FeedResult = { golemId: string; amount: bigint; payer: string; credit: unknown; txHash?: string }

export async function feedGolem(o: {
  api: string
  golemId: string
  payer: PrivateKeyAccount
  maxAmount: bigint
  progress(line: string): void
  fetch?: typeof fetch
}): Promise<FeedResult> {
  const send = o.fetch ?? fetch
  const post = (headers: Record<string, string> = {}) =>
    send(`${o.api}/api/v1/feed`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ golemId: o.golemId }),
    })
  const offer = await post()
  if (offer.status !== 402) {
    const body = (await offer.json().catch(() => ({}))) as { code?: string; message?: string }
    throw new CliRefusedError(
      '--golem',
      `the API refused to feed ${o.golemId}: ${offer.status} ${body.code ?? ''} ${body.message ?? ''}`.trim(),
    )
  }
  const client = new x402HTTPClient(
    x402Client.fromConfig({ schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(o.payer) }], spendControls: false }),
  )
  const required = client.getPaymentRequiredResponse((name) => offer.headers.get(name), await offer.json())
  const accept = required.accepts[0]
  if (!accept) throw new CliRefusedError('--golem', 'the API offered no way to pay')
  const amount = BigInt(accept.amount)
  if (amount > o.maxAmount)
    throw new CliUsageError(
      '--max-usdc',
      `the feed costs ${formatUsdc(amount)} USDC, over the ${formatUsdc(o.maxAmount)} USDC this payment may spend`,
    )
  o.progress(`offer         ${formatUsdc(amount)} USDC to ${accept.payTo} on ${accept.network}`)
  const headers = client.encodePaymentSignatureHeader(await client.createPaymentPayload({ ...required, accepts: [accept] }))
  const paid = await post(headers)
  const body = (await paid.json().catch(() => ({}))) as { code?: string; message?: string; credit?: unknown }
  if (paid.status !== 200)
    throw new CliRefusedError('payment', `the API refused the payment: ${paid.status} ${body.code ?? ''} ${body.message ?? ''}`.trim())
  const settled = client.getPaymentSettleResponse((name) => paid.headers.get(name))
  o.progress(`paid          ${formatUsdc(amount)} USDC (${settled.transaction})`)
  return { golemId: o.golemId, amount, payer: o.payer.address, credit: body.credit, txHash: settled.transaction }
}
