// The device-code sign-in on DynamoStore over dynalite, as two Lambda instances share one table: the
// code is issued by one app, confirmed on the other, collected once, and a refresh token is spent once
// across both.
import { verifyMessage } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DynamoStore } from '../../adapters/store/dynamoStore.ts'
import { deviceConfirmMessage, normalizeUserCode } from '../../core/auth/deviceCode.ts'
import { createApp } from '../../functions/api/app.ts'
import type { ApiDeps } from '../../functions/api/deps.ts'
import {
  cladeNoncesFromStore,
  deviceAuthFromStore,
  rateLimitCountersFromStore,
  snapTokensFromStore,
} from '../../functions/api/storeAdapters.ts'
import { ManualClock, testApiDeps } from '../../functions/api/testing.ts'
import { createTable, documentClient, localDynamoClient, startDynalite, type Dynalite } from '../../local/dynalite.ts'

const owner = privateKeyToAccount(generatePrivateKey())
const API = 'http://api.bardo.test'

let dynalite: Dynalite
let client: ReturnType<typeof localDynamoClient>
beforeAll(async () => {
  dynalite = await startDynalite()
  client = localDynamoClient(dynalite.endpoint)
})
afterAll(async () => {
  client?.destroy()
  await dynalite?.stop()
})

describe('device-code sign-in on DynamoStore (dynalite)', () => {
  it('issues on one app, confirms on the other, yields one token, and spends a refresh token once across both', async () => {
    await createTable(client, 'bardo-auth')
    const store = new DynamoStore({ client: documentClient(client), tableName: 'bardo-auth' })
    const clock = new ManualClock(1_750_000_000_000)
    const stores: ApiDeps['stores'] = {
      rateLimits: rateLimitCountersFromStore(store),
      nonces: cladeNoncesFromStore(store),
      snapTokens: snapTokensFromStore(store, clock),
      deviceAuth: deviceAuthFromStore(store),
    }
    const make = () =>
      createApp({ ...testApiDeps({ clock, overrides: { ownerSignatures: { verifyMessage: (p) => verifyMessage(p) } } }), stores })
    const [a, b] = [make(), make()]
    const post = (app: ReturnType<typeof make>, path: string, body: unknown) =>
      app.request(`${API}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

    const start = (await (await post(a, '/api/v1/auth/device', {})).json()) as { device_code: string; user_code: string }
    const poll = (app: ReturnType<typeof make>) =>
      post(app, '/api/v1/auth/token', { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: start.device_code })
    clock.advance(5_000)
    expect(await (await poll(b)).json()).toMatchObject({ error: 'authorization_pending' })

    const message = deviceConfirmMessage({
      userCode: normalizeUserCode(start.user_code),
      owner: owner.address,
      chainId: 31337,
      decision: 'approve',
    })
    const confirmBody = { userCode: start.user_code, owner: owner.address, signature: await owner.signMessage({ message }) }
    expect((await post(b, '/api/v1/auth/device/confirm', confirmBody)).status).toBe(200)
    expect((await post(a, '/api/v1/auth/device/confirm', confirmBody)).status).toBe(409)

    clock.advance(5_000)
    const [first, second] = await Promise.all([poll(a), poll(b)])
    // Both polls fall in one interval window: one gets the token, the other slow_down or invalid_grant.
    const statuses = [first.status, second.status].sort()
    expect(statuses).toEqual([200, 400])
    const token = (await (first.status === 200 ? first : second).json()) as { access_token: string; refresh_token: string }

    const session = await b.request(`${API}/api/v1/auth/session`, { headers: { authorization: `Bearer ${token.access_token}` } })
    expect(session.status).toBe(200)
    expect(session.headers.get('x-ratelimit-limit')).toBe('1000')

    const refresh = { grant_type: 'refresh_token', refresh_token: token.refresh_token }
    const [r1, r2] = await Promise.all([post(a, '/api/v1/auth/token', refresh), post(b, '/api/v1/auth/token', refresh)])
    expect([r1.status, r2.status].sort()).toEqual([200, 400])
  }, 60_000)
})
