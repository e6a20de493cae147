// The Hono environment of this app: what middleware hands to handlers.
import type { Address } from 'viem'
import type { CladeSession } from '../../core/clade/sessionToken.ts'
import type { GolemView } from './deps.ts'

/** Who is calling, as established by the tier middleware (or the Clade auth middleware). */
export type Principal =
  | { kind: 'public'; ip: string }
  | { kind: 'read'; keyId: string }
  | { kind: 'user'; subject: string }
  | { kind: 'snap'; owner: Address }

export type ApiEnv = {
  Variables: {
    principal: Principal
    clade: CladeSession
    /** Set by the death rules on routes that write to one Golem. */
    golem: GolemView
  }
}
