import {
  hashTypedData,
  keccak256,
  serializeSignature,
  serializeTransaction,
  type Address,
  type Hash,
  type Hex,
  type SerializeTransactionFn,
  type Signature,
  type TransactionSerializable,
  type TypedData,
  type TypedDataDefinition,
} from 'viem'

export type RawSignerKind = 'memory' | 'keystore' | 'kms' | 'privy'

export type SignTransactionOptions = { serializer?: SerializeTransactionFn<TransactionSerializable> | undefined }

/**
 * One signing backend (a key in memory, a keystore file, a KMS key, a Privy server wallet).
 * It signs whatever it is given: it is wrapped by a GolemSigner, which decides what may be signed,
 * and is never handed to the rest of the system on its own.
 */
export interface RawSigner {
  readonly kind: RawSignerKind
  readonly address: Address
  /** Uncompressed public key (0x04...), when the backend knows it. */
  readonly publicKey?: Hex
  signTransaction(tx: TransactionSerializable, options?: SignTransactionOptions): Promise<Hex>
  signTypedData(typedData: TypedDataDefinition<TypedData | Record<string, unknown>, string>): Promise<Hex>
}

/** Signs a 32-byte digest; returns a low-s signature with its recovery bit. */
export type DigestSigner = (digest: Hash) => Promise<Signature>

/**
 * Builds the transaction and typed-data halves of a RawSigner from a digest signer, exactly as
 * viem's own private-key account does, so every backend produces byte-identical encodings.
 */
export function fromDigestSigner(params: { kind: RawSignerKind; address: Address; publicKey?: Hex; signDigest: DigestSigner }): RawSigner {
  const { signDigest } = params
  return {
    kind: params.kind,
    address: params.address,
    ...(params.publicKey === undefined ? {} : { publicKey: params.publicKey }),
    async signTransaction(tx, options) {
      const serializer = options?.serializer ?? serializeTransaction
      // Blob transactions sign the payload body without sidecars (EIP-4844 networking form).
      const signable = tx.type === 'eip4844' ? { ...tx, sidecars: false as const } : tx
      const signature = await signDigest(keccak256(await serializer(signable)))
      return serializer(tx, signature)
    },
    async signTypedData(typedData) {
      const signature = await signDigest(hashTypedData(typedData))
      return serializeSignature(signature)
    },
  }
}
