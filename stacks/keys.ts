// SessionKeys in AWS KMS (ECC_SECG_P256K1, SIGN_VERIFY) are created per Golem when it is onboarded
// (`bardo onboard --kms`) and when its key rotates (the tick), never at deploy time: the stack creates no
// key and names none. What makes a key the stage's SessionKey is its tags (bardo:stage, bardo:role), so
// the tick's IAM policy is a fixed set of tag-conditioned statements, the same for 1 Golem or 100,000,
// and its environment carries only the alias prefix (docs/deploy.md, "KMS keys").
import {
  KEY_SPEC,
  KEY_USAGE,
  SESSION_KEY_ROLE,
  SESSION_KEY_TAG_KEYS,
  sessionKeyAliasPrefix,
  TAG_ROLE,
  TAG_STAGE,
} from '../adapters/signers/kmsKeyNames.ts'
import type { StackConfig } from './config.ts'

export { KEY_SPEC, KEY_USAGE }
/** The only KMS calls a SessionKey signer makes (custody/kms: GetPublicKey for the address, Sign). */
export const SIGNING_ACTIONS = ['kms:Sign', 'kms:GetPublicKey'] as const
/** Every key of the account, in any region: which ones is the conditions' job, never a list of ARNs. */
export const ANY_KEY = 'arn:aws:kms:*:*:key/*'

export type SessionKeyAccess = {
  /** `alias/<app>/<stage>`: what the tick receives as BARDO_KMS_ALIAS_PREFIX (and the stack outputs). */
  aliasPrefix: string
  /** kms:Sign and kms:GetPublicKey on the stage's SessionKeys, by their tags. */
  signing: Sst.Permission[]
  /** What a rotation needs to create its next key: CreateKey and its tags, and the alias that names it. */
  creation: Sst.Permission[]
}

const equals = (variable: string, values: string[]) => ({ test: 'StringEquals', variable, values })

export function sessionKeyAccess(config: StackConfig): SessionKeyAccess {
  const aliasPrefix = sessionKeyAliasPrefix($app.name, config.stage)
  // A key is the stage's SessionKey by its tags, in this account (a key policy elsewhere cannot lend one).
  const isSessionKey = [
    equals(`aws:ResourceTag/${TAG_STAGE}`, [config.stage]),
    equals(`aws:ResourceTag/${TAG_ROLE}`, [SESSION_KEY_ROLE]),
    equals('aws:ResourceAccount', ['${aws:PrincipalAccount}']),
  ]
  // A new key must carry the stage's tags and only the SessionKey tag keys: the tick cannot create a key
  // it could not sign with, nor one another stage or role could.
  const requestTags = [
    equals(`aws:RequestTag/${TAG_STAGE}`, [config.stage]),
    equals(`aws:RequestTag/${TAG_ROLE}`, [SESSION_KEY_ROLE]),
    { test: 'ForAllValues:StringEquals', variable: 'aws:TagKeys', values: [...SESSION_KEY_TAG_KEYS] },
  ]
  return {
    aliasPrefix,
    signing: [{ actions: [...SIGNING_ACTIONS], resources: [ANY_KEY], conditions: [...isSessionKey, equals('kms:KeySpec', [KEY_SPEC])] }],
    creation: [
      {
        actions: ['kms:CreateKey'],
        resources: ['*'],
        conditions: [...requestTags, equals('kms:KeySpec', [KEY_SPEC]), equals('kms:KeyUsage', [KEY_USAGE])],
      },
      // CreateKey's Tags are authorised as kms:TagResource on no particular key (KMS requires that shape).
      { actions: ['kms:TagResource'], resources: [ANY_KEY], conditions: requestTags },
      // CreateAlias is authorised on the alias (only under the stage's prefix) and on the key it names.
      { actions: ['kms:CreateAlias'], resources: [`arn:aws:kms:*:*:${aliasPrefix}/*`] },
      { actions: ['kms:CreateAlias'], resources: [ANY_KEY], conditions: isSessionKey },
    ],
  }
}
