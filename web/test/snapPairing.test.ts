// The page's Snap pairing: the wallet connects the Snap, the Snap starts pairing with the API the page's
// configuration names, the owner's wallet account signs the text (personal_sign), and the Snap completes
// it. The wallet is a stand-in recording what it is asked.
import { describe, expect, it } from 'vitest'
import { fromHex } from 'viem'
import { pairSnap } from '../src/snapPairing.ts'

const ACCOUNT = '0x00000000000000000000000000000000000000a1'
const OWNER = '0x00000000000000000000000000000000000000b2'
const config = { apiUrl: 'http://127.0.0.1:41234', snapId: 'local:http://localhost:8080' }

describe("the page's Snap pairing", () => {
  it('connects the Snap, starts pairing with the configured API, has the account sign the text, and completes', async () => {
    const asked: { method: string; params: unknown }[] = []
    const provider = {
      request: async ({ method, params }: { method: string; params?: unknown }) => {
        asked.push({ method, params })
        if (method === 'wallet_requestSnaps') return { [config.snapId]: { id: config.snapId } }
        if (method === 'personal_sign') return '0xsigned'
        const call = (params as { request: { method: string } }).request.method
        return call === 'startPairing' ? { message: 'Bardo Snap pairing\nOwner: x' } : { paired: true, owner: OWNER }
      },
    }
    const paired = await pairSnap({ provider, address: ACCOUNT }, config, OWNER)
    expect(paired).toEqual({ paired: true, owner: OWNER })
    expect(asked.map((a) => a.method)).toEqual(['wallet_requestSnaps', 'wallet_invokeSnap', 'personal_sign', 'wallet_invokeSnap'])
    expect(asked[0]!.params).toEqual({ [config.snapId]: {} })
    expect(asked[1]!.params).toEqual({
      snapId: config.snapId,
      request: { method: 'startPairing', params: { owner: OWNER, apiUrl: config.apiUrl } },
    })
    const [text, signer] = asked[2]!.params as [`0x${string}`, string]
    expect(fromHex(text, 'string')).toBe('Bardo Snap pairing\nOwner: x')
    expect(signer).toBe(ACCOUNT)
    expect(asked[3]!.params).toEqual({ snapId: config.snapId, request: { method: 'completePairing', params: { signature: '0xsigned' } } })
  })

  it('stops at a refusal from the wallet, and never asks the Snap to complete', async () => {
    const asked: string[] = []
    const provider = {
      request: async ({ method }: { method: string }) => {
        asked.push(method)
        if (method === 'personal_sign') throw new Error('User rejected the request.')
        return method === 'wallet_requestSnaps' ? {} : { message: 'text' }
      },
    }
    await expect(pairSnap({ provider, address: ACCOUNT }, config, OWNER)).rejects.toThrow('User rejected the request.')
    expect(asked).toEqual(['wallet_requestSnaps', 'wallet_invokeSnap', 'personal_sign'])
  })
})
