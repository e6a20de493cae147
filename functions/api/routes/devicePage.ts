// GET /device: the page where the owner confirms (or refuses) the code `bardo login` shows, on the API's
// own origin, so a deployment completes a CLI sign-in with nothing else deployed. The page finds the
// owner's wallet (EIP-6963, else window.ethereum), asks the API for the confirmation text of this code,
// owner and decision (GET /api/v1/auth/device/message), has the wallet sign it (personal_sign), and posts
// the signature to /api/v1/auth/device/confirm, which checks it (ERC-1271 for a smart-account owner)
// before spending the code. The page holds no secret and decides nothing: the confirm route does.
import { createRoute } from '@hono/zod-openapi'
import { answered, apiRouter, errors, security } from '../openapi.ts'

export const DEVICE_PAGE_PATH = '/device'

/** The page's script: plain browser JavaScript, no build step; every answer it shows is the API's. */
const SCRIPT = `
const $ = (id) => document.getElementById(id)
const status = (text, kind) => { $('status').textContent = text; $('status').dataset.kind = kind }
const params = new URLSearchParams(location.search)
$('code').value = params.get('user_code') || ''
let provider = window.ethereum || null
window.addEventListener('eip6963:announceProvider', (e) => { provider = provider || e.detail.provider; ready() })
window.dispatchEvent(new Event('eip6963:requestProvider'))
function ready() { $('connect').disabled = !provider; $('wallet').textContent = provider ? '' : 'no wallet found (install MetaMask)' }
ready()
let account = null
$('connect').onclick = async () => {
  try {
    const accounts = await provider.request({ method: 'eth_requestAccounts' })
    account = accounts[0]
    $('wallet').textContent = 'connected ' + account
    $('wallet').dataset.account = account
    if (!$('owner').value) $('owner').value = account
    $('approve').disabled = false
    $('deny').disabled = false
  } catch (e) { status(e.message, 'error') }
}
const hex = (text) => '0x' + Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, '0')).join('')
async function decide(decision) {
  const body = { userCode: $('code').value, owner: $('owner').value.trim(), decision }
  try {
    const q = new URLSearchParams(body)
    const text = await fetch('/api/v1/auth/device/message?' + q).then(async (r) => { const j = await r.json(); if (!r.ok) throw new Error(j.message); return j.message })
    status('sign the text in your wallet', 'waiting')
    const signature = await provider.request({ method: 'personal_sign', params: [hex(text), account] })
    const res = await fetch('/api/v1/auth/device/confirm', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...body, signature }) })
    const answer = await res.json()
    if (!res.ok) throw new Error(answer.message)
    status(decision === 'approve' ? 'Approved: the CLI signs in as ' + answer.owner + ' at its next poll. You can close this page.' : 'Refused: the CLI is told at its next poll.', 'done')
  } catch (e) { status(e.message, 'error') }
}
$('approve').onclick = () => decide('approve')
$('deny').onclick = () => decide('deny')
`

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Bardo: confirm a CLI sign-in</title>
<link rel="icon" href="data:,">
<style>body{font:16px system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}label{display:block;margin:.8rem 0 .2rem}input{font:inherit;width:100%;box-sizing:border-box}button{font:inherit;margin:.8rem .5rem 0 0}[data-kind=error]{color:#b00020}</style>
</head>
<body>
<h1>Confirm a CLI sign-in</h1>
<p>The <code>bardo</code> CLI showed you a code. Check it is the one below, connect the owner's wallet and approve. Signing moves no funds and grants no spending power.</p>
<label for="code">Code</label><input id="code" autocomplete="off" placeholder="XXXX-XXXX">
<button id="connect" disabled>Connect wallet</button> <span id="wallet"></span>
<label for="owner">Owner account (your wallet's account, or the smart account it controls)</label><input id="owner" autocomplete="off" placeholder="0x...">
<button id="approve" disabled>Approve</button><button id="deny" disabled>Refuse</button>
<p id="status" role="status"></p>
<script>${SCRIPT}</script>
</body>
</html>
`

const devicePageRoute = createRoute({
  method: 'get',
  path: DEVICE_PAGE_PATH,
  operationId: 'getDeviceConfirmPage',
  summary: "The page where the owner confirms or refuses the code `bardo login` shows, with the owner's wallet",
  tags: ['auth'],
  security: security('tier'),
  responses: { 200: answered('an HTML page'), ...errors() },
})

/** The page, served as it is: it reads no state and answers the same to everyone. */
export const devicePageRoutes = () => apiRouter().openapi(devicePageRoute, (c) => c.html(PAGE, 200, { 'cache-control': 'no-store' }))
