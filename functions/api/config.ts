// ApiConfig from environment variables (Lambda and the local runner). Errors name the variable and the
// rule, never the value: BARDO_CLADE_HMAC_SECRET must not reach a log through a config error.
import { getAddress, isAddress, type Address, type Hex } from 'viem'
import * as z from 'zod'
import { CLADE_SECRET_MIN_BYTES } from '../../core/clade/secret.ts'
import { BardoError } from '../../core/errors.ts'
import type { ApiConfig } from './deps.ts'

const list = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
const isOrigin = (v: string) => {
  try {
    return new URL(v).origin === v
  } catch {
    return false
  }
}
const address = z
  .string()
  .refine((v) => isAddress(v, { strict: false }), { message: 'must be a 20-byte hex address', abort: true })
  .transform((v): Address => getAddress(v))

const envSchema = z.object({
  BARDO_CHAIN_ID: z.coerce.number('must be a number').int('must be an integer').positive('must be positive'),
  BARDO_CLADE_HMAC_SECRET: z
    .string('is required')
    .regex(/^(0x)?[0-9a-fA-F]+$/, 'must be hex')
    .refine((v) => v.replace(/^0x/, '').length >= CLADE_SECRET_MIN_BYTES * 2, `must be at least ${CLADE_SECRET_MIN_BYTES} bytes`),
  // Compared byte for byte with the Origin header, so each must be an origin exactly as browsers send it.
  BARDO_ALLOWED_ORIGINS: z
    .string()
    .optional()
    .transform(list)
    .pipe(
      z.array(z.string().refine(isOrigin, 'must be a comma-separated list of origins (scheme://host[:port], no path or trailing slash)')),
    ),
  BARDO_READ_API_KEY_HASHES: z
    .string()
    .optional()
    .transform(list)
    .pipe(z.array(z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be SHA-256 hashes (0x + 64 hex), comma-separated'))),
  BARDO_TRUSTED_PROXY_HOPS: z.coerce
    .number('must be a number')
    .int('must be an integer')
    .min(0, 'must not be negative')
    .max(5, 'must be at most 5')
    .default(0),
  BARDO_CLADE_SELF: address.optional(),
})

export function loadApiConfig(env: Record<string, string | undefined>): ApiConfig {
  const parsed = envSchema.safeParse(env)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    // The message and the path only: zod's issue objects can carry the input, i.e. the secret.
    throw new BardoError('INVALID_API_CONFIG', `${issue.path.join('.')}: ${issue.message}`, { details: { field: issue.path.join('.') } })
  }
  const e = parsed.data
  return {
    chainId: e.BARDO_CHAIN_ID,
    allowedOrigins: e.BARDO_ALLOWED_ORIGINS,
    trustedProxyHops: e.BARDO_TRUSTED_PROXY_HOPS,
    readApiKeyHashes: e.BARDO_READ_API_KEY_HASHES.map((h) => h.toLowerCase() as Hex),
    clade: { hmacSecret: Buffer.from(e.BARDO_CLADE_HMAC_SECRET.replace(/^0x/, ''), 'hex'), self: e.BARDO_CLADE_SELF },
  }
}
