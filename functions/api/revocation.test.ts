// The revocation routes' answers for what the chain cannot settle: an unknown Golem, one the store holds
// without a custody profile, a wake for a revocation that did not happen, the death rules, and a
// deployment without the service. Each refusal writes nothing. (The owner's real revocation on anvil is
// test/heartbeat/revocation.test.ts.)
import { describe, expect, it } from 'vitest'
import { BardoError } from '../../core/errors.ts'
import { createApp } from './app.ts'
import type { RevocationService } from './deps.ts'
import { sampleGolem, testApiDeps } from './testing.ts'

const owner = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266' as const

function service(o: { wakes?: string[] } = {}): RevocationService {
  return {
    async plan(golemId) {
      if (golemId === 'atlas')
        return {
          owner,
          calls: [{ to: owner, value: 0n, data: '0x1234', hash: `0x${'ab'.repeat(32)}`, kind: 'runway', label: 'runway' }],
          alreadyDisabled: [],
        }
      throw new BardoError('GOLEM_NOT_FOUND', `golemId: names no Golem with a custody profile: ${golemId}`)
    },
    async wake(golemId) {
      if (golemId !== 'atlas')
        throw new BardoError('GOLEM_NOT_REVOKED', `golemId: Golem ${golemId}'s runway grant is not disabled on-chain`)
      o.wakes?.push(golemId)
      return { woken: true }
    },
  }
}

const app = (revocations?: RevocationService) =>
  createApp(
    testApiDeps({
      golems: [
        sampleGolem(),
        sampleGolem({ id: 'bare' }),
        sampleGolem({ id: 'gone', lifecycle: 'dead' }),
        sampleGolem({ id: 'going', lifecycle: 'dying' }),
      ],
      overrides: revocations ? { revocations } : {},
    }),
  )

describe('/api/v1/golems/:id/revocation', () => {
  it('answers the calls with decimal values, and wakes a revoked Golem', async () => {
    const wakes: string[] = []
    const api = app(service({ wakes }))
    const res = await api.request('/api/v1/golems/atlas/revocation')
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ golemId: 'atlas', owner, calls: [{ value: '0', kind: 'runway' }], alreadyDisabled: [] })
    expect((await api.request('/api/v1/golems/atlas/revocation', { method: 'POST' })).status).toBe(202)
    expect(wakes).toEqual(['atlas'])
  })

  it('is 404 for an unknown Golem and for one without a custody profile, 409 for a wake before the revocation', async () => {
    const wakes: string[] = []
    const api = app(service({ wakes }))
    expect(await (await api.request('/api/v1/golems/nobody/revocation')).json()).toMatchObject({ code: 'GOLEM_NOT_FOUND' })
    const bare = await api.request('/api/v1/golems/bare/revocation')
    expect(bare.status).toBe(404)
    expect(await bare.json()).toMatchObject({ code: 'GOLEM_NOT_FOUND', message: expect.stringMatching(/^golemId: /) })
    const early = await api.request('/api/v1/golems/bare/revocation', { method: 'POST' })
    expect(early.status).toBe(409)
    expect(await early.json()).toMatchObject({ code: 'GOLEM_NOT_REVOKED' })
    expect((await api.request('/api/v1/golems/a%20b/revocation')).status).toBe(400)
    expect((await api.request('/api/v1/golems/a%20b/revocation', { method: 'POST' })).status).toBe(400)
    expect(wakes).toEqual([])
  })

  it('answers woken: false for a Golem whose death protocol runs or ran: its heartbeat found the revocation first', async () => {
    const wakes: string[] = []
    const api = app(service({ wakes }))
    for (const id of ['going', 'gone']) {
      const res = await api.request(`/api/v1/golems/${id}/revocation`, { method: 'POST' })
      expect(res.status).toBe(202)
      expect(await res.json()).toEqual({ golemId: id, woken: false })
    }
    expect(wakes).toEqual([])
  })

  it('is 501 on a deployment without the service', async () => {
    expect((await app().request('/api/v1/golems/atlas/revocation')).status).toBe(501)
  })
})
