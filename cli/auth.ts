// `bardo login` / `bardo logout` and the token the other commands send: the device-code sign-in
// against the API, the tokens kept in ~/.bardo/auth.json (mode 0600, never printed), and a silent
// refresh when the access token is near its end.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { isAddress, type Address } from 'viem'
import { BardoError } from '../core/errors.ts'
import { CliConfigError, CliRefusedError } from './errors.ts'

/** Refresh this long before the access token ends, so a command never starts with a token about to lapse. */
export const REFRESH_BEFORE_SECONDS = 86_400

export type AuthFile = {
  api: string
  owner: Address
  accessToken: string
  /** Unix seconds. */
  accessExpiresAt: number
  refreshToken: string
  refreshExpiresAt: number
}

/** What the sign-in needs from the world; tests pass the API app's own fetch and a sleep that moves time. */
export type AuthIo = {
  fetch: (url: string, init?: RequestInit) => Promise<Response>
  sleep: (ms: number) => Promise<void>
  /** Milliseconds since the epoch. */
  now: () => number
  progress: (line: string) => void
}

/** The sign-in failed or was refused (by the owner, the API, or time); the message names the field. */
export class CliAuthError extends BardoError {
  constructor(field: string, rule: string, details?: Record<string, unknown>) {
    super('CLI_AUTH', `${field}: ${rule}`, { details: { field, ...details } })
  }
}

export function authFilePath(env: NodeJS.ProcessEnv): string {
  const path = env.BARDO_AUTH_FILE
  if (path !== undefined && path.trim() === '') throw new CliConfigError('BARDO_AUTH_FILE', 'must be a file path when set')
  return path ?? join(homedir(), '.bardo', 'auth.json')
}

/** Written whole under a temporary name and renamed, created 0600 so no other user ever reads it. */
export function writeAuthFile(path: string, auth: AuthFile): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  const tmp = `${path}.${process.pid}.tmp`
  writeFileSync(tmp, `${JSON.stringify(auth, null, 2)}\n`, { mode: 0o600 })
  chmodSync(tmp, 0o600)
  renameSync(tmp, path)
}

export function readAuthFile(path: string): AuthFile {
  if (!existsSync(path)) throw new CliRefusedError('auth', `not signed in (no ${path}); run bardo login`)
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'))
  } catch {
    throw new CliRefusedError('auth', `${path} is not JSON; run bardo login again`)
  }
  const a = raw as Partial<AuthFile>
  const ok =
    typeof a.api === 'string' &&
    typeof a.owner === 'string' &&
    isAddress(a.owner) &&
    typeof a.accessToken === 'string' &&
    typeof a.refreshToken === 'string' &&
    Number.isSafeInteger(a.accessExpiresAt) &&
    Number.isSafeInteger(a.refreshExpiresAt)
  if (!ok) throw new CliRefusedError('auth', `${path} is not a sign-in file of this CLI; run bardo login again`)
  return a as AuthFile
}

/** Removes the sign-in; true when there was one. */
export function removeAuthFile(path: string): boolean {
  if (!existsSync(path)) return false
  rmSync(path)
  return true
}

type TokenAnswer = {
  access_token: string
  expires_in: number
  refresh_token: string
  refresh_token_expires_in: number
  owner: Address
}

async function postJson(io: AuthIo, url: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await io.fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const json = (await res.json().catch(() => ({}))) as Record<string, unknown>
  return { status: res.status, json }
}

function authFileOf(api: string, t: TokenAnswer, nowMs: number): AuthFile {
  const now = Math.floor(nowMs / 1000)
  return {
    api,
    owner: t.owner,
    accessToken: t.access_token,
    accessExpiresAt: now + t.expires_in,
    refreshToken: t.refresh_token,
    refreshExpiresAt: now + t.refresh_token_expires_in,
  }
}

/**
 * The device-code sign-in: asks for a code, shows the owner where to confirm it, and polls at the
 * API's interval (five seconds more after each `slow_down`) until the owner decides or the code ends.
 */
export async function login(p: { api: string; file: string; io: AuthIo; show: (lines: string[]) => void }): Promise<AuthFile> {
  const start = await postJson(p.io, `${p.api}/api/v1/auth/device`, {})
  if (start.status !== 200)
    throw new CliAuthError('api', `POST /api/v1/auth/device answered ${start.status}: ${String(start.json.message ?? '')}`)
  const s = start.json as {
    device_code: string
    user_code: string
    verification_uri: string
    verification_uri_complete: string
    expires_in: number
    interval: number
  }
  p.show([
    `To sign in, open ${s.verification_uri} and confirm the code ${s.user_code} with the owner's wallet`,
    `  (or open ${s.verification_uri_complete})`,
  ])
  let interval = s.interval
  const deadline = p.io.now() + s.expires_in * 1000
  while (p.io.now() < deadline) {
    await p.io.sleep(interval * 1000)
    const poll = await postJson(p.io, `${p.api}/api/v1/auth/token`, {
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: s.device_code,
    })
    if (poll.status === 200) {
      const auth = authFileOf(p.api, poll.json as unknown as TokenAnswer, p.io.now())
      writeAuthFile(p.file, auth)
      return auth
    }
    const error = poll.json.error
    if (error === 'authorization_pending') continue
    if (error === 'slow_down') {
      interval += 5
      continue
    }
    if (error === 'access_denied') throw new CliAuthError('login', `the owner refused the sign-in of code ${s.user_code}`)
    if (error === 'expired_token') break
    throw new CliAuthError('login', `the API refused the sign-in (${poll.status}): ${String(poll.json.message ?? error ?? '')}`)
  }
  throw new CliAuthError('login', `code ${s.user_code} expired before the owner confirmed it; run bardo login again`)
}

/**
 * The access token to send, refreshed first when it ends within a day: the refresh token is single
 * use, so the new pair is written before the token is used.
 */
export async function accessToken(p: { file: string; io: AuthIo }): Promise<AuthFile> {
  const auth = readAuthFile(p.file)
  const now = Math.floor(p.io.now() / 1000)
  if (auth.accessExpiresAt - now > REFRESH_BEFORE_SECONDS) return auth
  if (now >= auth.refreshExpiresAt) throw new CliRefusedError('auth', 'the sign-in has ended; run bardo login again')
  const r = await postJson(p.io, `${auth.api}/api/v1/auth/token`, { grant_type: 'refresh_token', refresh_token: auth.refreshToken })
  if (r.status !== 200) {
    throw new CliAuthError('auth', `the API refused the refresh (${String(r.json.code ?? r.status)}); run bardo login again`)
  }
  const next = authFileOf(auth.api, r.json as unknown as TokenAnswer, p.io.now())
  writeAuthFile(p.file, next)
  p.io.progress(`refreshed the sign-in of ${next.owner}`)
  return next
}

/** `bardo whoami`: the API's view of the stored sign-in, through the authenticated tier. */
export async function whoami(p: {
  file: string
  io: AuthIo
}): Promise<{ owner: Address; expiresAt: number; api: string; rateLimit: string | null }> {
  const auth = await accessToken(p)
  const res = await p.io.fetch(`${auth.api}/api/v1/auth/session`, { headers: { authorization: `Bearer ${auth.accessToken}` } })
  const json = (await res.json().catch(() => ({}))) as Record<string, unknown>
  if (res.status !== 200)
    throw new CliAuthError('auth', `the API refused the token (${String(json.code ?? res.status)}); run bardo login again`)
  return {
    owner: json.owner as Address,
    expiresAt: json.expiresAt as number,
    api: auth.api,
    rateLimit: res.headers.get('x-ratelimit-limit'),
  }
}
