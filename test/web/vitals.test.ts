// The dashboard's vital signs: the API's answer read again at the page's clock, in the console's words.
import { describe, expect, it } from 'vitest'
import { lifeWords } from '../../core/lifecycle/vitalSignsWords.ts'
import { vitalsAt, type ApiVitals } from '../../web/src/vitals.ts'

const api: ApiVitals = {
  lifecycle: 'alive',
  phase: 'Stable',
  vitality: 0.6,
  survivalScoreBps: 6000,
  livesSeconds: 250,
  endsBy: 'runway',
  runwayEndsAt: 1_000_250,
  grantEndsAt: 1_000_400,
  grantEndsInSeconds: 400,
  recovered: false,
}

describe('vital signs on the dashboard', () => {
  it("counts down at the page's clock and names each clock once", () => {
    const v = vitalsAt(api, 1_000_010)
    expect(v).toMatchObject({ phase: 'Stable', vitality: 0.6, livesSeconds: 240, grantEndsInSeconds: 390 })
    expect(lifeWords(v)).toEqual(['lives 4m00s more', 'grant ends in 6m30s'])
    expect(lifeWords(vitalsAt({ ...api, runwayEndsAt: 1_086_450, grantEndsAt: 1_000_050 }, 1_000_000))).toEqual([
      'lives 0m50s more, until its grant ends',
      'runway paid 1.0 d past it',
    ])
  })

  it('says dead, Terminal, with the final vitality, once dead', () => {
    const v = vitalsAt({ ...api, lifecycle: 'dead', phase: 'Terminal', vitality: 0 }, 1_000_010)
    expect(v).toMatchObject({ phase: 'Terminal', vitality: 0, livesSeconds: 0 })
    expect(lifeWords(v)).toEqual(['dead'])
  })
})
