// Secrets of the deployed functions: SST's linked resources, read with `Resource` from SST's runtime
// SDK (it decrypts the bundle's resource file with SST_KEY, or reads SST_RESOURCE_<Name> variables, on
// first use). The local stack and the tests pass the same values as BARDO_SECRET_<NAME> instead.
// Values never reach a log.
import { Resource } from 'sst/resource'
import type { SecretName } from './secretNames.ts'
import { FunctionConfigError } from './configError.ts'

/** `RpcUrl` -> `BARDO_SECRET_RPC_URL`: the local spelling of a linked secret. */
export function localSecretVariable(name: SecretName): string {
  return `BARDO_SECRET_${name.replace(/[A-Z]/g, (c, i: number) => (i ? '_' : '') + c).toUpperCase()}`
}

/**
 * The linked value of a secret, or undefined when SST links nothing by that name here. `in` asks without
 * throwing: reading an unlinked name from SST's Resource throws its own error.
 */
export function linkedValue(name: SecretName): string | undefined {
  return name in Resource ? Resource[name].value : undefined
}

/** A secret that may be empty ('' when neither SST nor the local environment has it). */
export function optionalSecret(name: SecretName, env: NodeJS.ProcessEnv = process.env): string {
  return linkedValue(name) ?? env[localSecretVariable(name)] ?? ''
}

/** A secret by its SST name (RpcUrl, OperatorKey, ...); locally the same value may come from env. */
export function secret(name: SecretName, env: NodeJS.ProcessEnv = process.env): string {
  const value = optionalSecret(name, env)
  if (!value) throw new FunctionConfigError(`config: secret ${name} is not linked to this function`)
  return value
}
