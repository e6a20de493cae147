// The Snap paired with the real local API at a port chosen at run time: the Portal tells the Snap where
// the API is when it starts pairing (nothing baked into the build), the owner's key signs the pairing
// text as MetaMask's personal_sign would (the owner is a MetaMask smart account, checked by ERC-1271),
// and the Snap's cron then reads the owner's Golem from that API.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { installSnap } from '@metamask/snaps-jest'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

const PORTAL = 'http://localhost:3003'
const root = join(process.cwd(), '..')

let child: ChildProcess
let api: { url: string; owner: Hex; ownerKey: Hex }

beforeAll(async () => {
  child = spawn(process.execPath, ['--import', 'tsx', join(root, 'test', 'support', 'snapPairingApi.ts')], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, DO_NOT_TRACK: '1' },
  })
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string]
  api = JSON.parse(line) as typeof api
}, 120_000)

afterAll(async () => {
  if (!child || child.exitCode !== null) return
  const exited = once(child, 'exit')
  child.stdin!.end()
  await exited
}, 60_000)

describe('pairing with the local API at a run-time port', () => {
  it('refuses an API address that is not an http(s) origin, naming apiUrl, and keeps no pairing', async () => {
    const snap = await installSnap()
    for (const apiUrl of ['ftp://127.0.0.1:1', `${'http://127.0.0.1:1'}/api`, 'http://user:pw@127.0.0.1:1', 42]) {
      const res = await snap.request({ method: 'startPairing', origin: PORTAL, params: { owner: api.owner, apiUrl } })
      expect(res).toRespondWithError(expect.objectContaining({ message: expect.stringMatching(/^apiUrl: must be an http\(s\) origin/) }))
    }
    const status = await snap.request({ method: 'getGolemsStatus', origin: PORTAL })
    expect(status).toRespondWith(expect.objectContaining({ paired: false }))
  })

  it("pairs with the API the Portal names, and the cron reads the owner's Golem from it", async () => {
    const snap = await installSnap()
    const started = await snap.request({ method: 'startPairing', origin: PORTAL, params: { owner: api.owner, apiUrl: api.url } })
    expect(started.response).toMatchObject({ result: expect.anything() })
    const { message } = (started.response as { result: { message: string } }).result
    expect(message).toContain(`Owner: ${api.owner}`)
    const signature = await privateKeyToAccount(api.ownerKey).signMessage({ message })
    const done = await snap.request({ method: 'completePairing', origin: PORTAL, params: { signature } })
    expect(done).toRespondWith({ paired: true, owner: api.owner })
    const cron = await snap.onCronjob({ method: 'heartbeat' })
    expect(cron.response).toMatchObject({ result: { kind: 'ok' } })
    const status = await snap.request({ method: 'getGolemsStatus', origin: PORTAL })
    expect(status).toRespondWith(
      expect.objectContaining({ paired: true, owner: api.owner, golems: [expect.objectContaining({ id: 'atlas', lifecycle: 'alive' })] }),
    )
  })
})
