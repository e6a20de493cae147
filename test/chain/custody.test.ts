// Issue "Custody core", done-means, on anvil: a delegation compiled from examples/STRATEGY.md redeems
// what the strategy allows and is refused what it does not (reason decoded); a KMS-held session key
// sends its own redemption; a LocalKey keystore survives a restart and redeems; a wrong passphrase
// fails cleanly.
import { GetPublicKeyCommand, KMSClient, SignCommand, type SignCommandInput } from '@aws-sdk/client-kms'
import { secp256k1 } from '@noble/curves/secp256k1'
import { mockClient } from 'aws-sdk-client-mock'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { erc20Abi, hexToBytes, parseEther, type Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildGolemDelegation, smartAccountSigner } from '../../core/delegations/index.ts'
import { createGolemSigner } from '../../adapters/signers/index.ts'
import { KeystorePassphraseError, type CustodyMode, type SignerPolicyConfig } from '../../core/custody/index.ts'
import { encodeSecp256k1Spki, encodeDerSignature } from '../support/custody/der.ts'
import { startDevnet, type Devnet, type OwnerAccount } from '../../local/devnet.ts'
import {
  PHASE,
  SELECTOR,
  USDC,
  approveCall,
  chainNow,
  depositCall,
  newGolem,
  newTree,
  ownerDelegation,
  redeem,
  redeemAll,
  redeemRefused,
  compileLocalPlan,
  registerGolem,
  swapCall,
  transferCall,
  updatePhase,
  usdcBalance,
  waitOk,
} from './harness.ts'

let devnet: Devnet
let owner: OwnerAccount
let policy: SignerPolicyConfig
let dir: string
const payee = privateKeyToAccount(generatePrivateKey()).address

beforeAll(async () => {
  devnet = await startDevnet()
  owner = await devnet.createOwner()
  const { environment, vitalityOracle, dreamOracle, daimonOracle } = devnet.deployment
  policy = {
    chainId: devnet.chain.id,
    delegationManager: environment.DelegationManager,
    oracles: { vitality: vitalityOracle, dream: dreamOracle, daimon: daimonOracle },
  }
  dir = await mkdtemp(join(tmpdir(), 'bardo-custody-chain-'))
})
afterAll(async () => {
  await devnet?.stop()
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe('a compiled strategy on-chain', () => {
  it('examples/STRATEGY.md -> plan -> Golem grant: the runway and a swap redeem; a vault deposit, a second runway pull and an out-of-phase action are refused', async () => {
    const golem = await newGolem(devnet)
    const { usdc, weth, router } = devnet.deployment.assets
    const now = await chainNow(devnet)
    const plan = compileLocalPlan(devnet, {
      text: await readFile(new URL('../../examples/STRATEGY.md', import.meta.url), 'utf8'),
      owner: owner.address,
      sessionKey: golem.address,
      now: now,
    })
    expect(plan.capabilities).toEqual(['Swap'])
    expect(plan.dailyUsdcCap).toBe(USDC(25))

    const tree = newTree(devnet, now)
    const grant = buildGolemDelegation({
      tree,
      owner: owner.address,
      golem: golem.address,
      bardo: [{ type: 'golemPhase', golem: golem.address, startTime: BigInt(plan.startTime), endTime: BigInt(plan.expiry - 1) }],
      runway: { token: plan.usdc, periodAmount: plan.dailyUsdcCap, periodDuration: plan.period, startDate: plan.startTime },
      actions: plan.actions,
      approvals: plan.approvals,
    })
    expect(grant.approvals).toHaveLength(1)
    await tree.sign(grant.runway!.hash, smartAccountSigner(owner.smartAccount))
    for (const a of grant.actions!) await tree.sign(a.hash, smartAccountSigner(owner.smartAccount))
    await tree.sign(grant.approvals![0]!.hash, smartAccountSigner(owner.smartAccount))
    const signedRunway = tree.chain(grant.runway!.hash)
    // The exactInputSingle delegation: its recipient pinned to the owner's account.
    const signedActions = tree.chain(grant.actions!.find((a) => a.name === 'Swap: exactInputSingle')!.hash)
    const signedApprovals = tree.chain(grant.approvals![0]!.hash)

    // Allowed: the day's runway to the Golem key, and a swap (approve through the router's approvals
    // delegation, the swap through actions: two single-call redemptions).
    await redeem(devnet, golem, signedRunway, [transferCall(usdc, golem.address, USDC(25))])
    expect(await usdcBalance(devnet, golem.address)).toBe(USDC(25))
    await redeemAll(devnet, golem, [
      { chain: signedApprovals, executions: [approveCall(usdc, router, USDC(30))] },
      {
        chain: signedActions,
        executions: [
          swapCall(devnet, { tokenIn: usdc, tokenOut: weth, amountIn: USDC(30), amountOutMinimum: 0n, recipient: owner.address }),
        ],
      },
    ])
    expect(
      await devnet.publicClient.readContract({ address: weth, abi: erc20Abi, functionName: 'balanceOf', args: [owner.address] }),
    ).toBeGreaterThan(0n)

    // Refused: a vault the strategy never asked for, more runway than the day's cap, and anything in Terminal.
    expect(await redeemRefused(devnet, golem, signedActions, [depositCall(devnet, USDC(1), owner.address)])).toMatchObject({
      name: 'Error',
      args: ['AllowedTargetsEnforcer:target-address-not-allowed'],
    })
    expect(await redeemRefused(devnet, golem, signedRunway, [transferCall(usdc, golem.address, 1n)])).toMatchObject({
      name: 'Error',
      args: ['ERC20PeriodTransferEnforcer:transfer-amount-exceeded'],
    })
    await updatePhase(devnet, golem, PHASE.Terminal, 0)
    expect(await redeemRefused(devnet, golem, signedApprovals, [approveCall(usdc, router, 1n)])).toMatchObject({
      name: 'ActionNotAllowedInPhase',
      args: [golem.address, PHASE.Terminal, SELECTOR.approve, 0x01],
    })
  })
})

describe('a KMS-held session key', () => {
  it('signs and sends its own redemption (aws-sdk-client-mock answering with real secp256k1 DER signatures)', async () => {
    const privateKey = generatePrivateKey()
    const kmsAccount = privateKeyToAccount(privateKey)
    const kms = mockClient(KMSClient)
    const signs: SignCommandInput[] = []
    kms
      .on(GetPublicKeyCommand)
      .resolves({ KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY', PublicKey: encodeSecp256k1Spki(kmsAccount.publicKey) })
    kms.on(SignCommand).callsFake((input: SignCommandInput) => {
      signs.push(input)
      const sig = secp256k1.sign(input.Message!, hexToBytes(privateKey), { lowS: false })
      return { SigningAlgorithm: 'ECDSA_SHA_256', Signature: encodeDerSignature(sig.r, sig.s) }
    })
    try {
      const client = new KMSClient({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } })
      const mode: CustodyMode = {
        mode: 'Delegation',
        smartAccount: owner.address,
        caveatEnforcers: [],
        key: { source: 'kms', keyId: 'alias/golem-kms' },
      }
      const { signer } = await createGolemSigner(mode, { policy, kmsClient: client })
      expect(signer.address).toBe(kmsAccount.address)
      await waitOk(devnet, devnet.deployer.sendTransaction({ to: signer.address, value: parseEther('1') }))
      await registerGolem(devnet, signer.address)
      const { usdc } = devnet.deployment.assets
      const d = await ownerDelegation(devnet, owner, signer.address, {
        targets: [usdc],
        selectors: [SELECTOR.transfer],
        bardo: [{ type: 'golemPhase', golem: signer.address }],
      })
      const receipt = await redeem(devnet, signer.account, [d], [transferCall(usdc, payee, USDC(3))])
      expect(receipt.from.toLowerCase()).toBe(signer.address.toLowerCase())
      expect(await usdcBalance(devnet, payee)).toBe(USDC(3))
      expect(signs.length).toBeGreaterThanOrEqual(1)
      expect(
        signs.every((s) => s.MessageType === 'DIGEST' && s.SigningAlgorithm === 'ECDSA_SHA_256' && s.KeyId === 'alias/golem-kms'),
      ).toBe(true)
    } finally {
      kms.restore()
    }
  })
})

describe('a LocalKey keystore', () => {
  const path = () => join(dir, 'golem', 'session-key.json')
  const mode = (): CustodyMode => ({
    mode: 'LocalKey',
    privateKeyPath: path(),
    delegationBounds: {
      maxDailySpendUsd: 25_000_000n,
      maxTotalCalls: 100,
      expiresAt: 4_000_000_000,
      allowedTargets: [devnet.deployment.assets.usdc],
    },
  })
  let golemAddress: Address

  it('is created, delegated to, and redeems', async () => {
    const first = await createGolemSigner(mode(), {
      policy,
      keystorePassphrase: 'correct horse battery staple',
      createKeystoreIfMissing: true,
      scryptN: 2 ** 12,
      localKeyLifecycle: { expiresAt: 4_000_000_000, initialBudget: 0n },
    })
    golemAddress = first.signer.address
    await waitOk(devnet, devnet.deployer.sendTransaction({ to: golemAddress, value: parseEther('1') }))
    await registerGolem(devnet, golemAddress)
    const { usdc } = devnet.deployment.assets
    const d = await ownerDelegation(devnet, owner, golemAddress, {
      targets: [usdc],
      selectors: [SELECTOR.transfer],
      bardo: [{ type: 'golemPhase', golem: golemAddress }],
    })
    await redeem(devnet, first.signer.account, [d], [transferCall(usdc, payee, 1n)])
    first.sessionKey!.zero() // the process dies: this instance can never sign again

    // Restart: a new signer instance from the file alone.
    const second = await createGolemSigner(mode(), { policy, keystorePassphrase: 'correct horse battery staple' })
    expect(second.signer.address).toBe(golemAddress)
    const before = await usdcBalance(devnet, payee)
    await redeem(devnet, second.signer.account, [d], [transferCall(usdc, payee, 2n)])
    expect(await usdcBalance(devnet, payee)).toBe(before + 2n)
  })

  it('a wrong passphrase fails cleanly: a named error, no key material, nothing sent', async () => {
    const nonce = await devnet.publicClient.getTransactionCount({ address: golemAddress })
    const error = await createGolemSigner(mode(), { policy, keystorePassphrase: 'wrong horse' }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(KeystorePassphraseError)
    expect((error as Error).message).toBe('keystore passphrase is wrong: MAC mismatch')
    const rendered = `${JSON.stringify(error)} ${String(error)} ${(error as Error).stack ?? ''}`
    expect(rendered).not.toMatch(/[0-9a-f]{64}/i)
    expect(await devnet.publicClient.getTransactionCount({ address: golemAddress })).toBe(nonce)
  })
})
