// The custody profile's `actionGrant`: whether an action grant was saved when the Golem was provisioned.
import { describe, expect, it } from 'vitest'
import { testProfile } from '../../test/support/lifecycle/profile.ts'
import { parseGolemProfile, serializeGolemProfile } from './profile.ts'

describe('profile.actionGrant', () => {
  it('round-trips true and false, and a profile written before it parses without it', () => {
    for (const actionGrant of [true, false]) {
      expect(parseGolemProfile(serializeGolemProfile(testProfile({ actionGrant }))).actionGrant).toBe(actionGrant)
    }
    const { actionGrant: _, ...older } = testProfile()
    expect(parseGolemProfile(serializeGolemProfile(older as ReturnType<typeof testProfile>))).not.toHaveProperty('actionGrant')
  })

  it('refuses anything but a boolean, naming the field', () => {
    const text = JSON.stringify({ ...JSON.parse(serializeGolemProfile(testProfile())), actionGrant: 'no' })
    expect(() => parseGolemProfile(text)).toThrow(/profile\.actionGrant/)
  })
})
