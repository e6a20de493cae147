// The owner's side on a development chain: the owner's MetaMask Hybrid smart account from a local owner
// key (BARDO_OWNER_KEY), and the account that submits the owner's user operations to the EntryPoint
// (BARDO_SUBMITTER_KEY, or the owner's own key when it holds ETH). In production the owner's wallet signs.
import type { Account, Address } from 'viem'
import { Implementation, toMetaMaskSmartAccount } from '@metamask/smart-accounts-kit'
import type { OwnerAccount } from '../local/devnet.ts'
import type { CliChain, CliDeployment } from './context.ts'
import { keyFrom } from './context.ts'
import { CliRefusedError } from './errors.ts'

export async function ownerFrom(env: NodeJS.ProcessEnv, chain: CliChain, deployment: CliDeployment): Promise<OwnerAccount> {
  const signer = keyFrom(env, 'BARDO_OWNER_KEY')
  const smartAccount = await toMetaMaskSmartAccount({
    client: chain.publicClient as never,
    implementation: Implementation.Hybrid,
    deployParams: [signer.address, [], [], []],
    deploySalt: '0x',
    signer: { account: signer },
    environment: deployment.environment,
  })
  const code = await chain.publicClient.getCode({ address: smartAccount.address })
  if (!code || code === '0x')
    throw new CliRefusedError(
      'BARDO_OWNER_KEY',
      `the owner's smart account ${smartAccount.address} is not deployed on chain ${chain.chainId}`,
    )
  return { smartAccount, address: smartAccount.address, signer }
}

export function submitterFrom(env: NodeJS.ProcessEnv, owner: OwnerAccount): Account {
  return env.BARDO_SUBMITTER_KEY ? keyFrom(env, 'BARDO_SUBMITTER_KEY') : owner.signer
}

export function assertOwns(owner: OwnerAccount, recordOwner: Address, golemId: string): void {
  if (owner.address.toLowerCase() !== recordOwner.toLowerCase())
    throw new CliRefusedError('BARDO_OWNER_KEY', `its smart account ${owner.address} is not the owner of Golem ${golemId} (${recordOwner})`)
}
