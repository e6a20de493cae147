// The path an on-chain redemption takes: a viem WalletClient whose account is
// golemSigner.account, sending to the real DelegationManager on anvil.
import { DelegationManager } from '@metamask/delegation-abis'
import { deploySmartAccountsEnvironment } from '@metamask/smart-accounts-kit/utils'
import { withReceiptPolling } from '../../adapters/chain/receipts.ts'
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  http,
  parseEther,
  parseEventLogs,
  recoverTypedDataAddress,
  type Chain,
} from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAnvil, type Anvil } from '../../local/anvil.ts'
import { SessionKeyZeroedError, SignerPolicyError } from './errors.ts'
import { GolemSigner } from './golemSigner.ts'
import { SessionKey } from './sessionKey.ts'
import { subDelegation, typed } from '../../test/support/custody/fixtures.ts'

// Anvil's public test mnemonic: its first account is funded on every anvil chain.
const ANVIL_0 = mnemonicToAccount('test test test test test test test test test test test junk')
let anvil: Anvil
let chain: Chain
let delegationManager: `0x${string}`

beforeAll(async () => {
  anvil = await startAnvil()
  chain = defineChain({
    id: anvil.chainId,
    name: 'anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [anvil.rpcUrl] } },
  })
  const deployer = createWalletClient({ account: ANVIL_0, chain, transport: http(anvil.rpcUrl) })
  const publicClient = withReceiptPolling(createPublicClient({ chain, transport: http(anvil.rpcUrl), pollingInterval: 25 }))
  const env = await deploySmartAccountsEnvironment(deployer, publicClient as never, chain)
  delegationManager = env.DelegationManager
})
afterAll(async () => {
  await anvil?.stop()
})

describe('GolemSigner.account in a viem WalletClient', () => {
  it('sends redeemDelegations and disableDelegation to the DelegationManager; refuses anything else', async () => {
    const sk = SessionKey.generate({ expiresAt: 4_000_000_000, initialBudget: 0n })
    const golem = new GolemSigner({ signer: sk.signer, policy: { chainId: chain.id, delegationManager, oracles: {} }, recorder: sk })
    const publicClient = withReceiptPolling(createPublicClient({ chain, transport: http(anvil.rpcUrl), pollingInterval: 25 }))
    const funder = createWalletClient({ account: ANVIL_0, chain, transport: http(anvil.rpcUrl) })
    await publicClient.waitForTransactionReceipt({ hash: await funder.sendTransaction({ to: golem.address, value: parseEther('1') }) })

    const wallet = createWalletClient({ account: golem.account, chain, transport: http(anvil.rpcUrl) })

    // An empty redemption batch is a valid call: it exercises fill-in (nonce, gas, fees), signing and broadcast.
    const redeem = await wallet.sendTransaction({
      to: delegationManager,
      data: encodeFunctionData({ abi: DelegationManager, functionName: 'redeemDelegations', args: [[], [], []] }),
    })
    const r1 = await publicClient.waitForTransactionReceipt({ hash: redeem })
    expect(r1.status).toBe('success')
    expect(r1.from.toLowerCase()).toBe(golem.address.toLowerCase())

    // The death protocol's disable of a Golem-made sub-delegation (the DelegationManager requires msg.sender == delegator).
    const d = subDelegation(golem.address)
    const disable = await wallet.writeContract({
      address: delegationManager,
      abi: DelegationManager,
      functionName: 'disableDelegation',
      args: [{ ...d, salt: BigInt(d.salt), signature: '0x' }],
    })
    const r2 = await publicClient.waitForTransactionReceipt({ hash: disable })
    expect(r2.status).toBe('success')
    expect(parseEventLogs({ abi: DelegationManager, logs: r2.logs, eventName: 'DisabledDelegation' })).toHaveLength(1)
    expect(sk.operationsSigned).toBe(2)

    // A Replicant sub-delegation through the wallet client's signTypedData.
    const sub = subDelegation(golem.address)
    const signature = await wallet.signTypedData(golem.delegationTypedData(sub) as never)
    expect(await recoverTypedDataAddress({ ...typed(golem.delegationTypedData(sub)), signature })).toBe(golem.address)
    expect(sk.operationsSigned).toBe(3)

    // Anything else fails before a byte is signed or sent.
    const refused = await wallet.sendTransaction({ to: ANVIL_0.address, value: 1n }).catch((e) => e)
    expect(refused.message).toMatch(/signer policy "no-value"/)
    expect(refused.walk((e: unknown) => e instanceof SignerPolicyError)).toMatchObject({ rule: 'no-value' })
    await expect(wallet.signMessage({ message: 'gm' })).rejects.toThrow(/no-arbitrary-signing/)
    expect(sk.operationsSigned).toBe(3)

    // Zeroed (death): the wallet client can no longer send.
    sk.zero()
    const dead = await wallet
      .sendTransaction({
        to: delegationManager,
        data: encodeFunctionData({ abi: DelegationManager, functionName: 'redeemDelegations', args: [[], [], []] }),
      })
      .catch((e) => e)
    expect(dead.message).toMatch(/was zeroed/)
    expect(dead.walk((e: unknown) => e instanceof SessionKeyZeroedError)).toBeInstanceOf(SessionKeyZeroedError)
  })
})
