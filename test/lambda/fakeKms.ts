// The KMS calls Bardo makes, answered the way KMS answers them, for ECC_SECG_P256K1 keys held here:
// GetPublicKey (an SPKI key; by key id, ARN, alias name or alias ARN) and Sign (DER over the digest, high-s
// every other time, so the signer's low-s normalisation is exercised), CreateKey (tags kept, counted),
// CreateAlias (refused when the alias exists) and ScheduleKeyDeletion. Errors carry KMS's exception names.
import { randomUUID } from 'node:crypto'
import {
  CreateAliasCommand,
  CreateKeyCommand,
  GetPublicKeyCommand,
  type KMSClient,
  ScheduleKeyDeletionCommand,
  SignCommand,
} from '@aws-sdk/client-kms'
import type { AwsClientStub } from 'aws-sdk-client-mock'
import { secp256k1 } from '@noble/curves/secp256k1'
import { hexToBytes, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { encodeDerSignature, encodeSecp256k1Spki } from '../support/custody/der.ts'

const N = secp256k1.CURVE.n
export const FAKE_ACCOUNT = '111122223333'
const arnOf = (id: string) => `arn:aws:kms:us-east-1:${FAKE_ACCOUNT}:key/${id}`

export class KmsFault extends Error {
  constructor(name: string, message: string) {
    super(message)
    this.name = name
  }
}

type Input = {
  KeyId?: string
  Message?: Uint8Array
  MessageType?: string
  AliasName?: string
  TargetKeyId?: string
  Tags?: { TagKey: string; TagValue: string }[]
  KeySpec?: string
  KeyUsage?: string
}

export class FakeKms {
  readonly aliases = new Map<string, string>()
  readonly tags = new Map<string, Record<string, string>>()
  readonly created: string[] = []
  readonly scheduledForDeletion: string[] = []
  signCalls = 0
  /** Called before each answer: a test may throw a KmsFault here to refuse one call. */
  fault: ((operation: string, input: Input) => void) | undefined

  /** `keys`: the keys that exist, by key ARN (the record may grow while the fake runs). */
  constructor(readonly keys: Record<string, Hex> = {}) {}

  resolve(keyId: string | undefined): string {
    if (!keyId) throw new KmsFault('ValidationException', 'KeyId is required')
    const alias = keyId.startsWith('alias/') ? keyId : keyId.includes(':alias/') ? keyId.slice(keyId.indexOf('alias/')) : undefined
    const id = alias ? this.aliases.get(alias) : keyId
    if (!id || !this.keys[id]) throw new KmsFault('NotFoundException', `Key '${keyId}' does not exist`)
    return id
  }

  answer(operation: string, input: Input): Record<string, unknown> {
    this.fault?.(operation, input)
    switch (operation) {
      case 'GetPublicKey': {
        const id = this.resolve(input.KeyId)
        return {
          KeyId: id,
          KeySpec: 'ECC_SECG_P256K1',
          KeyUsage: 'SIGN_VERIFY',
          SigningAlgorithms: ['ECDSA_SHA_256'],
          PublicKey: encodeSecp256k1Spki(privateKeyToAccount(this.keys[id]!).publicKey),
        }
      }
      case 'Sign': {
        const id = this.resolve(input.KeyId)
        if (input.MessageType !== 'DIGEST') throw new KmsFault('ValidationException', 'MessageType must be DIGEST')
        const sig = secp256k1.sign(input.Message!, hexToBytes(this.keys[id]!))
        const s = this.signCalls++ % 2 === 0 ? N - sig.s : sig.s
        return { KeyId: id, SigningAlgorithm: 'ECDSA_SHA_256', Signature: encodeDerSignature(sig.r, s) }
      }
      case 'CreateKey': {
        if (input.KeySpec !== 'ECC_SECG_P256K1' || input.KeyUsage !== 'SIGN_VERIFY')
          throw new KmsFault('ValidationException', 'this fake holds ECC_SECG_P256K1 / SIGN_VERIFY keys only')
        const arn = arnOf(randomUUID())
        this.keys[arn] = generatePrivateKey()
        this.tags.set(arn, Object.fromEntries((input.Tags ?? []).map((t) => [t.TagKey, t.TagValue])))
        this.created.push(arn)
        return { KeyMetadata: { KeyId: arn.split('/')[1], Arn: arn, KeySpec: input.KeySpec, KeyUsage: input.KeyUsage } }
      }
      case 'CreateAlias': {
        const name = input.AliasName ?? ''
        if (!/^alias\/[A-Za-z0-9/_-]{1,250}$/.test(name)) throw new KmsFault('ValidationException', `AliasName ${name} is not valid`)
        if (this.aliases.has(name)) throw new KmsFault('AlreadyExistsException', `An alias with the name ${name} already exists`)
        this.aliases.set(name, this.resolve(input.TargetKeyId))
        return {}
      }
      case 'ScheduleKeyDeletion': {
        this.scheduledForDeletion.push(this.resolve(input.KeyId))
        return { KeyId: input.KeyId, KeyState: 'PendingDeletion' }
      }
      default:
        throw new KmsFault('UnknownOperationException', operation)
    }
  }
}

/** Answers every KMS call the mocked client receives from `fake()`, read at each call so a test may replace it. */
export function answerFromFake(kms: AwsClientStub<KMSClient>, fake: () => FakeKms): void {
  for (const [command, operation] of [
    [GetPublicKeyCommand, 'GetPublicKey'],
    [SignCommand, 'Sign'],
    [CreateKeyCommand, 'CreateKey'],
    [CreateAliasCommand, 'CreateAlias'],
    [ScheduleKeyDeletionCommand, 'ScheduleKeyDeletion'],
  ] as const)
    kms.on(command as typeof GetPublicKeyCommand).callsFake(async (input) => fake().answer(operation, input) as never)
}
