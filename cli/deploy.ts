// `bardo deploy`: the Bardo contracts (oracles and the nine enforcers) from a funded deployer, one
// contract at a time, the deployment file rewritten after each. Idempotent and resumable: a contract the
// file names that has code on the chain is kept, and a contract is deployed again only when it has no
// code or a contract it was built on was deployed again in this run. The MetaMask framework is checked
// (a public chain: the kit's addresses must have code) or, on a chain the kit does not know, deployed
// when --deploy-framework says so. Local test assets (USDC-like token, feeds, vault, router) come with
// --local-assets, for a devnet only.
import { custodyContractsOfDeployment, type CustodyContracts } from '../core/webhooks/index.ts'
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import {
  encodeDeployData,
  encodeFunctionData,
  isAddress,
  isAddressEqual,
  parseEther,
  parseUnits,
  type Account,
  type Address,
  type Hex,
} from 'viem'
import { getSmartAccountsEnvironment, type SmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import { deploySmartAccountsEnvironment } from '@metamask/smart-accounts-kit/utils'
import { estimateGasWithHeadroom } from '../adapters/chain/gasHeadroom.ts'
import * as artifacts from '../contracts/artifacts/index.ts'
import { bardoEnforcerNames } from '../core/deployment.ts'
import { DeploymentError, deploymentJson, parseDeployment, parseDeploymentFile, parsePartialDeployment } from '../core/deploymentSchema.ts'
import type { CliChain } from './context.ts'
import { deploymentSteps } from './deploymentSteps.ts'
import { CliConfigError, CliRefusedError, CliUsageError } from './errors.ts'
import { sendingAs } from './unfunded.ts'

export type DeployOptions = {
  chain: CliChain
  deployer: Account
  /** The VitalityOracle's owner (the platform operator). */
  operator: Address
  /** GolemPhase's action-table owner: a different key from the operator. */
  phaseTableOwner: Address
  /** The file the API, tick and indexer read. */
  file: string
  deployFramework: boolean
  localAssets: boolean
  /** The chain's L2 sequencer uptime feed for the USD-capped enforcers (zero: no check) and its grace period. */
  sequencerUptimeFeed: Address
  sequencerGraceSeconds: bigint
  progress(line: string): void
}

export type DeployResult = {
  file: string
  chainId: number
  deployed: string[]
  kept: string[]
  framework: 'kit' | 'file' | 'deployed'
  deployment: Record<string, unknown>
}

type DeploymentJson = Record<string, unknown> & { enforcers?: Record<string, unknown>; assets?: Record<string, unknown> }

function getPath(doc: DeploymentJson, path: string): unknown {
  const [head, tail] = path.split('.') as [string, string | undefined]
  if (tail === undefined) return doc[head]
  const inner = doc[head]
  return inner && typeof inner === 'object' ? (inner as Record<string, unknown>)[tail] : undefined
}

function setPath(doc: DeploymentJson, path: string, value: unknown): void {
  const [head, tail] = path.split('.') as [string, string | undefined]
  if (tail === undefined) doc[head] = value
  else doc[head] = { ...((doc[head] as Record<string, unknown> | undefined) ?? {}), [tail]: value }
}

/**
 * A deployment file to resume from: any address may be missing (an interrupted deploy wrote some), but
 * every field present must pass the deployment schema.
 */
function readResumable(file: string): DeploymentJson {
  let json: unknown
  try {
    json = JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    throw new CliConfigError('BARDO_DEPLOYMENT', `${file} must be a JSON deployment file`)
  }
  try {
    return deploymentJson(parsePartialDeployment(json, 'BARDO_DEPLOYMENT')) as DeploymentJson
  } catch (error) {
    if (error instanceof DeploymentError) throw new CliConfigError(error.field, error.rule)
    throw error
  }
}

/** Written whole to a temporary file and renamed over the old one: a crash leaves one or the other. */
function writeDeploymentFile(file: string, doc: DeploymentJson): void {
  const tmp = `${file}.tmp-${process.pid}`
  writeFileSync(tmp, `${JSON.stringify(doc, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`)
  renameSync(tmp, file)
}

function frameworkAddresses(env: SmartAccountsEnvironment): { name: string; address: Address }[] {
  return [
    { name: 'DelegationManager', address: env.DelegationManager },
    { name: 'EntryPoint', address: env.EntryPoint },
    { name: 'SimpleFactory', address: env.SimpleFactory },
    ...Object.entries(env.implementations).map(([name, address]) => ({ name: `implementations.${name}`, address: address as Address })),
    ...Object.entries(env.caveatEnforcers).map(([name, address]) => ({ name: `caveatEnforcers.${name}`, address: address as Address })),
  ]
}

/** The deployer pays for every transaction of the deploy. */
function deployerRole(o: DeployOptions) {
  return { chain: o.chain, account: o.deployer.address, variable: 'BARDO_DEPLOYER_KEY', role: 'deploys the contracts' }
}

export async function deployContracts(o: DeployOptions): Promise<DeployResult> {
  if (isAddressEqual(o.operator, o.phaseTableOwner))
    throw new CliUsageError(
      '--phase-table-owner',
      'must be a different address from the operator (one leaked key must not carry both roles)',
    )
  if (o.localAssets && o.chain.chainId !== 31337)
    throw new CliUsageError('--local-assets', `test assets are for a local chain (31337) only, this is chain ${o.chain.chainId}`)
  const { publicClient } = o.chain
  const hasCode = async (address: unknown): Promise<boolean> =>
    typeof address === 'string' && isAddress(address, { strict: false }) && ((await publicClient.getCode({ address })) ?? '0x') !== '0x'

  const doc = existsSync(o.file) ? readResumable(o.file) : {}
  if (doc.chainId !== undefined && doc.chainId !== o.chain.chainId)
    throw new CliRefusedError('BARDO_DEPLOYMENT', `${o.file} is for chain ${String(doc.chainId)}, the RPC is chain ${o.chain.chainId}`)
  const balance = await publicClient.getBalance({ address: o.deployer.address })
  if (balance === 0n)
    throw new CliRefusedError('BARDO_DEPLOYER_KEY', `the deployer ${o.deployer.address} has no ETH on chain ${o.chain.chainId}`)
  doc.chainId = o.chain.chainId
  doc.startBlock ??= (await publicClient.getBlockNumber()).toString()

  // The framework: the kit's addresses on a chain it knows, else the file's, else deployed here.
  let framework: DeployResult['framework']
  let known: SmartAccountsEnvironment | undefined
  try {
    known = getSmartAccountsEnvironment(o.chain.chainId)
  } catch {
    known = undefined
  }
  const wallet = o.chain.wallet(o.deployer)
  if (known) {
    framework = 'kit'
    const missing: string[] = []
    for (const c of frameworkAddresses(known)) if (!(await hasCode(c.address))) missing.push(`${c.name} ${c.address}`)
    if (missing.length > 0)
      throw new CliRefusedError(
        'framework',
        `the MetaMask Delegation Framework is not on chain ${o.chain.chainId}: no code at ${missing.join(', ')}`,
      )
    o.progress(
      `framework    MetaMask Delegation Framework found on chain ${o.chain.chainId} (DelegationManager ${known.DelegationManager})`,
    )
  } else {
    const fromFile = doc.environment as SmartAccountsEnvironment | undefined
    const present =
      fromFile !== undefined && (await Promise.all(frameworkAddresses(fromFile).map((c) => hasCode(c.address)))).every(Boolean)
    if (present) {
      framework = 'file'
      o.progress(`framework    kept from ${o.file} (DelegationManager ${fromFile.DelegationManager})`)
    } else {
      if (!o.deployFramework)
        throw new CliUsageError(
          '--deploy-framework',
          `chain ${o.chain.chainId} is not one the MetaMask kit knows and ${o.file} names no framework with code; pass --deploy-framework to deploy it (a devnet only)`,
        )
      o.progress('framework    deploying the MetaMask Delegation Framework')
      doc.environment = await sendingAs(
        deploySmartAccountsEnvironment(wallet as never, publicClient as never, o.chain.chain),
        deployerRole(o),
      )
      framework = 'deployed'
      writeDeploymentFile(o.file, doc)
      o.progress(`framework    deployed (DelegationManager ${(doc.environment as SmartAccountsEnvironment).DelegationManager})`)
    }
  }

  const deployed: string[] = []
  const kept: string[] = []
  const addresses: Record<string, Address> = {}
  for (const step of deploymentSteps(o)) {
    const current = getPath(doc, step.path)
    const stale = step.dependsOn.some((d) => deployed.includes(d))
    if (!stale && (await hasCode(current))) {
      addresses[step.path] = current as Address
      kept.push(step.path)
      o.progress(`kept         ${step.path.padEnd(30)} ${String(current)}`)
      continue
    }
    const creation = {
      data: encodeDeployData({ abi: step.artifact.abi, bytecode: step.artifact.bytecode, args: step.args(addresses) as never }),
    }
    const hash = await sendingAs(
      estimateGasWithHeadroom(wallet, creation).then((gas) => wallet.sendTransaction({ ...creation, gas })),
      deployerRole(o),
    )
    const receipt = await publicClient.waitForTransactionReceipt({ hash })
    if (receipt.status !== 'success' || !receipt.contractAddress)
      throw new CliRefusedError(step.path, `deployment transaction ${hash} reverted`)
    addresses[step.path] = receipt.contractAddress
    setPath(doc, step.path, receipt.contractAddress)
    // Written after every contract: an interrupted deploy resumes where it stopped.
    writeDeploymentFile(o.file, doc)
    deployed.push(step.path)
    o.progress(`deployed     ${step.path.padEnd(30)} ${receipt.contractAddress}`)
  }
  if (o.localAssets && (deployed.some((p) => p.startsWith('assets.')) || doc.routerReady !== true)) {
    await configureLocalRouter(o, addresses)
    doc.routerReady = true
    writeDeploymentFile(o.file, doc)
    o.progress('assets       router given its price feeds and liquidity')
  }
  for (const name of bardoEnforcerNames)
    if (!addresses[`enforcers.${name}`]) throw new CliRefusedError(`enforcers.${name}`, 'was not deployed')
  // What was written is what every reader reads: the file must pass the deployment schema whole.
  try {
    parseDeploymentFile(JSON.parse(readFileSync(o.file, 'utf8')), { root: 'BARDO_DEPLOYMENT', chainId: o.chain.chainId })
  } catch (error) {
    if (error instanceof DeploymentError) throw new CliRefusedError(error.field, `${error.rule} (in the file just written)`)
    throw error
  }
  return { file: o.file, chainId: o.chain.chainId, deployed, kept, framework, deployment: doc }
}

/** The two contracts whose events the Alchemy webhook watches, from a deployment file's contents. */
export function custodyContractsOf(doc: Record<string, unknown>, chainId: number): CustodyContracts {
  const deployment = parseDeployment(doc, { root: 'BARDO_DEPLOYMENT', chainId, framework: getSmartAccountsEnvironment })
  return custodyContractsOfDeployment(deployment)
}

/** The local swap router prices at the feeds and holds liquidity, so local swaps settle. */
async function configureLocalRouter(o: DeployOptions, d: Record<string, Address>): Promise<void> {
  const x = artifacts
  const wallet = o.chain.wallet(o.deployer)
  const calls: { to: Address; data: Hex }[] = [
    {
      to: d['assets.router']!,
      data: encodeFunctionData({
        abi: x.TestSwapRouterAbi,
        functionName: 'setFeed',
        args: [d['assets.usdc']!, d['assets.usdcUsdFeed']!],
      } as never),
    },
    {
      to: d['assets.router']!,
      data: encodeFunctionData({
        abi: x.TestSwapRouterAbi,
        functionName: 'setFeed',
        args: [d['assets.weth']!, d['assets.ethUsdFeed']!],
      } as never),
    },
    {
      to: d['assets.usdc']!,
      data: encodeFunctionData({
        abi: x.TestUSDCAbi,
        functionName: 'mint',
        args: [d['assets.router']!, parseUnits('10000000', 6)],
      } as never),
    },
    {
      to: d['assets.weth']!,
      data: encodeFunctionData({ abi: x.TestTokenAbi, functionName: 'mint', args: [d['assets.router']!, parseEther('10000')] } as never),
    },
  ]
  // One at a time: the same sender's transactions must reach anvil in nonce order.
  for (const call of calls) {
    const receipt = await o.chain.publicClient.waitForTransactionReceipt({
      hash: await sendingAs(
        estimateGasWithHeadroom(wallet, call).then((gas) => wallet.sendTransaction({ ...call, gas })),
        deployerRole(o),
      ),
    })
    if (receipt.status !== 'success')
      throw new CliRefusedError('assets.router', `configuring the router reverted (${receipt.transactionHash})`)
  }
}
