// The heartbeat's Privy settings, read from the environment in this one place: the app id, the app
// secret and the API's URL. With neither the id nor the secret the heartbeat holds no Privy wallets and
// says which settings would add them; half a configuration, or a malformed value, is an error that
// names the variable and the rule, and never carries the secret.
import { CustodyConfigError } from '../../core/custody/errors.ts'
import { REDACTED, redact } from '../../core/custody/redact.ts'
import { PRIVY_API_URL } from './privySigner.ts'

export const PRIVY_APP_ID = 'BARDO_PRIVY_APP_ID'
export const PRIVY_APP_SECRET = 'BARDO_PRIVY_APP_SECRET'
export const PRIVY_API_URL_VARIABLE = 'BARDO_PRIVY_API_URL'

/** What to say where a heartbeat holds no Privy wallets: the settings that would add them. */
export const privyMissing = (appSecret = PRIVY_APP_SECRET) =>
  `set ${PRIVY_APP_ID} and ${appSecret} to tick Golems whose key is a Privy wallet`
export const PRIVY_MISSING = privyMissing()

export type PrivySettings = {
  appId: string
  /** Sent to Privy only; toJSON, inspect and String() show it redacted. */
  appSecret: string
  apiUrl: string
}

export type PrivySettingsResult = { settings: PrivySettings } | { settings: undefined; missing: string }

type Env = Record<string, string | undefined>

const present = (env: Env, name: string): string | undefined => {
  const value = env[name]?.trim()
  return value === undefined || value === '' ? undefined : value
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]'])

/**
 * Privy's settings from the environment, or what is missing; throws CustodyConfigError on a bad value.
 * `appSecretFrom` names where the secret comes from in messages, when it is not the variable itself (the
 * deployed tick reads it from an SST secret).
 */
export function privySettingsFromEnv(env: Env, options: { appSecretFrom?: string } = {}): PrivySettingsResult {
  const secretName = options.appSecretFrom ?? PRIVY_APP_SECRET
  const appId = present(env, PRIVY_APP_ID)
  const appSecret = present(env, PRIVY_APP_SECRET)
  const apiUrl = present(env, PRIVY_API_URL_VARIABLE)
  if (appId === undefined && appSecret === undefined) {
    if (apiUrl !== undefined)
      throw new CustodyConfigError(PRIVY_API_URL_VARIABLE, `is set, so ${PRIVY_APP_ID} and ${secretName} must be set too`)
    return { settings: undefined, missing: privyMissing(secretName) }
  }
  if (appId === undefined) throw new CustodyConfigError(PRIVY_APP_ID, `must be set when ${secretName} is (the Privy app's id)`)
  if (appSecret === undefined) throw new CustodyConfigError(secretName, `must be set when ${PRIVY_APP_ID} is (the Privy app's secret)`)
  checkAppId(appId)
  // The secret's value never goes into the message: only its rule.
  if (/\s/.test(appSecret) || appSecret.length < 16 || appSecret.length > 512)
    throw new CustodyConfigError(secretName, 'must be the Privy app secret: 16-512 characters, no whitespace')
  return { settings: settingsOf(appId, appSecret, apiUrl === undefined ? PRIVY_API_URL : apiUrlOf(apiUrl)) }
}

/** A Privy API URL, checked by its rule (also at deploy time, for the tick's BARDO_PRIVY_API_URL). */
export function apiUrlOf(raw: string): string {
  const rule = 'must be an https URL with no credentials, query or fragment (http only on 127.0.0.1 or localhost)'
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new CustodyConfigError(PRIVY_API_URL_VARIABLE, rule)
  }
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname))
  if (!secure || url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '')
    throw new CustodyConfigError(PRIVY_API_URL_VARIABLE, rule)
  return url.toString().replace(/\/+$/, '')
}

/** A Privy app id, checked by its rule (also at deploy time, for the tick's BARDO_PRIVY_APP_ID). */
export function checkAppId(appId: string): string {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(appId))
    throw new CustodyConfigError(PRIVY_APP_ID, 'must be a Privy app id: 1-128 letters, digits, - or _')
  return appId
}

function settingsOf(appId: string, appSecret: string, apiUrl: string): PrivySettings {
  return redact({ appId, appSecret, apiUrl }, () => ({ appId, apiUrl, appSecret: REDACTED }))
}
