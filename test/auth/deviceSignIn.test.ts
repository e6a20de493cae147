// CLI sign-in by device code, end to end: `bardo login` against the real API app (in-process, its
// clock moved by the CLI's waits), the owner confirming with a local key's signature, the token kept
// 0600 and used on the authenticated tier, refreshed near its end, and every forged or replayed
// credential refused without changing the store.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { verifyMessage, type Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { withClaims } from '../../adapters/auth/testing.ts'
import { InMemoryStore } from '../../adapters/store/index.ts'
import { ACCESS_TOKEN_TTL_SECONDS, deviceConfirmMessage, normalizeUserCode } from '../../core/auth/deviceCode.ts'
import { MemoryNonceStore, MemoryRateLimitCounterStore, MemorySnapTokenStore } from '../support/memoryPorts.ts'
import { runCli } from '../../cli/bardo.ts'
import type { AuthFile } from '../../cli/auth.ts'
import { createApp } from '../../functions/api/app.ts'
import { deviceAuthFromStore } from '../../functions/api/storeAdapters.ts'
import { sampleGolem, testApiDeps, TEST_HMAC_SECRET } from '../../functions/api/testing.ts'

const API = 'http://api.bardo.test'
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code'
const owner = privateKeyToAccount(generatePrivateKey())
const stranger = privateKeyToAccount(generatePrivateKey())

type App = ReturnType<typeof createApp>

function setup(hmacSecret: Uint8Array = TEST_HMAC_SECRET) {
  const store = new InMemoryStore()
  const deps = testApiDeps({
    golems: [sampleGolem({ owner: owner.address })],
    config: { clade: { hmacSecret } },
    overrides: { ownerSignatures: { verifyMessage: (p) => verifyMessage(p) } },
  })
  deps.stores = {
    rateLimits: new MemoryRateLimitCounterStore(),
    nonces: new MemoryNonceStore(),
    snapTokens: new MemorySnapTokenStore(),
    deviceAuth: deviceAuthFromStore(store),
  }
  // Every store write the sign-in makes goes through these two calls.
  const writes = { issued: 0, consumed: 0 }
  const issue = store.issueNonce.bind(store)
  const consume = store.consumeNonce.bind(store)
  store.issueNonce = async (i) => {
    writes.issued++
    return issue(i)
  }
  store.consumeNonce = async (i) => {
    const r = await consume(i)
    if (r.consumed) writes.consumed++
    return r
  }
  return { deps, app: createApp(deps), writes }
}

const post = (app: App, path: string, body: unknown) =>
  app.request(`${API}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

async function startDevice(app: App) {
  const res = await post(app, '/api/v1/auth/device', {})
  expect(res.status).toBe(200)
  return (await res.json()) as { device_code: string; user_code: string; verification_uri: string; expires_in: number; interval: number }
}

async function confirm(
  app: App,
  userCode: string,
  o: { signer?: PrivateKeyAccount; as?: Address; decision?: 'approve' | 'deny'; chainId?: number } = {},
) {
  const signer = o.signer ?? owner
  const as = o.as ?? signer.address
  const decision = o.decision ?? 'approve'
  const message = deviceConfirmMessage({ userCode: normalizeUserCode(userCode), owner: as, chainId: o.chainId ?? 31337, decision })
  return post(app, '/api/v1/auth/device/confirm', { userCode, owner: as, decision, signature: await signer.signMessage({ message }) })
}

const pollToken = (app: App, deviceCode: string) => post(app, '/api/v1/auth/token', { grant_type: DEVICE_GRANT, device_code: deviceCode })

let dir: string
let authFile: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bardo-auth-'))
  authFile = join(dir, 'home', '.bardo', 'auth.json')
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

/** Runs the CLI against the app; `onWait` is the owner acting in the browser while the CLI waits. */
async function cli(ctx: ReturnType<typeof setup>, argv: string[], onWait: (n: number, userCode: string) => Promise<void> = async () => {}) {
  let stdout = ''
  let stderr = ''
  let waits = 0
  const code = await runCli(argv, {
    env: { BARDO_API_URL: API, BARDO_AUTH_FILE: authFile },
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    auth: {
      fetch: async (url, init) => ctx.app.request(url, init),
      now: () => ctx.deps.clock.now(),
      sleep: async (ms) => {
        ctx.deps.clock.advance(ms)
        await onWait(++waits, shownCode(stderr))
      },
    },
  })
  return { code, stdout, stderr }
}

const shownCode = (stderr: string) => /confirm the code ([A-Z]{4}-[A-Z]{4})/.exec(stderr)?.[1] ?? ''
const readAuth = () => JSON.parse(readFileSync(authFile, 'utf8')) as AuthFile

/** `bardo login`, the owner confirming while the CLI waits before its second poll. */
async function signIn(ctx: ReturnType<typeof setup>) {
  const r = await cli(ctx, ['login'], async (n, userCode) => {
    if (n === 2) expect((await confirm(ctx.app, userCode)).status).toBe(200)
  })
  expect(r.code, r.stderr).toBe(0)
  return r
}

describe('bardo login (device code)', () => {
  it('signs in: code shown, confirmed by the owner, token stored 0600, used on the authenticated tier (limit 1000)', async () => {
    const ctx = setup()
    // The first poll is pending; the owner confirms before the second.
    const r = await signIn(ctx)
    expect(r.stderr).toContain(`${API}/device`)
    expect(r.stdout).toContain(`signed in as ${owner.address}`)
    expect(statSync(authFile).mode & 0o777).toBe(0o600)
    const auth = readAuth()
    expect(auth).toMatchObject({ api: API, owner: owner.address })
    expect(auth.accessExpiresAt - Math.floor(ctx.deps.clock.now() / 1000)).toBe(ACCESS_TOKEN_TTL_SECONDS)
    // The tokens never reach the terminal.
    for (const secret of [auth.accessToken, auth.refreshToken]) expect(r.stdout + r.stderr).not.toContain(secret)

    const who = await cli(ctx, ['--json', 'whoami'])
    expect(who.code, who.stderr).toBe(0)
    expect(JSON.parse(who.stdout)).toMatchObject({ owner: owner.address, rateLimit: '1000' })
    const res = await ctx.app.request(`${API}/api/v1/golems/atlas`, { headers: { authorization: `Bearer ${auth.accessToken}` } })
    expect(res.headers.get('x-ratelimit-limit')).toBe('1000')

    const out = await cli(ctx, ['logout'])
    expect(out.code).toBe(0)
    expect(() => statSync(authFile)).toThrow()
    expect((await cli(ctx, ['whoami'])).code).toBe(1)
  })
})

describe('token expiry and refresh', () => {
  it('refreshes silently near the end, rotates the refresh token, and the expired access token is refused', async () => {
    const ctx = setup()
    await signIn(ctx)
    const first = readAuth()
    // Twelve hours before the end: the next command refreshes first.
    ctx.deps.clock.advance((ACCESS_TOKEN_TTL_SECONDS - 12 * 3600) * 1000)
    const who = await cli(ctx, ['whoami'])
    expect(who.code, who.stderr).toBe(0)
    expect(who.stderr).toContain(`refreshed the sign-in of ${owner.address}`)
    const second = readAuth()
    expect(second.accessToken).not.toBe(first.accessToken)
    expect(second.refreshToken).not.toBe(first.refreshToken)
    expect(statSync(authFile).mode & 0o777).toBe(0o600)
    expect(who.stdout + who.stderr).not.toContain(second.accessToken)

    // Past the first token's end: refused on the tier, while the refreshed one is accepted.
    ctx.deps.clock.advance(13 * 3600 * 1000)
    const old = await ctx.app.request(`${API}/api/v1/auth/session`, { headers: { authorization: `Bearer ${first.accessToken}` } })
    expect(old.status).toBe(401)
    expect(await old.json()).toMatchObject({ code: 'INVALID_TOKEN' })
    const fresh = await ctx.app.request(`${API}/api/v1/auth/session`, { headers: { authorization: `Bearer ${second.accessToken}` } })
    expect(fresh.status).toBe(200)
    expect(fresh.headers.get('x-ratelimit-limit')).toBe('1000')
    expect(await fresh.json()).toMatchObject({ owner: owner.address, expiresAt: second.accessExpiresAt })

    // The spent refresh token is refused, and refusing it issues nothing.
    const reused = await post(ctx.app, '/api/v1/auth/token', { grant_type: 'refresh_token', refresh_token: first.refreshToken })
    expect(reused.status).toBe(400)
    expect(await reused.json()).toMatchObject({ error: 'invalid_grant', code: 'INVALID_GRANT' })
  })

  it('does not refresh a token far from its end', async () => {
    const ctx = setup()
    await signIn(ctx)
    const before = readAuth()
    const who = await cli(ctx, ['whoami'])
    expect(who.code).toBe(0)
    expect(readAuth()).toEqual(before)
  })
})

describe('refusals', () => {
  it('refuses forged access tokens on the tier: altered, from another secret, or a refresh token', async () => {
    const ctx = setup()
    await signIn(ctx)
    const { accessToken, refreshToken } = readAuth()
    const other = setup(new Uint8Array(32).fill(0x17))
    const last = accessToken.at(-1) === 'A' ? 'B' : 'A'
    const altered = accessToken.slice(0, -1) + last
    // Another owner's address under the same MAC is a forgery too.
    const swapped = withClaims(accessToken, (c) => ({ ...c, sub: stranger.address }))
    for (const token of [altered, swapped, refreshToken, 'bardo_at_garbage']) {
      const r = await ctx.app.request(`${API}/api/v1/auth/session`, { headers: { authorization: `Bearer ${token}` } })
      expect(r.status, token).toBe(401)
      expect(await r.json()).toMatchObject({ code: 'INVALID_TOKEN' })
    }
    const elsewhere = await other.app.request(`${API}/api/v1/auth/session`, { headers: { authorization: `Bearer ${accessToken}` } })
    expect(elsewhere.status).toBe(401)
    // Without a token the session route says what it needs.
    const none = await ctx.app.request(`${API}/api/v1/auth/session`)
    expect(none.status).toBe(401)
    expect(await none.json()).toMatchObject({ code: 'AUTH_REQUIRED' })
  })

  it('refuses a forged device code or refresh token and writes nothing', async () => {
    const ctx = setup()
    const { device_code } = await startDevice(ctx.app)
    const before = { ...ctx.writes }
    const forged = `${device_code.slice(0, -1)}${device_code.at(-1) === 'A' ? 'B' : 'A'}`
    for (const code of [forged, 'bardo_dc_1.x.y']) {
      const r = await pollToken(ctx.app, code)
      expect(r.status).toBe(400)
      expect(await r.json()).toMatchObject({ error: 'invalid_grant', code: 'INVALID_GRANT' })
    }
    const rt = await post(ctx.app, '/api/v1/auth/token', { grant_type: 'refresh_token', refresh_token: 'bardo_rt_nope' })
    expect(await rt.json()).toMatchObject({ error: 'invalid_grant' })
    const grant = await post(ctx.app, '/api/v1/auth/token', { grant_type: 'password', device_code })
    expect(grant.status).toBe(400)
    expect(await grant.json()).toMatchObject({ code: 'VALIDATION_FAILED' })
    expect(ctx.writes).toEqual(before)
  })

  it('refuses a device code used twice, and a confirmation replayed', async () => {
    const ctx = setup()
    const { device_code, user_code } = await startDevice(ctx.app)
    expect((await confirm(ctx.app, user_code)).status).toBe(200)
    expect((await pollToken(ctx.app, device_code)).status).toBe(200)
    ctx.deps.clock.advance(5_000)
    const again = await pollToken(ctx.app, device_code)
    expect(again.status).toBe(400)
    expect(await again.json()).toMatchObject({ error: 'invalid_grant' })
    const replay = await confirm(ctx.app, user_code)
    expect(replay.status).toBe(409)
    expect(await replay.json()).toMatchObject({ code: 'USER_CODE_USED' })
  })

  it("refuses a non-owner's or a bad signature without burning the code, which the owner can still confirm", async () => {
    const ctx = setup()
    const { device_code, user_code } = await startDevice(ctx.app)
    const before = { ...ctx.writes }
    const refusals = [
      await confirm(ctx.app, user_code, { signer: stranger, as: owner.address }), // someone else's key, naming the owner
      await confirm(ctx.app, user_code, { chainId: 1 }), // another chain's text
      // the owner's signature over another code's text, presented for this one
      await post(ctx.app, '/api/v1/auth/device/confirm', {
        userCode: user_code,
        owner: owner.address,
        decision: 'approve',
        signature: await owner.signMessage({
          message: deviceConfirmMessage({ userCode: 'CBBBBBBB', owner: owner.address, chainId: 31337, decision: 'approve' }),
        }),
      }),
      // the owner's approval presented as a refusal
      await post(ctx.app, '/api/v1/auth/device/confirm', {
        userCode: user_code,
        owner: owner.address,
        decision: 'deny',
        signature: await owner.signMessage({
          message: deviceConfirmMessage({
            userCode: normalizeUserCode(user_code),
            owner: owner.address,
            chainId: 31337,
            decision: 'approve',
          }),
        }),
      }),
    ]
    for (const r of refusals) {
      expect(r.status).toBe(401)
      expect(await r.json()).toMatchObject({ code: 'DEVICE_CONFIRM_BAD_SIGNATURE' })
    }
    const garbage = await post(ctx.app, '/api/v1/auth/device/confirm', { userCode: user_code, owner: owner.address, signature: '0x1234' })
    expect(garbage.status).toBe(401)
    const badCode = await post(ctx.app, '/api/v1/auth/device/confirm', { userCode: 'AEIO-UAEI', owner: owner.address, signature: '0x12' })
    expect(badCode.status).toBe(400)
    expect(await badCode.json()).toMatchObject({ code: 'VALIDATION_FAILED', details: { issues: [{ path: 'userCode' }] } })
    // Nothing was spent or recorded: the CLI is still pending, and the owner's own confirmation works.
    expect(ctx.writes).toEqual(before)
    ctx.deps.clock.advance(5_000)
    expect(await (await pollToken(ctx.app, device_code)).json()).toMatchObject({ error: 'authorization_pending' })
    expect((await confirm(ctx.app, user_code.toLowerCase().replace('-', ' '))).status).toBe(200)
    ctx.deps.clock.advance(5_000)
    expect((await pollToken(ctx.app, device_code)).status).toBe(200)
  })

  it('answers slow_down to a poll within the interval, and an unknown user code is 404', async () => {
    const ctx = setup()
    const { device_code } = await startDevice(ctx.app)
    ctx.deps.clock.advance(5_000)
    expect(await (await pollToken(ctx.app, device_code)).json()).toMatchObject({ error: 'authorization_pending' })
    expect(await (await pollToken(ctx.app, device_code)).json()).toMatchObject({ error: 'slow_down', code: 'SLOW_DOWN' })
    const unknown = await confirm(ctx.app, 'ZZZZ-ZZZZ')
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toMatchObject({ code: 'USER_CODE_UNKNOWN' })
  })

  it('login fails, writing no file, when the owner refuses (access_denied) or the code expires (expired_token)', async () => {
    const denied = setup()
    const r = await cli(denied, ['login'], async (n, userCode) => {
      if (n === 1) expect((await confirm(denied.app, userCode, { decision: 'deny' })).status).toBe(200)
    })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('the owner refused the sign-in')
    expect(() => statSync(authFile)).toThrow()

    const late = setup()
    let userCode = ''
    const e = await cli(late, ['login'], async (_n, code) => {
      userCode = code
    })
    expect(e.code).toBe(1)
    expect(e.stderr).toContain('expired before the owner confirmed it')
    expect(() => statSync(authFile)).toThrow()
    const tooLate = await confirm(late.app, userCode)
    expect(tooLate.status).toBe(410)
    expect(await tooLate.json()).toMatchObject({ code: 'USER_CODE_EXPIRED' })
  })

  it("answers the Portal's preflight for the confirmation, and no other origin's", async () => {
    const ctx = setup()
    const preflight = (origin: string) =>
      ctx.app.request(`${API}/api/v1/auth/device/confirm`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      })
    expect((await preflight('https://bardo.ai')).headers.get('access-control-allow-origin')).toBe('https://bardo.ai')
    expect((await preflight('https://evil.example')).headers.get('access-control-allow-origin')).toBeNull()
  })

  it('a poll after the code has expired answers expired_token', async () => {
    const ctx = setup()
    const { device_code, user_code, expires_in } = await startDevice(ctx.app)
    expect((await confirm(ctx.app, user_code)).status).toBe(200)
    ctx.deps.clock.advance(expires_in * 1000)
    expect(await (await pollToken(ctx.app, device_code)).json()).toMatchObject({ error: 'expired_token', code: 'EXPIRED_TOKEN' })
  })
})
