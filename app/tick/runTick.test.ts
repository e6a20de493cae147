// What a tick is handed must belong together: a record of another Golem, or a parsed profile without the
// record it was parsed from, is refused before anything is read or written, with the field named.
import { describe, expect, it } from 'vitest'
import type { GolemRecord } from '../../core/store/index.ts'
import { testProfile } from '../../test/support/lifecycle/profile.ts'
import { runTick } from './runTick.ts'
import type { TickDeps } from './types.ts'

/** Deps whose every member, touched, is recorded: a refused tick touches none of them. */
function untouchable(): { deps: TickDeps; touched: string[] } {
  const touched: string[] = []
  const member = (name: string) =>
    new Proxy(
      {},
      {
        get: (_t, key) => {
          touched.push(`${name}.${String(key)}`)
          return () => {
            throw new Error(`${name}.${String(key)}: not expected`)
          }
        },
      },
    )
  const deps = { store: member('store'), client: member('client'), signers: member('signers') } as unknown as TickDeps
  return { deps, touched }
}

const record = (golemId: string) => ({ golemId }) as GolemRecord

describe('runTick refuses a hand-over that does not belong together', () => {
  it('a record of another Golem: record.golemId named, nothing touched', async () => {
    const { deps, touched } = untouchable()
    await expect(runTick(deps, { golemId: 'g1', record: record('g2') })).rejects.toMatchObject({
      code: 'TICK_RECORD_MISMATCH',
      message: expect.stringMatching(/record\.golemId/),
    })
    expect(touched).toEqual([])
  })

  it('a parsed profile without its record: profile named, nothing touched', async () => {
    const { deps, touched } = untouchable()
    await expect(runTick(deps, { golemId: 'g1', profile: testProfile() })).rejects.toMatchObject({
      code: 'TICK_PROFILE_WITHOUT_RECORD',
      message: expect.stringMatching(/profile must come with the record/),
    })
    expect(touched).toEqual([])
  })
})
