import type { Delegation } from '@metamask/smart-accounts-kit'
import {
  hashTypedData,
  keccak256,
  type Address,
  type Hash,
  type Hex,
  type LocalAccount,
  type TransactionSerializable,
  type TypedDataDefinition,
} from 'viem'
import { toAccount } from 'viem/accounts'
import { councilProposalTypedData } from '../council/proposal.ts'
import { checkCouncilSigningRequest, type CouncilSigningRequest } from './councilPolicy.ts'
import { SignerPolicyError } from './errors.ts'
import {
  assertPolicyConfig,
  checkDelegationTypedData,
  classifyTransaction,
  type SignerPolicyConfig,
  type SigningPurpose,
  type TransactionPurpose,
} from './policy.ts'
import type { RawSigner, RawSignerKind, SignTransactionOptions } from './rawSigner.ts'
import {
  checkPaymentTypedData,
  MemoryPaymentLedger,
  paymentTypedData,
  type PaymentAuthorization,
  type PaymentLedger,
  type PaymentPolicy,
} from './paymentPolicy.ts'
import { checkPaymentDelegationTypedData, isOpenDelegation } from './paymentDelegation.ts'
import { redact } from './redact.ts'
import { delegationTypedData } from '../delegations/typedData.ts'

function frozenPayments(p: PaymentPolicy): PaymentPolicy {
  const d = p.delegation
  return Object.freeze({
    ...p,
    payees: Object.freeze([...p.payees]),
    ...(d === undefined
      ? {}
      : {
          delegation: Object.freeze({
            redeemers: Object.freeze([...d.redeemers]),
            grants: Object.freeze([...d.grants]),
            enforcers: Object.freeze({ ...d.enforcers }),
          }),
        }),
  })
}

/** Told about every signature a GolemSigner produces (a SessionKey counts and budgets them). */
export interface OperationRecorder {
  assertUsable(): void
  recordOperation(op: { opHash: Hash; purpose: SigningPurpose; spent: bigint }): void
}

export type GolemSignerParameters = {
  signer: RawSigner
  policy: SignerPolicyConfig
  recorder?: OperationRecorder | undefined
  /** What the key already authorized per payment period; default a ledger of this signer alone. */
  paymentLedger?: PaymentLedger | undefined
  /** The clock the payment window and period are judged by (unix seconds); default the wall clock. */
  now?: (() => bigint) | undefined
}

export type UnsignedDelegation = Omit<Delegation, 'signature'> & { signature?: Hex }

/**
 * The only signer the rest of the system gets. It signs exactly what a Golem may sign: delegation
 * redemptions, disables of its own sub-delegations, updates to its own oracles, transfers of its
 * unspent funds back to its owner, Replicant sub-delegations, payments of its own costs to configured
 * payees within bounds (EIP-3009 from the key, or by delegation from the owner's grant where allowed), and council proposals it has checked, for councils it sits on. There is no message, raw-hash or authorization path; `account` is a viem Account
 * whose transaction and typed-data signing run through the same checks.
 */
export class GolemSigner {
  readonly address: Address
  readonly kind: RawSignerKind
  readonly account: LocalAccount
  readonly policy: Readonly<SignerPolicyConfig>
  #raw: RawSigner
  #recorder: OperationRecorder | undefined
  #ledger: PaymentLedger
  #now: () => bigint

  constructor({ signer, policy, recorder, paymentLedger, now }: GolemSignerParameters) {
    assertPolicyConfig(policy)
    this.#raw = signer
    this.#recorder = recorder
    this.#ledger = paymentLedger ?? new MemoryPaymentLedger()
    this.#now = now ?? (() => BigInt(Math.floor(Date.now() / 1000)))
    this.address = signer.address
    this.kind = signer.kind
    this.policy = Object.freeze({
      ...policy,
      ...(policy.payments === undefined ? {} : { payments: frozenPayments(policy.payments) }),
      oracles: Object.freeze({ ...policy.oracles }),
      ...(policy.returnTokens === undefined ? {} : { returnTokens: Object.freeze([...policy.returnTokens]) }),
      ...(policy.councils === undefined ? {} : { councils: Object.freeze([...policy.councils]) }),
    })
    const refuse = (what: string) => async (): Promise<never> => {
      throw new SignerPolicyError('no-arbitrary-signing', `${what} is not a signing path of a Golem`)
    }
    const account = toAccount({
      address: signer.address,
      sign: refuse('sign (raw hash)'),
      signMessage: refuse('signMessage'),
      signAuthorization: refuse('signAuthorization (EIP-7702)'),
      signTransaction: (tx, options) =>
        this.#signTransaction(tx as TransactionSerializable, undefined, 0n, options as SignTransactionOptions),
      signTypedData: (td) => this.#signTypedData(td as unknown as TypedDataDefinition),
    })
    this.account = { ...account, ...(signer.publicKey === undefined ? {} : { publicKey: signer.publicKey }) } as LocalAccount
    redact(this, () => ({ kind: this.kind, address: this.address }))
  }

  /** A redeemDelegations call to the DelegationManager. `spent` is what the planner expects it to move. */
  signRedemptionTransaction(tx: TransactionSerializable, options: { spent?: bigint } & SignTransactionOptions = {}): Promise<Hex> {
    return this.#signTransaction(tx, 'redemption', options.spent ?? 0n, options)
  }

  /** A disableDelegation call for a delegation this signer made (death protocol, Replicant cleanup). */
  signDisableDelegation(tx: TransactionSerializable, options: SignTransactionOptions = {}): Promise<Hex> {
    return this.#signTransaction(tx, 'disable-delegation', 0n, options)
  }

  /** Any call to one of this Golem's own oracles (VitalityOracle, DreamOracle, DaimonOracle). */
  signOracleUpdate(tx: TransactionSerializable, options: SignTransactionOptions = {}): Promise<Hex> {
    return this.#signTransaction(tx, 'oracle-update', 0n, options)
  }

  /** An ERC-20 transfer of a configured token to the owner's account (unspent runway going home). */
  signTokenReturn(tx: TransactionSerializable, options: SignTransactionOptions = {}): Promise<Hex> {
    return this.#signTransaction(tx, 'token-return', 0n, options)
  }

  /** A plain native transfer to the owner's account (unspent gas going home). */
  signNativeReturn(tx: TransactionSerializable, options: SignTransactionOptions = {}): Promise<Hex> {
    return this.#signTransaction(tx, 'native-return', 0n, options)
  }

  /**
   * An x402 payment: EIP-3009 TransferWithAuthorization of the configured asset from this key to a
   * configured payee, within the per-payment and per-period bounds. Returns the signature.
   */
  signPaymentAuthorization(authorization: PaymentAuthorization): Promise<Hex> {
    const payments = this.policy.payments
    if (!payments)
      return Promise.reject(new SignerPolicyError('payments-configured', 'this Golem has no payment policy: it signs no payment'))
    return this.#signTypedData(
      paymentTypedData(payments, this.policy.chainId, this.address, authorization) as unknown as TypedDataDefinition,
    )
  }

  /**
   * Co-signs a council proposal (the MultiSigDeleGator's typed data of its user operation): only one
   * whose user operation is exactly its stated action, for a council in the policy, on this chain, and
   * whose action is `request.action`, the one this Golem agreed to. Anything else is refused unsigned.
   */
  async signCouncilProposal(request: CouncilSigningRequest): Promise<Hex> {
    this.#recorder?.assertUsable()
    const proposal = checkCouncilSigningRequest(request, this.policy, this.#now())
    const td = councilProposalTypedData(proposal) as unknown as TypedDataDefinition
    const signature = await this.#raw.signTypedData(td)
    this.#recorder?.recordOperation({ opHash: hashTypedData(td), purpose: 'council-proposal', spent: 0n })
    return signature
  }

  /** Signs a sub-delegation from this signer (EIP-712, DelegationManager domain) and returns it signed. */
  async signDelegation(delegation: UnsignedDelegation): Promise<Delegation> {
    const signature = await this.#signTypedData(this.delegationTypedData(delegation))
    return { ...delegation, signature }
  }

  /** The EIP-712 payload signDelegation signs, built as the smart-accounts-kit builds it. */
  delegationTypedData(delegation: UnsignedDelegation): TypedDataDefinition {
    return delegationTypedData(delegation, { chainId: this.policy.chainId, delegationManager: this.policy.delegationManager })
  }

  async #signTransaction(
    tx: TransactionSerializable,
    expected: TransactionPurpose | undefined,
    spent: bigint,
    options?: SignTransactionOptions,
  ): Promise<Hex> {
    this.#recorder?.assertUsable()
    const purpose = classifyTransaction(tx, this.policy, this.address)
    if (expected !== undefined && purpose !== expected)
      throw new SignerPolicyError('purpose-mismatch', `transaction is a ${purpose}, not a ${expected}`)
    if (spent < 0n) throw new SignerPolicyError('spent', 'spent must not be negative')
    const signed = await this.#raw.signTransaction(tx, options)
    this.#recorder?.recordOperation({ opHash: keccak256(signed), purpose, spent })
    return signed
  }

  async #signTypedData(td: TypedDataDefinition): Promise<Hex> {
    this.#recorder?.assertUsable()
    // Three typed-data shapes exist: a payment (EIP-3009), a payment by delegation (an open delegation
    // under the owner's grant, where the policy pays so), and a sub-delegation to a named delegate.
    if ((td as { primaryType?: string }).primaryType === 'TransferWithAuthorization') {
      const payment = checkPaymentTypedData(td as never, this.policy.payments, this.policy.chainId, this.address, this.#now(), (p) =>
        this.#ledger.spent(p),
      )
      const signature = await this.#raw.signTypedData(td)
      this.#ledger.record(payment.period, payment.amount)
      this.#recorder?.recordOperation({ opHash: hashTypedData(td), purpose: 'payment', spent: payment.amount })
      return signature
    }
    if (this.policy.payments?.delegation && isOpenDelegation(td as never)) {
      const payment = checkPaymentDelegationTypedData(td as never, this.policy.payments, this.policy, this.address, this.#now(), (p) =>
        this.#ledger.spent(p),
      )
      const signature = await this.#raw.signTypedData(td)
      this.#ledger.record(payment.period, payment.amount)
      this.#recorder?.recordOperation({ opHash: hashTypedData(td), purpose: 'payment', spent: payment.amount })
      return signature
    }
    checkDelegationTypedData(td as never, this.policy, this.address)
    const signature = await this.#raw.signTypedData(td)
    this.#recorder?.recordOperation({ opHash: hashTypedData(td), purpose: 'sub-delegation', spent: 0n })
    return signature
  }
}
