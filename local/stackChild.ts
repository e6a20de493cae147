// What each process of the stack (the API, the heartbeat scheduler) opens the same way: the stack's store
// (its dynalite, or the store the environment names) and the signers of the stack's Golems (their keys
// are keystore files under the state directory, Privy wallets where configured; a memory key lives in
// another process and is refused by name).
import { SignersByKind } from '../adapters/signers/signersByKind.ts'
import { privySigners } from '../adapters/signers/privySignerResolver.ts'
import { privySettingsFromEnv } from '../adapters/signers/privySettings.ts'
import { DynamoCouncilStore } from '../adapters/store/index.ts'
import type { BardoDeployment } from '../core/deployment.ts'
import { documentClient, localDynamoClient } from './dynalite.ts'
import { StackKeystoreResolver, stackKeys, type StackKeys } from './stackKeys.ts'
import { openStore } from './store.ts'

/** The stack's store: its dynalite table when the runner named one, else the store the environment names. */
export async function openStackStore(store: { endpoint: string; tableName: string } | undefined, env: NodeJS.ProcessEnv) {
  return store
    ? new DynamoCouncilStore({ client: documentClient(localDynamoClient(store.endpoint)), tableName: store.tableName })
    : (await openStore(env)).store
}

/** The stack's keys and the signers that resolve its Golems' keys by their kind. */
export function stackSigners(
  env: NodeJS.ProcessEnv,
  stateDir: string,
  deployment: BardoDeployment,
): { keys: StackKeys; signers: SignersByKind } {
  const keys = stackKeys(env, stateDir)
  const privy = privySigners(deployment, privySettingsFromEnv(env))
  const signers = new SignersByKind(
    {
      keystore: new StackKeystoreResolver(
        keys,
        deployment,
        env.BARDO_KEYSTORE_PASSPHRASE,
        'start the stack with BARDO_KEYSTORE_PASSPHRASE, or tick them with `bardo run`',
      ),
      ...privy.resolvers,
    },
    { memory: "its key is in the memory of another process: this stack's keys are keystore files", ...privy.missing },
  )
  return { keys, signers }
}
