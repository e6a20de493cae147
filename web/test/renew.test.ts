// The owner's renewal from the page: a draft starts on the grant's next period boundary, so an owner
// who signs after that boundary passed is refused; the page then drafts and asks once more, and shows
// any other refusal (or a second late signature) as it is. The wallet and the server are stand-ins.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { renew } from '../src/actions.ts'
import { RequestError } from '../src/api.ts'

const ADDRESS = '0x00000000000000000000000000000000000000a1'
const typedData = {
  domain: { name: 'DelegationManager', version: '1', chainId: 31337 },
  types: { Delegation: [] },
  primaryType: 'Delegation',
  message: {},
}

function standIns(refusals: { field: string }[]) {
  const calls: string[] = []
  let signed = 0
  vi.stubGlobal('fetch', async (path: string, init?: RequestInit) => {
    calls.push(path)
    if (path.endsWith('/renewal-draft')) return Response.json({ delegation: { salt: `0x${calls.length}` }, typedData, expiresAt: 1 })
    const refusal = refusals.shift()
    if (refusal)
      return Response.json(
        { code: 'RENEWAL_REFUSED', message: `${refusal.field}: refused`, details: { field: refusal.field, rule: 'refused' } },
        { status: 422 },
      )
    const body = JSON.parse(String(init?.body)) as { delegation: { salt: string; signature: string } }
    return Response.json({ delegationHash: body.delegation.salt, grant_ends_at: 2, signature: body.delegation.signature })
  })
  const provider = { request: async () => `0x${(++signed).toString(16).padStart(2, '0')}` as const }
  return { calls, wallet: { provider, address: ADDRESS as `0x${string}` }, signed: () => signed }
}

afterEach(() => vi.unstubAllGlobals())

describe("the page's renewal", () => {
  it('drafts and asks the wallet once more when the boundary passed while the owner signed, and posts the fresh draft', async () => {
    const s = standIns([{ field: 'erc20PeriodTransfer.startDate' }])
    const renewed = (await renew(s.wallet, 'g1')) as unknown as { delegationHash: string; signature: string }
    expect(s.calls).toEqual([
      '/api/v1/golems/g1/renewal-draft',
      '/api/v1/golems/g1/renewal',
      '/api/v1/golems/g1/renewal-draft',
      '/api/v1/golems/g1/renewal',
    ])
    expect(s.signed()).toBe(2)
    expect(renewed).toMatchObject({ delegationHash: '0x3', signature: '0x02' })
  })

  it('shows any other refusal at once, and a second late signature too', async () => {
    const other = standIns([{ field: 'signature' }])
    const refused = await renew(other.wallet, 'g1').catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(RequestError)
    expect(refused).toMatchObject({ status: 422, code: 'RENEWAL_REFUSED', field: 'signature' })
    expect(other.signed()).toBe(1)
    vi.unstubAllGlobals()
    const late = standIns([{ field: 'erc20PeriodTransfer.startDate' }, { field: 'erc20PeriodTransfer.startDate' }])
    await expect(renew(late.wallet, 'g1')).rejects.toMatchObject({ field: 'erc20PeriodTransfer.startDate' })
    expect(late.signed()).toBe(2)
  })
})
