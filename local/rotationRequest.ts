// The owner's request to rotate a Golem whose session key the local stack holds (its keystore) (`bardo rotate`
// against `npm start`): the owner signs a text naming the Golem, its current key and the chain, and the
// stack runs the tick's rotation (app/tick/rotateOnRequest.ts) between two heartbeats. The text names
// the key it rotates away from, so one signature rotates once: a replay names a key already retired.
import type { Address, Hex, PublicClient } from 'viem'
import type { KeyRotation } from '../core/custody/signerResolver.ts'
import { isStackKey, type StackKeys } from './stackKeys.ts'
import { rotatableGolem, rotateOnRequest } from '../app/tick/rotateOnRequest.ts'
import type { TickDeps } from '../app/tick/types.ts'
import { LocalStackError } from './errors.ts'

/** What the owner signs (EIP-191) to have the stack rotate the Golem's key. */
export function localRotationMessage(p: { golemId: string; golemKey: Address; chainId: number }): string {
  return [
    'Bardo: rotate the session key of a Golem on the local stack',
    `Golem: ${p.golemId}`,
    `Current key: ${p.golemKey}`,
    `Chain: ${p.chainId}`,
  ].join('\n')
}

/** A refusal of the rotation route: the field, the rule, and the HTTP status it answers with. */
export class LocalRotationError extends LocalStackError {
  readonly field: string
  readonly rule: string
  readonly status: 403 | 409
  constructor(field: string, rule: string, status: 403 | 409) {
    super('ROTATION_REFUSED', `${field}: ${rule}`, { details: { field, rule } })
    this.field = field
    this.rule = rule
    this.status = status
  }
}

export type LocalRotationOptions = {
  deps: (invocationId: string) => TickDeps & { rotation: KeyRotation }
  /** The stack's own keys: only a Golem whose key is one of them rotates here. */
  keys: Pick<StackKeys, 'dir'>
  client: Pick<PublicClient, 'verifyMessage'>
  chainId: number
  /** The owner whose grants this stack signs (the demo owner): only that owner's Golems rotate here. */
  owner: Address
  /** Runs the rotation between two heartbeats of the stack, never beside a tick. */
  serial: <T>(task: () => Promise<T>) => Promise<T>
  /**
   * Runs once the new key is in force, before the next heartbeat: the stack's own follow-ups (the demo's
   * action grants to the new key). A failure there is reported by the hook; the rotation stands.
   */
  afterRotation?: (r: { golemId: string; from: Address; to: Address }) => Promise<void>
}

export class LocalRotation {
  constructor(private readonly o: LocalRotationOptions) {}

  rotate(golemId: string, signature: Hex): Promise<{ golemId: string; from: Address; to: Address; reason: string }> {
    return this.o.serial(async () => {
      const deps = this.o.deps(`local-rotate-${golemId}-${Date.now()}`)
      const { record, profile } = await rotatableGolem(deps.store, golemId)
      const held = isStackKey(this.o.keys, profile.signer)
      if (!held)
        throw new LocalRotationError(
          'golem',
          `Golem ${golemId}'s key is not held by this stack (${profile.signer.kind}); rotate it where its key is`,
          409,
        )
      if (record.owner.toLowerCase() !== this.o.owner.toLowerCase())
        throw new LocalRotationError(
          'golem',
          `Golem ${golemId} belongs to ${record.owner}; this stack signs grants for ${this.o.owner} only, so that owner's wallet must rotate it`,
          409,
        )
      const message = localRotationMessage({ golemId, golemKey: profile.golemKey, chainId: this.o.chainId })
      // The owner's smart account answers for its signer (ERC-1271); a failing read is a refusal, not a 500.
      const valid = await this.o.client.verifyMessage({ address: record.owner, message, signature }).catch(() => false)
      if (!valid)
        throw new LocalRotationError(
          'signature',
          `is not the owner's (${record.owner}) signature of the rotation text for Golem ${golemId}'s current key ${profile.golemKey} on chain ${this.o.chainId}`,
          403,
        )
      const rotated = await rotateOnRequest(deps, golemId)
      await this.o.afterRotation?.({ golemId, from: rotated.from, to: rotated.to })
      return { golemId, ...rotated }
    })
  }
}
