// A Golem's SessionKey in AWS KMS, created when it is needed (at onboarding, at rotation) rather than
// from a pool made at deploy time: ECC_SECG_P256K1 / SIGN_VERIFY, tagged with the stage, the role and the
// Golem id, so the functions' IAM grants signing by tag and names no key. KMS's CreateKey takes no
// idempotency token, so an alias named from the Golem (and the rotation) makes a retry find the key an
// earlier attempt created instead of creating a second one.
import {
  CreateAliasCommand,
  CreateKeyCommand,
  GetPublicKeyCommand,
  ScheduleKeyDeletionCommand,
  type GetPublicKeyCommandOutput,
  type KMSClient,
} from '@aws-sdk/client-kms'
import { publicKeyToAddress } from 'viem/accounts'
import type { Address } from 'viem'
import { KmsSignerError } from '../../core/custody/errors.ts'
import { redactText } from '../../core/custody/redact.ts'
import { parseSpkiPublicKey } from './kmsDer.ts'
import { KEY_SPEC, KEY_USAGE, sessionKeyTags } from './kmsKeyNames.ts'

export type SessionKeyRef = { keyId: string; address: Address }

/** The key an alias names (its ARN and address), or null when the alias does not exist yet. */
export async function findSessionKey(kms: Pick<KMSClient, 'send'>, alias: string): Promise<SessionKeyRef | null> {
  let out: GetPublicKeyCommandOutput
  try {
    out = await kms.send(new GetPublicKeyCommand({ KeyId: alias }))
  } catch (err) {
    if (nameOf(err) === 'NotFoundException') return null
    throw wrap(alias, 'GetPublicKey failed', err)
  }
  if (out.KeySpec !== KEY_SPEC || out.KeyUsage !== KEY_USAGE)
    throw new KmsSignerError(alias, `names a ${out.KeySpec ?? '?'} / ${out.KeyUsage ?? '?'} key, must be ${KEY_SPEC} / ${KEY_USAGE}`)
  if (!out.KeyId || !out.PublicKey) throw new KmsSignerError(alias, 'GetPublicKey returned no KeyId or PublicKey')
  try {
    return { keyId: out.KeyId, address: publicKeyToAddress(parseSpkiPublicKey(out.PublicKey)) }
  } catch (err) {
    throw new KmsSignerError(alias, `public key is not a secp256k1 SPKI: ${(err as Error).message}`)
  }
}

export type EnsureSessionKeyParameters = {
  kms: Pick<KMSClient, 'send'>
  alias: string
  stage: string
  golemId: string
  description: string
  /**
   * Whether a key this call created and then lost the alias race for may be scheduled for deletion (the
   * operator's CLI may; the tick holds no kms:ScheduleKeyDeletion and leaves it tagged for the sweep).
   */
  deleteLoser?: boolean
}

/**
 * The key `alias` names, created (tagged, then named) when there is none. A retry after a crash finds
 * the key by its alias; of two concurrent callers the one whose CreateAlias lands wins and the other
 * uses the winner's key (callers that must create at most one key take a claim in the store first).
 */
export async function ensureSessionKey(p: EnsureSessionKeyParameters): Promise<SessionKeyRef & { created: boolean }> {
  const existing = await findSessionKey(p.kms, p.alias)
  if (existing) return { ...existing, created: false }
  let keyId: string
  try {
    const out = await p.kms.send(
      new CreateKeyCommand({
        KeySpec: KEY_SPEC,
        KeyUsage: KEY_USAGE,
        Description: p.description,
        Tags: sessionKeyTags(p.stage, p.golemId),
      }),
    )
    if (!out.KeyMetadata?.Arn) throw new KmsSignerError(p.alias, 'CreateKey returned no key ARN')
    keyId = out.KeyMetadata.Arn
  } catch (err) {
    throw wrap(p.alias, 'CreateKey failed', err)
  }
  try {
    await p.kms.send(new CreateAliasCommand({ AliasName: p.alias, TargetKeyId: keyId }))
  } catch (err) {
    if (nameOf(err) !== 'AlreadyExistsException') throw wrap(p.alias, 'CreateAlias failed', err)
    if (p.deleteLoser) await p.kms.send(new ScheduleKeyDeletionCommand({ KeyId: keyId, PendingWindowInDays: 7 })).catch(() => undefined)
    const winner = await findSessionKey(p.kms, p.alias)
    if (!winner) throw new KmsSignerError(p.alias, 'CreateAlias reported the alias exists, but it names no key')
    return { ...winner, created: false }
  }
  // KMS authorises a new key's tags eventually (up to minutes): a refusal here leaves the key named, and
  // the caller's retry finds it by the alias.
  const created = await findSessionKey(p.kms, keyId)
  if (!created) throw new KmsSignerError(p.alias, `the key ${keyId} it just created is not found yet; retry`)
  return { ...created, created: true }
}

const nameOf = (err: unknown) => (err as { name?: string } | undefined)?.name

function wrap(keyId: string, what: string, err: unknown): KmsSignerError {
  if (err instanceof KmsSignerError) return err
  return new KmsSignerError(
    keyId,
    `${what}: ${nameOf(err) ?? 'Error'}: ${redactText(String((err as { message?: string })?.message ?? err))}`,
  )
}
