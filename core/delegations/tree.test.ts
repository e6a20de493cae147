import { ANY_BENEFICIARY, createDelegation, ROOT_AUTHORITY, signDelegation, type Delegation } from '@metamask/smart-accounts-kit'
import { hashDelegation, SIGNABLE_DELEGATION_TYPED_DATA, toDelegationStruct } from '@metamask/smart-accounts-kit/utils'
import { hashStruct, recoverTypedDataAddress, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { createBardoCaveatBuilder } from '../caveats/caveat.ts'
import { AttenuationError, ContradictionError } from '../caveats/errors.ts'
import { DAY, DEC_21_2026, DEPLOYMENT, ENV, FEEDS, LABELS, NOW, ROUTER, USD, WETH } from '../../test/support/caveats/fixtures.ts'
import { DelegationTreeError } from './errors.ts'
import type { DelegationSigner } from './signers.ts'
import { DelegationTree } from './tree.ts'

const CHAIN_ID = 84532
const keySigner =
  (privateKey: Hex): DelegationSigner =>
  (delegation) =>
    signDelegation({ privateKey, delegation, delegationManager: ENV.DelegationManager, chainId: CHAIN_ID })

const ownerKey = generatePrivateKey()
const golemKey = generatePrivateKey()
const OWNER = privateKeyToAccount(ownerKey).address
const GOLEM = privateKeyToAccount(golemKey).address
const REPLICANT = privateKeyToAccount(generatePrivateKey()).address

const clock = (start = NOW) => {
  let t = start
  return { now: () => t, set: (v: bigint) => (t = v) }
}
const newTree = (c = clock()) => new DelegationTree({ environment: ENV, deployment: DEPLOYMENT, now: c.now, labels: LABELS })
const caveats = () => createBardoCaveatBuilder(ENV, DEPLOYMENT)

const root = (daily = 1000, salt: Hex = '0x01'): Delegation =>
  createDelegation({
    environment: ENV,
    from: OWNER,
    to: GOLEM,
    scope: { type: 'functionCall', targets: [ROUTER, WETH], selectors: ['0x04e45aaf'] },
    caveats: caveats()
      .addCaveat('golemPhase', { golem: GOLEM })
      .addCaveat('mortalityTimeWindow', { startTime: NOW, endTime: DEC_21_2026 })
      .addCaveat('dailySpendLimit', { dailyLimitUsd: USD(daily), maxPriceAge: 3600, feeds: FEEDS }),
    salt,
  })

const child = (
  parent: Delegation,
  build: (b: ReturnType<typeof caveats>) => ReturnType<typeof caveats>,
  to = REPLICANT,
  from = GOLEM,
): Delegation => createDelegation({ environment: ENV, from, to, parentDelegation: parent, caveats: build(caveats()), salt: '0x02' })

describe('DelegationTree hashing', () => {
  it("uses the kit's hashDelegation, which is the EIP-712 struct hash of the Delegation type", () => {
    const tree = newTree()
    const d = root()
    const hash = tree.add(d)
    expect(hash).toBe(hashDelegation(d))
    const { signature: _signature, ...message } = toDelegationStruct(d)
    expect(hash).toBe(hashStruct({ data: message, primaryType: 'Delegation', types: SIGNABLE_DELEGATION_TYPED_DATA }))
    expect(tree.hash({ ...d, signature: '0xabcd' })).toBe(hash) // the signature is not part of the hash
  })

  it('adds the same delegation once', () => {
    const tree = newTree()
    expect(tree.add(root())).toBe(tree.add(root()))
    expect(tree.nodes()).toHaveLength(1)
  })
})

describe('DelegationTree checks', () => {
  it('refuses an empty caveat set', () => {
    const empty: Delegation = { delegate: GOLEM, delegator: OWNER, authority: ROOT_AUTHORITY, caveats: [], salt: '0x01', signature: '0x' }
    expect(() => newTree().add(empty)).toThrowError(ContradictionError)
    expect(() => newTree().add(empty)).toThrowError('An empty caveat set grants unrestricted authority, and Bardo never signs one.')
  })

  it('refuses an open delegation', () => {
    expect(() => newTree().add({ ...root(), delegate: ANY_BENEFICIARY })).toThrowError(DelegationTreeError)
  })

  it('refuses a child whose parent is not in the tree', () => {
    const d = child(root(), (b) => b.addCaveat('limitedCalls', { limit: 1 }))
    expect(() => newTree().add(d)).toThrowError(
      `authority ${hashDelegation(root())} names no delegation in this tree; add the parent first`,
    )
  })

  it("refuses a child whose delegator is not the parent's delegate", () => {
    const tree = newTree()
    tree.add(root())
    expect(() => tree.add(child(root(), (b) => b.addCaveat('limitedCalls', { limit: 1 }), REPLICANT, OWNER))).toThrowError(
      `delegator ${OWNER} is not the parent's delegate ${GOLEM}`,
    )
  })

  it('refuses a wider child with one sentence naming the caveat and both values', () => {
    const tree = newTree()
    tree.add(root(1000))
    const wide = child(root(1000), (b) => b.addCaveat('dailySpendLimit', { dailyLimitUsd: USD(2000), maxPriceAge: 3600, feeds: FEEDS }))
    expect(() => tree.add(wide)).toThrowError(AttenuationError)
    expect(() => tree.add(wide)).toThrowError('Child dailySpendLimit $2,000.00/day exceeds parent dailySpendLimit $1,000.00/day.')
    expect(tree.nodes()).toHaveLength(1)
  })

  it('checks a grandchild against the grandparent on caveats the parent lacks', () => {
    const tree = newTree()
    tree.add(root(1000))
    const mid = child(root(1000), (b) => b.addCaveat('limitedCalls', { limit: 50 }))
    tree.add(mid)
    const leaf = child(
      mid,
      (b) => b.addCaveat('dailySpendLimit', { dailyLimitUsd: USD(1500), maxPriceAge: 3600, feeds: FEEDS }),
      GOLEM,
      REPLICANT,
    )
    expect(() => tree.add(leaf)).toThrowError('Child dailySpendLimit $1,500.00/day exceeds ancestor dailySpendLimit $1,000.00/day.')
    const ok = child(mid, (b) => b.addCaveat('limitedCalls', { limit: 10 }), GOLEM, REPLICANT)
    const hash = tree.add(ok)
    expect(tree.chain(hash)).toEqual([ok, mid, root(1000)])
    expect(tree.children(hashDelegation(mid)).map((n) => n.hash)).toEqual([hash])
  })

  it('refuses a child that contradicts what it inherits', () => {
    const tree = newTree()
    tree.add(root())
    const gasChild = child(root(), (b) =>
      b.addCaveat('nativeTokenPeriodTransfer', { periodAmount: 10n ** 16n, periodDuration: 86_400, startDate: Number(NOW) }),
    )
    expect(() => tree.add(gasChild)).toThrowError(
      'valueLte 0 ETH forbids native value, so nativeTokenPeriodTransfer 0.01 ETH/day can never be spent.',
    )
  })
})

describe('DelegationTree signing', () => {
  it("signs through the caller's signer; the signature recovers to the delegator in the DelegationManager domain", async () => {
    const tree = newTree()
    const hash = tree.add(root())
    expect(tree.isSigned(hash)).toBe(false)
    const signed = await tree.sign(hash, keySigner(ownerKey))
    expect(tree.isSigned(hash)).toBe(true)
    expect(tree.get(hash)!.delegation).toEqual(signed)
    const { signature, ...message } = toDelegationStruct(signed)
    const recovered = await recoverTypedDataAddress({
      domain: { name: 'DelegationManager', version: '1', chainId: CHAIN_ID, verifyingContract: ENV.DelegationManager },
      types: SIGNABLE_DELEGATION_TYPED_DATA,
      primaryType: 'Delegation',
      message,
      signature,
    })
    expect(recovered).toBe(OWNER)
  })

  it('checks again at signing time: a window that ended meanwhile is not signed', async () => {
    const c = clock()
    const tree = newTree(c)
    const hash = tree.add(root())
    c.set(DEC_21_2026 + DAY)
    let called = false
    await expect(
      tree.sign(hash, async () => {
        called = true
        return '0x'
      }),
    ).rejects.toThrowError('mortalityTimeWindow already expired at 21 Dec 2026, before now (22 Dec 2026).')
    expect(called).toBe(false)
  })

  it('takes a granted chain as signed, never re-signs it, and refuses an unsigned one', async () => {
    const tree = newTree()
    expect(() => tree.addGranted([root()])).toThrowError(DelegationTreeError)
    const signed = { ...root(), signature: await keySigner(ownerKey)(root()) }
    const hash = tree.addGranted([signed])
    expect(tree.get(hash)!.granted).toBe(true)
    await expect(tree.sign(hash, keySigner(ownerKey))).rejects.toThrowError('was granted already signed')
    expect(() => tree.remove(hash)).toThrowError('is signed; disable it on-chain instead of forgetting it')
  })

  it('removes an unsigned leaf draft, never a node with children', () => {
    const tree = newTree()
    const parent = tree.add(root())
    const leaf = tree.add(child(root(), (b) => b.addCaveat('limitedCalls', { limit: 1 })))
    expect(() => tree.remove(parent)).toThrowError('has children; remove them first')
    tree.remove(leaf)
    tree.remove(parent)
    expect(tree.nodes()).toHaveLength(0)
  })

  it('refuses undecodable terms before anything is signed', () => {
    const bad = {
      ...root(),
      caveats: [...root().caveats, { enforcer: DEPLOYMENT.enforcers.mortalityTimeWindow, terms: '0x01' as Hex, args: '0x00' as Hex }],
    }
    expect(() => newTree().add(bad)).toThrowError(
      'mortalityTimeWindow terms: startTime is missing or truncated: terms are 1 bytes, the head needs 64',
    )
  })

  it('uses the injected clock for defaults', () => {
    expect(newTree(clock(NOW + 5n)).nowSeconds()).toBe(NOW + 5n)
  })
})
