// The local API on a port chosen at start, for the Snap's simulator to pair with (snap/test): anvil with
// the MetaMask framework and the Bardo contracts, one Golem ('atlas') whose owner is a MetaMask Hybrid
// smart account, and the API as the local stack wires it (createLocalApi). Prints one JSON line
// { url, owner, ownerKey } and stops what it started when its stdin closes. The owner key is a devnet key
// made for this run: the simulator signs the pairing text with it as the owner's MetaMask would.
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { MemorySignerResolver } from '../../adapters/signers/memorySignerResolver.ts'
import { InMemoryStore } from '../../adapters/store/index.ts'
import { createLocalApi } from '../../functions/api/local.ts'
import { serveApi } from '../../functions/api/server.ts'
import { startDevnet } from '../../local/devnet.ts'
import { provisionGolem } from '../../local/provision.ts'

process.env.DO_NOT_TRACK ??= '1'
const devnet = await startDevnet()
try {
  const store = new InMemoryStore()
  const ownerKey = generatePrivateKey()
  const owner = await devnet.createOwner({}, privateKeyToAccount(ownerKey))
  await provisionGolem({
    clients: devnet,
    deployment: devnet.deployment,
    store,
    signers: new MemorySignerResolver(devnet.deployment),
    owner,
    golemId: 'atlas',
    strategy: readFileSync(new URL('../../examples/STRATEGY.md', import.meta.url), 'utf8'),
    runwayDays: 30,
  })
  const api = await serveApi(
    createLocalApi({
      store,
      publicClient: devnet.publicClient,
      deployment: devnet.deployment,
      operator: devnet.operator.account,
      settlement: devnet.operator,
    }),
  )
  process.stdout.write(`${JSON.stringify({ url: api.url, owner: owner.address, ownerKey })}\n`)
  process.stdin.resume()
  await once(process.stdin, 'end')
  await api.close()
} finally {
  await devnet.stop()
}
process.exit(0)
