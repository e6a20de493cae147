// Alchemy Notify on a real stack: anvil with the MetaMask framework, dynalite, a provisioned Golem, and
// the API wired with the heartbeat's in-process tick invoker. The owner really disables the runway
// delegation; the delivery Alchemy would send for that block (the registered query applied to the
// block's logs, signed with the webhook's signing key) ticks the Golem at once and its health reads
// revoked. A forged signature, a bad body, a replayed delivery and logs of contracts that are not ours
// run nothing, and a stranger's huge disableDelegations in the revocation's block do not stop the wake.
import { createWalletClient, http, pad, toHex, zeroAddress, type Hex, type TransactionReceipt } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { contracts as kit, ROOT_AUTHORITY } from '@metamask/smart-accounts-kit'
import { AlchemySigningKey, custodyWebhookQuery } from '../../core/webhooks/index.ts'
import { alchemyDelivery, type BlockLog } from '../support/webhooks/alchemyDelivery.ts'
import { createLocalApi } from '../../functions/api/local.ts'
import { runHeartbeat } from '../../app/heartbeat/heartbeat.ts'
import { LocalInvoker } from '../../app/heartbeat/invokers.ts'
import type { OwnerAccount } from '../../local/devnet.ts'
import { disableDelegationCall, sendOwnerCalls } from '../../local/ownerActions.ts'
import type { ProvisionedGolem } from '../../local/provision.ts'
import { startHeartbeatEnv, type HeartbeatEnv } from '../heartbeat/harness.ts'
import { provisionGolemIn } from '../support/provisionGolemIn.ts'

const STRATEGY =
  '---\nname: watched-golem\ncapabilities: [swap]\nbudget: $20/day\nrunway_days: 5\n---\n\nSwap a little USDC into WETH every day.\n'
const signingKey = new AlchemySigningKey('whsec_bardo_local_test_signing_key')
/** Alchemy's store of the webhook variable: the owners `bardo onboard` added, and the zero address. */
const OWNERS_VARIABLE = 'bardo_owners_test'
const watched: Hex[] = [pad(zeroAddress, { size: 32 })]
const watch = (owner: OwnerAccount) => watched.push(pad(owner.address.toLowerCase() as Hex, { size: 32 }))

let env: HeartbeatEnv
let owner: OwnerAccount
let golem: ProvisionedGolem
let invoker: LocalInvoker
let app: ReturnType<typeof createLocalApi>
let revocation: TransactionReceipt
const errors: unknown[] = []

/** The query `bardo deploy` registers for this deployment. */
const query = () =>
  custodyWebhookQuery(
    { delegationManager: env.devnet.deployment.environment.DelegationManager, vitalityOracle: env.devnet.deployment.vitalityOracle },
    OWNERS_VARIABLE,
  )

/** The delivery Alchemy sends for a block: the registered query applied to the block's logs. */
function delivery(id: string, receipt: TransactionReceipt, logs: readonly BlockLog[] = receipt.logs): string {
  return alchemyDelivery({
    id,
    query: query(),
    blockNumber: receipt.blockNumber,
    blockHash: receipt.blockHash,
    logs,
    variable: (name) => (name === OWNERS_VARIABLE ? watched : []),
  })
}

/** Signed with the webhook's key unless a signature (or null: none at all) is given. */
const post = (body: string, signature: string | null = signingKey.sign(body)) =>
  app.request('/api/v1/webhooks/alchemy', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(signature === null ? {} : { 'x-alchemy-signature': signature }) },
    body,
  })

beforeAll(async () => {
  env = await startHeartbeatEnv()
  owner = await env.devnet.createOwner()
  golem = await provisionGolemIn(env, 'watched', {
    owner,
    strategy: STRATEGY,
    runwayDays: 5,
  })
  watch(owner)
  invoker = new LocalInvoker((id) => env.deps(id), { onError: (_id, e) => errors.push(e) })
  app = createLocalApi({
    store: env.store,
    publicClient: env.devnet.publicClient,
    deployment: env.devnet.deployment,
    operator: env.devnet.operator.account,
    settlement: await env.devnet.fundedAccount(),
    config: { rateLimits: { public: 100_000 } },
    alchemyWebhook: { signingKey, invoker },
    onUnexpectedError: (e) => errors.push(e),
  })
  // One ordinary beat first: the Golem has redeemed and its delegation is Active.
  await runHeartbeat({ store: env.store, client: env.client, deployment: env.devnet.deployment, invoker })
  expect(invoker.results.at(-1)).toMatchObject({ golemId: 'watched', revocation: 'Active' })
  revocation = await sendOwnerCalls({
    publicClient: env.client,
    submitter: env.devnet.deployer,
    smartAccount: owner.smartAccount,
    calls: [disableDelegationCall(env.devnet.deployment.environment.DelegationManager, golem.runway.delegation)],
  })
})
afterAll(async () => env?.stop())

describe('POST /api/v1/webhooks/alchemy', () => {
  it('refuses a forged or missing signature with 401, naming the header, and runs nothing', async () => {
    const body = delivery('whevt_revoked', revocation)
    const before = invoker.results.length
    const forged = await post(body, new AlchemySigningKey('whsec_someone_else_entirely').sign(body))
    expect(forged.status).toBe(401)
    expect(await forged.json()).toMatchObject({ code: 'WEBHOOK_BAD_SIGNATURE', message: expect.stringMatching(/^x-alchemy-signature: /) })
    const missing = await post(body, null)
    expect(missing.status).toBe(401)
    expect(await missing.json()).toMatchObject({ code: 'WEBHOOK_BAD_SIGNATURE', message: expect.stringMatching(/is required/) })
    expect(invoker.results.length).toBe(before)
    // The refused id was not claimed: the genuine delivery with it is still acted on (below).
  })

  it('refuses a signed body that is not a delivery with 400, naming the field and the rule', async () => {
    const before = invoker.results.length
    const wrongType = JSON.stringify({ ...JSON.parse(delivery('whevt_type', revocation)), type: 'ADDRESS_ACTIVITY' })
    const res = await post(wrongType)
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'body.type: must be GRAPHQL (a custom webhook)',
      details: { issues: [{ path: 'body.type', rule: 'must be GRAPHQL (a custom webhook)' }] },
    })
    const notJson = await post('{"id":')
    expect(notJson.status).toBe(400)
    expect((await notJson.json()) as { message: string }).toMatchObject({ message: 'body: must be JSON' })
    const stale = JSON.stringify({ ...JSON.parse(delivery('whevt_stale', revocation)), createdAt: '2020-01-01T00:00:00Z' })
    expect(((await (await post(stale)).json()) as { message: string }).message).toBe('body.createdAt: must be within the last 24 hours')
    expect(invoker.results.length).toBe(before)
  })

  it('ticks the revoked Golem at once: RevokedByOwner recorded, and that tick runs the death protocol', async () => {
    const before = invoker.results.length
    const res = await post(delivery('whevt_revoked', revocation))
    expect(res.status).toBe(200)
    const body = (await res.json()) as { woken: unknown[]; signals: number; ignored: number; duplicate: boolean }
    expect(body).toMatchObject({ duplicate: false, signals: 1, woken: [{ golemId: 'watched', reasons: ['DisabledDelegation'] }] })
    // Alchemy delivers only the custody events: the user operation's other logs (EntryPoint, the smart
    // account) never reach the API.
    expect(revocation.logs.length).toBeGreaterThan(1)
    expect(body.ignored).toBe(0)
    expect(invoker.results.length).toBe(before + 1)
    expect(invoker.results.at(-1)).toMatchObject({
      golemId: 'watched',
      outcome: 'died',
      events: expect.arrayContaining(['DelegationRevoked', 'DeathProtocolStarted']),
    })
    const health = await app.request('/api/v1/golems/watched/permission-health')
    expect(await health.json()).toMatchObject({ golemId: 'watched', health: 'dead' })
    expect((await env.store.getDeathSettlement('watched'))?.settlement).toMatchObject({ expiryCause: 'OwnerRevocation' })
    expect(errors).toEqual([])
  })

  it('acts on a delivery id once: a retry or a replay is answered duplicate and runs nothing', async () => {
    const before = invoker.results.length
    const res = await post(delivery('whevt_revoked', revocation))
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ id: 'whevt_revoked', duplicate: true, woken: [] })
    expect(invoker.results.length).toBe(before)
  })

  it('ignores logs of contracts that are not ours, and signals for keys no Golem holds', async () => {
    const before = invoker.results.length
    // A signed delivery that holds them anyway (another query registered at this URL, say).
    const foreign = revocation.logs.map((l) => ({ ...l, address: '0x000000000000000000000000000000000000dEaD' as Hex }))
    const everything = JSON.parse(delivery('whevt_foreign', revocation))
    everything.event.data.block.delegations = foreign.map((l) => ({
      index: l.logIndex,
      data: l.data,
      topics: l.topics,
      account: { address: l.address },
      transaction: { hash: l.transactionHash },
    }))
    const res = await post(JSON.stringify(everything))
    expect(await res.json()).toMatchObject({ duplicate: false, signals: 0, ignored: revocation.logs.length, woken: [] })
    expect(invoker.results.length).toBe(before)
  })

  it("wakes the owner's Golem when a stranger's huge disableDelegations share the revocation's block", async () => {
    const crowdedOwner = await env.devnet.createOwner()
    const crowded = await provisionGolemIn(env, 'crowded', {
      owner: crowdedOwner,
      strategy: STRATEGY,
      runwayDays: 5,
    })
    watch(crowdedOwner)
    const delegationManager = env.devnet.deployment.environment.DelegationManager
    // Anyone may disable delegations they are the delegator of, with caveat terms of any size.
    const stranger = await env.devnet.fundedAccount()
    const wallet = createWalletClient({ account: stranger, chain: env.devnet.chain, transport: http(env.devnet.rpcUrl) })
    const node = env.devnet.publicClient
    await node.request({ method: 'evm_setAutomine' as never, params: [false] as never })
    let receipt: TransactionReceipt
    try {
      for (let salt = 1n; salt <= 8n; salt++) {
        const delegation = {
          delegate: stranger.address,
          delegator: stranger.address,
          authority: ROOT_AUTHORITY,
          caveats: [{ enforcer: stranger.address, terms: `0x${'00'.repeat(80_000)}` as Hex, args: '0x' as Hex }],
          salt: toHex(salt),
          signature: '0x' as Hex,
        }
        await wallet.sendTransaction({
          to: delegationManager,
          data: kit.DelegationManager.encode.disableDelegation({ delegation }),
          gas: 5_000_000n,
        })
      }
      const revoking = sendOwnerCalls({
        publicClient: env.client,
        submitter: env.devnet.deployer,
        smartAccount: crowdedOwner.smartAccount,
        calls: [disableDelegationCall(delegationManager, crowded.runway.delegation)],
      })
      // One block: the stranger's eight transactions and the owner's revocation.
      for (;;) {
        const { pending } = (await node.request({ method: 'txpool_status' as never })) as { pending: Hex }
        if (BigInt(pending) === 9n) break
        await new Promise((done) => setTimeout(done, 20))
      }
      await node.request({ method: 'evm_mine' as never, params: [] as never })
      receipt = await revoking
    } finally {
      await node.request({ method: 'evm_setAutomine' as never, params: [true] as never })
    }
    const blockLogs = await node.getLogs({ blockHash: receipt.blockHash })
    const strangers = blockLogs.filter((l) => l.topics[2] === pad(stranger.address.toLowerCase() as Hex, { size: 32 }))
    expect(strangers).toHaveLength(8)
    // The stranger's DelegationManager logs alone carry over a megabyte of hex: over any body limit the API sets.
    expect(strangers.reduce((n, l) => n + l.data.length, 0)).toBeGreaterThan(1024 * 1024)

    const before = invoker.results.length
    const res = await post(delivery('whevt_crowded', receipt, blockLogs))
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({
      duplicate: false,
      signals: 1,
      woken: [{ golemId: 'crowded', reasons: ['DisabledDelegation'] }],
    })
    expect(invoker.results.length).toBe(before + 1)
    expect(invoker.results.at(-1)).toMatchObject({
      golemId: 'crowded',
      outcome: 'died',
      events: expect.arrayContaining(['DelegationRevoked']),
    })
    expect(errors).toEqual([])
  })
})
