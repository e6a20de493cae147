// The SessionKey pool: secp256k1 signing keys in AWS KMS (ECC_SECG_P256K1, SIGN_VERIFY). A Golem's
// session key is one key of the pool; its Ethereum address comes from the key's SPKI public key.
// Keys are created at deploy time so the tick's IAM policy can name every one of them: the tick may
// call kms:Sign and kms:GetPublicKey on exactly these ARNs and nothing else in KMS. Provisioning a
// Golem assigns a free key; rotation moves it to another free key; grow the pool with
// BARDO_KEY_POOL_SIZE and redeploy (docs/deploy.md, "KMS keys").
import type { StackConfig } from './config.ts'

export const KEY_SPEC = 'ECC_SECG_P256K1'
export const KEY_USAGE = 'SIGN_VERIFY'
/** The only KMS calls a SessionKey signer makes (custody/kms: GetPublicKey for the address, Sign). */
export const SIGNING_ACTIONS = ['kms:Sign', 'kms:GetPublicKey'] as const

export type KeyPool = {
  keys: PulumiAws.kms.Key[]
  /** Comma-separated key ARNs, in pool order (what the tick receives as BARDO_KMS_KEY_ARNS). */
  arnList: Sst.Output<string>
  signing: Sst.Permission
}

export function createKeyPool(config: StackConfig): KeyPool {
  const keys = Array.from({ length: config.keyPoolSize }, (_, i) => {
    const key = new aws.kms.Key(`SessionKey${i}`, {
      description: `Bardo SessionKey ${i} (${$app.name} ${config.stage})`,
      keyUsage: KEY_USAGE,
      customerMasterKeySpec: KEY_SPEC,
      // Asymmetric keys cannot rotate in place; rotation is a move to another pool key.
      enableKeyRotation: false,
      // A scheduled deletion can be cancelled within the window; a Golem's key deserves the longest.
      deletionWindowInDays: config.production ? 30 : 7,
      tags: { 'bardo:stage': config.stage, 'bardo:role': 'session-key', 'bardo:pool-index': String(i) },
    })
    new aws.kms.Alias(`SessionKey${i}Alias`, { name: `alias/${$app.name}-${config.stage}-session-${i}`, targetKeyId: key.keyId })
    return key
  })
  const arns = keys.map((key) => key.arn)
  return {
    keys,
    arnList: $resolve(arns).apply((list) => list.join(',')),
    signing: { actions: [...SIGNING_ACTIONS], resources: arns },
  }
}
