// Snap pairing: the first Snap token for the owner who signs a fresh challenge; every refusal changes
// nothing (no token issued, no nonce spent). The smart-account (ERC-1271) owner is covered on anvil in
// test/snap/cronjob.test.ts.
import { verifyMessage, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { createApp } from './app.ts'
import type { SnapDeploymentInfo } from './deps.ts'
import { snapPairingChallengeResponse, snapPairingResponse } from './routes/snapPairing.ts'
import { verifySnapToken } from '../../core/snap/snapToken.ts'
import { sampleGolem, testApiDeps } from './testing.ts'

const owner = privateKeyToAccount(generatePrivateKey())
const stranger = privateKeyToAccount(generatePrivateKey())
const portal = 'https://bardo.ai'
const deployment = { chainId: 31337, vitalityOracle: '0x5FbDB2315678afecb367f032d93F642f64180aa3' } as unknown as SnapDeploymentInfo

function setup() {
  const deps = testApiDeps({
    golems: [sampleGolem({ owner: owner.address })],
    overrides: { ownerSignatures: { verifyMessage: (p) => verifyMessage(p) }, snapDeployment: deployment },
  })
  return { deps, app: createApp(deps) }
}

type App = ReturnType<typeof createApp>
const post = (app: App, path: string, body: unknown, origin = portal) =>
  app.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin, 'x-forwarded-for': '198.51.100.7' },
    body: JSON.stringify(body),
  })

async function challengeFor(app: App, address = owner.address) {
  const res = await post(app, '/api/snap/pairing/challenge', { owner: address })
  expect(res.status).toBe(200)
  const body = await res.json()
  expect(snapPairingChallengeResponse.safeParse(body).error).toBeUndefined()
  return body as { challenge: Record<string, unknown> & { expiresAt: number }; message: string }
}

describe('/api/snap/pairing', () => {
  it("issues the first Snap token to the owner who signs the challenge, and the token reads the owner's status", async () => {
    const { app, deps } = setup()
    const { challenge, message } = await challengeFor(app)
    expect(message).toContain(`Owner: ${owner.address}`)
    expect(message).toContain('moves no funds')
    const res = await post(app, '/api/snap/pairing', { challenge, signature: await owner.signMessage({ message }) })
    expect(res.status).toBe(200)
    const body = (await res.json()) as { owner: string; token: string; deployment: unknown }
    expect(snapPairingResponse.safeParse(body).error).toBeUndefined()
    expect(body).toMatchObject({ owner: owner.address, deployment })
    expect(await verifySnapToken(deps.stores.snapTokens, body.token)).toBe(owner.address)
    const status = await app.request('/api/snap/status', { headers: { authorization: `Bearer ${body.token}`, origin: portal } })
    expect(status.status).toBe(200)
    expect(((await status.json()) as { golems: unknown[] }).golems).toHaveLength(1)
  })

  it('refuses a second use of one challenge (single use), and the first token stays valid', async () => {
    const { app, deps } = setup()
    const { challenge, message } = await challengeFor(app)
    const signature = await owner.signMessage({ message })
    const first = (await (await post(app, '/api/snap/pairing', { challenge, signature })).json()) as { token: string }
    const again = await post(app, '/api/snap/pairing', { challenge, signature })
    expect(again.status).toBe(401)
    expect(await again.json()).toMatchObject({ code: 'SNAP_PAIRING_REUSED' })
    expect(await verifySnapToken(deps.stores.snapTokens, first.token)).toBe(owner.address)
  })

  it('refuses an expired challenge (short-lived) and issues nothing', async () => {
    const { app, deps } = setup()
    const { challenge, message } = await challengeFor(app)
    deps.clock.advance((challenge.expiresAt - Math.floor(deps.clock.now() / 1000)) * 1000)
    const res = await post(app, '/api/snap/pairing', { challenge, signature: await owner.signMessage({ message }) })
    expect(res.status).toBe(401)
    expect(await res.json()).toMatchObject({ code: 'SNAP_PAIRING_EXPIRED' })
    expect(await deps.stores.snapTokens.getSnapTokenHash(owner.address)).toBeUndefined()
  })

  it("refuses another account's signature without spending the challenge, which the owner can still use", async () => {
    const { app, deps } = setup()
    const { challenge, message } = await challengeFor(app)
    const res = await post(app, '/api/snap/pairing', { challenge, signature: await stranger.signMessage({ message }) })
    expect(res.status).toBe(401)
    expect(await res.json()).toMatchObject({ code: 'SNAP_PAIRING_BAD_SIGNATURE' })
    expect(await deps.stores.snapTokens.getSnapTokenHash(owner.address)).toBeUndefined()
    expect((await post(app, '/api/snap/pairing', { challenge, signature: await owner.signMessage({ message }) })).status).toBe(200)
  })

  it('refuses a challenge with a changed field (owner swapped, expiry extended) or a made-up nonce', async () => {
    const { app } = setup()
    const { challenge } = await challengeFor(app)
    for (const forged of [
      { ...challenge, owner: stranger.address },
      { ...challenge, expiresAt: challenge.expiresAt + 3600 },
      { ...challenge, nonce: `0x${'11'.repeat(32)}` },
    ]) {
      const message = `forged ${JSON.stringify(forged)}`
      const signer = (forged as { owner?: unknown }).owner === stranger.address ? stranger : owner
      const res = await post(app, '/api/snap/pairing', { challenge: forged, signature: (await signer.signMessage({ message })) as Hex })
      expect(res.status).toBe(401)
      expect(await res.json()).toMatchObject({ code: 'SNAP_PAIRING_NOT_ISSUED' })
    }
  })

  it('re-pairing replaces the token: the earlier Snap is signed out', async () => {
    const { app, deps } = setup()
    const pair = async () => {
      const { challenge, message } = await challengeFor(app)
      return (
        (await (await post(app, '/api/snap/pairing', { challenge, signature: await owner.signMessage({ message }) })).json()) as {
          token: string
        }
      ).token
    }
    const first = await pair()
    const second = await pair()
    expect(await verifySnapToken(deps.stores.snapTokens, first)).toBeUndefined()
    expect(await verifySnapToken(deps.stores.snapTokens, second)).toBe(owner.address)
  })

  it("answers the CORS preflight of both routes for the allowlist only (the Snap's Origin is null)", async () => {
    const deps = testApiDeps({
      config: { allowedOrigins: ['null'] },
      overrides: { ownerSignatures: { verifyMessage: (p) => verifyMessage(p) }, snapDeployment: deployment },
    })
    const app = createApp(deps)
    for (const path of ['/api/snap/pairing/challenge', '/api/snap/pairing']) {
      const pre = (origin: string) =>
        app.request(path, {
          method: 'OPTIONS',
          headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
        })
      const ok = await pre('null')
      expect(ok.status).toBe(204)
      expect(ok.headers.get('access-control-allow-origin')).toBe('null')
      expect((await pre('https://evil.example')).headers.get('access-control-allow-origin')).toBeNull()
    }
    const { challenge } = (await (await post(app, '/api/snap/pairing/challenge', { owner: owner.address }, 'null')).json()) as {
      challenge: unknown
    }
    expect(challenge).toMatchObject({ owner: owner.address })
  })

  it('refuses an origin off the allowlist (403), a malformed body (400), and answers 501 without a chain', async () => {
    const { app, deps } = setup()
    const evil = await post(app, '/api/snap/pairing/challenge', { owner: owner.address }, 'https://evil.example')
    expect(evil.status).toBe(403)
    expect(await evil.json()).toMatchObject({ code: 'ORIGIN_NOT_ALLOWED' })
    const bad = await post(app, '/api/snap/pairing/challenge', { owner: 'me' })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ code: 'VALIDATION_FAILED', message: 'owner: must be a 20-byte 0x-prefixed hex address' })
    const { challenge, message } = await challengeFor(app)
    const bare = createApp({ ...deps, ownerSignatures: undefined } as never)
    const res = await post(bare, '/api/snap/pairing', { challenge, signature: await owner.signMessage({ message }) })
    expect(res.status).toBe(501)
  })
})
