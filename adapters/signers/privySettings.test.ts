import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { CustodyConfigError } from '../../core/custody/errors.ts'
import { PRIVY_API_URL } from './privySigner.ts'
import { PRIVY_MISSING, privySettingsFromEnv } from './privySettings.ts'

const APP_ID = 'clbh2t7ou0000l508xyzl6n5k'
const SECRET = 'privy-app-secret-4f9c2d7e1a3b'
const env = (over: Record<string, string | undefined> = {}) => ({
  BARDO_PRIVY_APP_ID: APP_ID,
  BARDO_PRIVY_APP_SECRET: SECRET,
  ...over,
})

function refusal(e: Record<string, string | undefined>): CustodyConfigError {
  try {
    privySettingsFromEnv(e)
  } catch (error) {
    expect(error).toBeInstanceOf(CustodyConfigError)
    return error as CustodyConfigError
  }
  throw new Error('expected a CustodyConfigError')
}

describe('privySettingsFromEnv', () => {
  it("reads the app id and secret, with Privy's API by default", () => {
    const { settings } = privySettingsFromEnv(env())
    expect(settings).toMatchObject({ appId: APP_ID, appSecret: SECRET, apiUrl: PRIVY_API_URL })
  })

  it('takes another API URL (a local server on loopback may be http), without a trailing slash', () => {
    expect(privySettingsFromEnv(env({ BARDO_PRIVY_API_URL: 'http://127.0.0.1:8123/' })).settings?.apiUrl).toBe('http://127.0.0.1:8123')
    expect(privySettingsFromEnv(env({ BARDO_PRIVY_API_URL: 'https://privy.example.com/api' })).settings?.apiUrl).toBe(
      'https://privy.example.com/api',
    )
  })

  it('with neither the id nor the secret, the kind is not resolvable and says which settings add it', () => {
    expect(privySettingsFromEnv({})).toEqual({ settings: undefined, missing: PRIVY_MISSING })
    expect(privySettingsFromEnv({ BARDO_PRIVY_APP_ID: ' ', BARDO_PRIVY_APP_SECRET: '' }).settings).toBeUndefined()
    expect(PRIVY_MISSING).toMatch(/BARDO_PRIVY_APP_ID and BARDO_PRIVY_APP_SECRET/)
  })

  it('refuses half a configuration, naming the variable that is missing', () => {
    expect(refusal(env({ BARDO_PRIVY_APP_SECRET: undefined })).message).toBe(
      "BARDO_PRIVY_APP_SECRET: must be set when BARDO_PRIVY_APP_ID is (the Privy app's secret)",
    )
    const noId = refusal(env({ BARDO_PRIVY_APP_ID: undefined }))
    expect(noId.details).toEqual({ field: 'BARDO_PRIVY_APP_ID' })
    expect(noId.message).not.toContain(SECRET)
    expect(refusal({ BARDO_PRIVY_API_URL: 'https://api.privy.io' }).message).toMatch(
      /^BARDO_PRIVY_API_URL: is set, so BARDO_PRIVY_APP_ID and BARDO_PRIVY_APP_SECRET must be set too/,
    )
  })

  it('names where the secret comes from when it is not the variable itself (the deployed tick: an SST secret)', () => {
    const from = { appSecretFrom: 'secret PrivyAppSecret' }
    expect(privySettingsFromEnv({}, from)).toMatchObject({
      missing: expect.stringContaining('BARDO_PRIVY_APP_ID and secret PrivyAppSecret'),
    })
    expect(() => privySettingsFromEnv({ BARDO_PRIVY_APP_ID: APP_ID }, from)).toThrow(
      "secret PrivyAppSecret: must be set when BARDO_PRIVY_APP_ID is (the Privy app's secret)",
    )
  })

  it('refuses a malformed app id by its rule', () => {
    expect(refusal(env({ BARDO_PRIVY_APP_ID: 'has spaces in it' })).message).toBe(
      'BARDO_PRIVY_APP_ID: must be a Privy app id: 1-128 letters, digits, - or _',
    )
  })

  it('refuses a malformed secret by its rule, never quoting it', () => {
    for (const bad of ['short', 'a secret with spaces in it']) {
      const error = refusal(env({ BARDO_PRIVY_APP_SECRET: bad }))
      expect(error.message).toBe('BARDO_PRIVY_APP_SECRET: must be the Privy app secret: 16-512 characters, no whitespace')
      expect(JSON.stringify(error)).not.toContain(bad)
    }
  })

  it('refuses an API URL that is not https (but for loopback), carries credentials or a query, or does not parse', () => {
    for (const bad of [
      'http://api.privy.io',
      'https://user:pass@api.privy.io',
      'https://api.privy.io?x=1',
      'ftp://127.0.0.1',
      'not a url',
    ]) {
      const error = refusal(env({ BARDO_PRIVY_API_URL: bad }))
      expect(error.details).toEqual({ field: 'BARDO_PRIVY_API_URL' })
      expect(error.message).toMatch(/^BARDO_PRIVY_API_URL: must be an https URL/)
    }
  })

  it('never shows the secret in JSON, inspect or String()', () => {
    const { settings } = privySettingsFromEnv(env())
    for (const shown of [JSON.stringify(settings), inspect(settings), String(settings), JSON.stringify({ settings })])
      expect(shown).not.toContain(SECRET)
    expect(JSON.parse(JSON.stringify(settings))).toMatchObject({ appId: APP_ID, appSecret: '[redacted]' })
  })
})
