// The names and tags of a stage's SessionKeys in AWS KMS: the aliases a retry finds a key by, and the tags
// the functions' IAM conditions read (a key is the stage's SessionKey by its tags, never by its ARN). No
// AWS SDK here: the stack definitions read the same names when they write the IAM policy.
import type { Address } from 'viem'
import { BardoError } from '../../core/errors.ts'

export const KEY_SPEC = 'ECC_SECG_P256K1'
export const KEY_USAGE = 'SIGN_VERIFY'
/** The tags the functions' IAM conditions read: a key is the stage's SessionKey by these, never by its ARN. */
export const TAG_STAGE = 'bardo:stage'
export const TAG_ROLE = 'bardo:role'
export const TAG_GOLEM = 'bardo:golem'
export const SESSION_KEY_ROLE = 'session-key'
/** The only tag keys a SessionKey carries (the IAM policy refuses any other on CreateKey). */
export const SESSION_KEY_TAG_KEYS = [TAG_STAGE, TAG_ROLE, TAG_GOLEM] as const

const ALIAS_PART = /^[A-Za-z0-9_-]{1,64}$/

/** Where a stage's SessionKey aliases live: `alias/<app>/<stage>`. */
export function sessionKeyAliasPrefix(app: string, stage: string): string {
  for (const [field, value] of [
    ['app', app],
    ['stage', stage],
  ] as const) {
    if (!ALIAS_PART.test(value)) throw new KmsKeyNameError(field, 'must be 1-64 letters, digits, _ or -')
  }
  return `alias/${app}/${stage}`
}

/** The alias of the key a Golem is onboarded with. */
export const onboardingAlias = (prefix: string, golemId: string) => `${checkedPrefix(prefix)}/golem/${checkedGolem(golemId)}`

/** The alias of the key that replaces `oldKey`: a key is rotated away once, so one alias per rotation. */
export const rotationAlias = (prefix: string, golemId: string, oldKey: Address) =>
  `${checkedPrefix(prefix)}/golem/${checkedGolem(golemId)}/after-${oldKey.toLowerCase()}`

/** The stage a prefix names (its last part), for the tags. */
export const stageOfPrefix = (prefix: string) => checkedPrefix(prefix).split('/')[2]!

export const sessionKeyTags = (stage: string, golemId: string): { TagKey: string; TagValue: string }[] => [
  { TagKey: TAG_STAGE, TagValue: stage },
  { TagKey: TAG_ROLE, TagValue: SESSION_KEY_ROLE },
  { TagKey: TAG_GOLEM, TagValue: golemId },
]

/** A name for a key alias that KMS would refuse, or that would fall outside the IAM policy's alias prefix. */
export class KmsKeyNameError extends BardoError {
  readonly field: string
  constructor(field: string, rule: string) {
    super('KMS_KEY_NAME', `${field}: ${rule}`, { details: { field } })
    this.field = field
  }
}

function checkedPrefix(prefix: string): string {
  if (!/^alias\/[A-Za-z0-9_-]{1,64}\/[A-Za-z0-9_-]{1,64}$/.test(prefix))
    throw new KmsKeyNameError('BARDO_KMS_ALIAS_PREFIX', 'must be alias/<app>/<stage> (the stack output sessionKeyAliasPrefix)')
  return prefix
}

function checkedGolem(golemId: string): string {
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(golemId)) throw new KmsKeyNameError('golemId', 'must be 1-63 lowercase letters, digits or dashes')
  return golemId
}
