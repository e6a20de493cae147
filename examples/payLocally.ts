// Pays the local stack's demo Golem over x402 with the stock client, from a key of your own:
//   npm run faucet -- 0xYourAddress 100
//   PAYER_KEY=0x... npx tsx examples/payLocally.ts
// The README's "Paying locally with a stock x402 client" carries this file as it is.
import { readFileSync } from 'node:fs'
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch'
import { registerExactEvmScheme } from '@x402/evm/exact/client'
import { privateKeyToAccount } from 'viem/accounts'

const stack = JSON.parse(readFileSync(`${process.env.BARDO_STATE_DIR ?? '.bardo'}/stack.json`, 'utf8'))
const client = new x402Client()
registerExactEvmScheme(client, { signer: privateKeyToAccount(process.env.PAYER_KEY as `0x${string}`) })
client.setSpendControls({ allowedAssets: [{ network: stack.network, asset: stack.usdc, maxAmountPerPayment: '20000000' }] })
const pay = wrapFetchWithPayment(fetch, client)

const extend = await pay(`${stack.apiUrl}/api/v1/extend`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ golemId: 'demo', hours: 1 }),
})
console.log(extend.status, await extend.json(), decodePaymentResponseHeader(extend.headers.get('payment-response')!))
const feed = await pay(`${stack.apiUrl}/api/v1/feed`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ golemId: 'demo' }),
})
console.log(feed.status, await feed.json())
