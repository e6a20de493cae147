// Reads SST's linked resources at run time without the `sst` package: the bundle carries an
// AES-256-GCM encrypted JSON file (zero nonce, tag at the end) and SST_KEY in the environment holds the
// key. Read once per cold start; values never reach a log.
import { createDecipheriv } from 'node:crypto'
import { readFileSync } from 'node:fs'

let cache: Record<string, { value?: string }> | undefined

export function linkedResources(env: NodeJS.ProcessEnv = process.env): Record<string, { value?: string }> {
  if (cache) return cache
  const key = env.SST_KEY
  const file = env.SST_KEY_FILE
  if (!key || !file) return (cache = {})
  const data = readFileSync(file)
  const decipher = createDecipheriv('aes-256-gcm', Buffer.from(key, 'base64'), Buffer.alloc(12, 0))
  decipher.setAuthTag(data.subarray(data.length - 16))
  const plain = Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()])
  return (cache = JSON.parse(plain.toString('utf8')) as Record<string, { value?: string }>)
}

/** A secret by its SST name (RpcUrl, OperatorKey, ...); locally the same value may come from env. */
export function secret(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const value =
    linkedResources(env)[name]?.value ?? env[`BARDO_SECRET_${name.replace(/[A-Z]/g, (c, i: number) => (i ? '_' : '') + c).toUpperCase()}`]
  if (!value) throw new Error(`config: secret ${name} is not linked to this function`)
  return value
}
