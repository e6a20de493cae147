// The owner's acts drafted by the API for the wallet to sign: a revocation (one user operation from the
// owner's smart account, submitted from the owner's own EOA to EntryPoint.handleOps, no relay), a renewal
// and an adjustment. A draft changes nothing; bad input names the field and the rule.
import { createWalletClient, http, parseEther, type Hex } from 'viem'
import { entryPoint07Abi, toPackedUserOperation } from 'viem/account-abstraction'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { walletJson, walletRequest } from '../web/testWallet.ts'
import { signedUserOperation } from '../../web/src/userOperation.ts'
import { postJson, startApiStack, type ApiStack } from './harness.ts'

let stack: ApiStack
let app: ReturnType<ApiStack['app']>

beforeAll(async () => {
  stack = await startApiStack()
  await stack.provision('atlas')
  await stack.provision('boreas')
  app = stack.app()
}, 120_000)
afterAll(async () => {
  await stack?.stop()
})

type OperationDraft = { userOperation: Record<string, string>; typedData: unknown; entryPoint: Hex }
const body = async <T>(res: Response | Promise<Response>) => (await (await res).json()) as T
const versionOf = async (id: string) => (await stack.store.getGolem(id))!.version

/** The owner signs the draft in the wallet (MetaMask's typed-data rules) and sends handleOps from the owner's own EOA. */
async function signAndSubmit(draft: OperationDraft): Promise<Hex> {
  const { devnet, owner } = stack
  const signature = (await walletRequest(owner.signer, devnet.deployment.chainId, 'eth_signTypedData_v4', [
    owner.signer.address,
    walletJson(draft.typedData),
  ])) as Hex
  const packed = toPackedUserOperation(signedUserOperation(draft, signature))
  const ownerWallet = createWalletClient({ account: owner.signer, chain: devnet.publicClient.chain, transport: http(devnet.rpcUrl) })
  const hash = await ownerWallet.writeContract({
    address: draft.entryPoint,
    abi: entryPoint07Abi,
    functionName: 'handleOps',
    args: [[packed], owner.signer.address],
  })
  await devnet.publicClient.waitForTransactionReceipt({ hash })
  return hash
}

describe('drafts of the owner’s acts', () => {
  it('refuses a revocation draft for no Golem, for ids that are not ids, and for Golems of two owners, naming golems', async () => {
    const before = await versionOf('atlas')
    for (const golems of [[], 'atlas', ['../etc'], Array.from({ length: 51 }, (_, i) => `g${i}`)]) {
      const res = await postJson(app, '/api/v1/revocation-draft', { golems })
      expect(res.status).toBe(400)
      expect(await res.json()).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/^golems: /) })
    }
    const unknown = await postJson(app, '/api/v1/revocation-draft', { golems: ['nobody'] })
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toMatchObject({ code: 'GOLEM_NOT_FOUND' })
    const other = await stack.devnet.createOwner({ eth: parseEther('1'), usdc: 0n })
    await stack.provision('zephyr', { owner: other })
    const mixed = await postJson(app, '/api/v1/revocation-draft', { golems: ['atlas', 'zephyr'] })
    expect(mixed.status).toBe(400)
    expect(await mixed.json()).toMatchObject({ message: 'golems: zephyr has another owner than atlas' })
    expect(await versionOf('atlas')).toBe(before)
  }, 60_000)

  it('drafts a renewal and an adjustment without writing anything, and names a bad amount or end', async () => {
    const before = await versionOf('atlas')
    const renewal = await body<{
      delegation: { signature: string; delegate: string }
      typedData: { primaryType: string }
      expiresAt: number
    }>(postJson(app, '/api/v1/golems/atlas/renewal-draft', {}))
    expect(renewal.typedData.primaryType).toBe('Delegation')
    expect(renewal.delegation.signature).toBe('0x')
    expect(renewal.delegation.delegate.toLowerCase()).toBe((await stack.profile('atlas')).golemKey.toLowerCase())
    const amount = (await stack.profile('atlas')).runway.periodAmount
    for (const [change, field] of [
      [{ periodAmount: (amount * 2n).toString() }, 'periodAmount'],
      [{ periodAmount: '0' }, 'periodAmount'],
      [{ periodAmount: 12 }, 'periodAmount'],
      [{ endsAt: 'soon' }, 'endsAt'],
      [{ endsAt: 1 }, 'endsAt'],
      [{}, 'periodAmount'],
    ] as const) {
      const res = await postJson(app, '/api/v1/golems/atlas/adjustment-draft', change)
      expect(res.status, JSON.stringify(change)).toBe(400)
      expect(await res.json()).toMatchObject({ code: 'VALIDATION_FAILED', details: { field } })
    }
    const adjustment = await body<{ periodAmount: string; disable: OperationDraft & { grants: string[] } }>(
      postJson(app, '/api/v1/golems/atlas/adjustment-draft', { periodAmount: (amount / 2n).toString() }),
    )
    expect(adjustment.periodAmount).toBe((amount / 2n).toString())
    expect(adjustment.disable.grants.length).toBeGreaterThan(0)
    expect(adjustment.disable.entryPoint).toBe(stack.devnet.deployment.environment.EntryPoint)
    const missing = await postJson(app, '/api/v1/golems/nobody/renewal-draft', {})
    expect(missing.status).toBe(404)
    expect(await versionOf('atlas')).toBe(before)
  }, 60_000)

  it("revokes with the owner's own account: the draft signed in the wallet and sent to handleOps by the owner's EOA, no relay", async () => {
    const { devnet, owner } = stack
    // The owner's EOA holds ETH, as a MetaMask user's does: it pays the transaction's gas.
    await devnet.publicClient.waitForTransactionReceipt({
      hash: await devnet.deployer.sendTransaction({ to: owner.signer.address, value: parseEther('1') }),
    })
    const draft = await body<OperationDraft & { grants: { kind: string }[] }>(
      postJson(app, '/api/v1/revocation-draft', { golems: ['boreas'] }),
    )
    expect(new Set(draft.grants.map((g) => g.kind))).toContain('runway')
    // A stranger's signature on the same operation: the owner's smart account refuses it, nothing changes.
    const stranger = privateKeyToAccount(generatePrivateKey())
    const forged = { ...draft }
    await expect(
      (async () => {
        const signature = (await walletRequest(stranger, devnet.deployment.chainId, 'eth_signTypedData_v4', [
          stranger.address,
          walletJson(forged.typedData),
        ])) as Hex
        await devnet.publicClient.simulateContract({
          address: forged.entryPoint,
          abi: entryPoint07Abi,
          functionName: 'handleOps',
          account: owner.signer.address,
          args: [[toPackedUserOperation(signedUserOperation(draft, signature))], owner.signer.address],
        })
      })(),
    ).rejects.toThrow(/AA24 signature error/)
    const hash = await signAndSubmit(draft)
    const tx = await devnet.publicClient.getTransaction({ hash })
    expect(tx.from.toLowerCase()).toBe(owner.signer.address.toLowerCase())
    const plan = await body<{ calls: unknown[]; alreadyDisabled: string[] }>(app.request('/api/v1/golems/boreas/revocation'))
    expect(plan.calls).toEqual([])
    expect(plan.alreadyDisabled).toHaveLength(draft.grants.length)
    const again = await postJson(app, '/api/v1/revocation-draft', { golems: ['boreas'] })
    expect(again.status).toBe(409)
    expect(await again.json()).toMatchObject({ code: 'NOTHING_TO_REVOKE', message: 'golems: every grant is disabled already' })
  }, 60_000)
})
