// Snap pairing: the first Snap token goes to whoever proves control of the owner account. The Snap asks
// for a challenge, the owner signs its text in MetaMask (personal_sign, from the owner's EOA or smart
// account), and the Snap trades challenge and signature for the token, which from then on rotates on
// every status call. Pairing again replaces the token: the previously paired Snap is signed out.
import { createRoute, z } from '@hono/zod-openapi'
import { cors } from 'hono/cors'
import { getAddress } from 'viem'
import {
  isIssuedSnapPairingChallenge,
  issueSnapPairingChallenge,
  snapPairingMessage,
  SnapPairingSecret,
  type SnapPairingChallenge,
} from '../../../core/snap/pairingChallenge.ts'
import type { ApiDeps } from '../deps.ts'
import { ApiError } from '../errors.ts'
import { apiRouter, errors, jsonBody, ok, security } from '../openapi.ts'
import { addressSchema } from '../schemas.ts'
import { rotateSnapToken } from '../../../core/snap/snapToken.ts'
import { originAllowlist } from './snap.ts'

const unixSeconds = z
  .number()
  .int('must be an integer (unix seconds)')
  .nonnegative('must not be negative')
  .max(2 ** 53 - 1)

export const snapPairingChallengeRequest = z.strictObject({
  owner: addressSchema.meta({ description: "the owner's account (the smart account that owns the Golems)" }),
})

export const snapPairingChallengeSchema = z.strictObject({
  owner: addressSchema,
  chainId: z.number().int().positive(),
  nonce: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, 'must be 32 bytes of 0x-prefixed hex')
    .transform((v) => v.toLowerCase() as `0x${string}`),
  issuedAt: unixSeconds,
  expiresAt: unixSeconds,
})

export const snapPairingChallengeResponse = z.object({
  challenge: snapPairingChallengeSchema,
  message: z.string().meta({ description: 'the exact text to sign with personal_sign' }),
})

export const snapPairingRequest = z.strictObject({
  challenge: snapPairingChallengeSchema,
  signature: z
    .string()
    .regex(/^0x[0-9a-fA-F]+$/, 'must be 0x-prefixed hex')
    .max(20_000, 'must be at most 20000 characters'),
})

export const snapPairingResponse = z.object({
  owner: z.string(),
  token: z.string().meta({ description: 'the first Snap token; it rotates on every /api/snap/status call' }),
  deployment: z
    .record(z.string(), z.unknown())
    .meta({ description: 'public addresses the Snap recognises Bardo by (DelegationManager, VitalityOracle, enforcers)' }),
})

const base = '/api/snap/pairing'
const pairingErrors = { 403: 'ORIGIN_NOT_ALLOWED', 501: 'NOT_IMPLEMENTED (no chain to verify signatures on)' } as const

const challengeRoute = createRoute({
  method: 'post',
  path: `${base}/challenge`,
  operationId: 'createSnapPairingChallenge',
  summary: 'A single-use, short-lived text for the owner to sign before the first Snap token is issued',
  tags: ['snap'],
  security: security('tier'),
  request: { body: jsonBody(snapPairingChallengeRequest) },
  responses: { 200: ok('the challenge and the text to sign', snapPairingChallengeResponse), ...errors(pairingErrors) },
})

const pairRoute = createRoute({
  method: 'post',
  path: base,
  operationId: 'pairSnap',
  summary: "Trades a signed pairing challenge for the owner's first Snap token (replacing any earlier one)",
  tags: ['snap'],
  security: security('tier'),
  request: { body: jsonBody(snapPairingRequest) },
  responses: {
    200: ok('the Snap token and the public addresses of the deployment', snapPairingResponse),
    ...errors({
      ...pairingErrors,
      401: 'SNAP_PAIRING_NOT_ISSUED (not a challenge of this API, or a field was changed) | SNAP_PAIRING_EXPIRED | SNAP_PAIRING_BAD_SIGNATURE (not signed by the owner account) | SNAP_PAIRING_REUSED',
    }),
  },
})

export function snapPairingRoutes(deps: ApiDeps) {
  const secret = new SnapPairingSecret(deps.config.clade.hmacSecret)
  const router = apiRouter()
  // A JSON POST from the Snap is preflighted; the preflight carries no body and is answered here.
  router.use(
    `${base}/*`,
    cors({
      origin: (o) => (deps.config.allowedOrigins.includes(o) ? o : null),
      allowHeaders: ['Content-Type'],
      allowMethods: ['POST'],
      maxAge: 600,
    }),
  )
  // The allowlist before the body is read, as for every Snap route.
  const middleware = originAllowlist(deps.config.allowedOrigins)

  return router
    .openapi({ ...challengeRoute, middleware }, async (c) => {
      const { owner } = c.req.valid('json')
      const challenge = issueSnapPairingChallenge({ secret, owner, chainId: deps.config.chainId, nowMs: deps.clock.now() })
      c.header('Cache-Control', 'no-store')
      return c.json({ challenge, message: snapPairingMessage(challenge) }, 200)
    })
    .openapi({ ...pairRoute, middleware }, async (c) => {
      if (!deps.ownerSignatures || !deps.snapDeployment)
        throw new ApiError('NOT_IMPLEMENTED', 'pairing: this API has no chain to verify owner signatures on')
      const body = c.req.valid('json')
      const challenge: SnapPairingChallenge = { ...body.challenge, owner: getAddress(body.challenge.owner) }
      const now = Math.floor(deps.clock.now() / 1000)
      if (challenge.chainId !== deps.config.chainId || !isIssuedSnapPairingChallenge(secret, challenge)) {
        throw new ApiError('SNAP_PAIRING_NOT_ISSUED', 'challenge: was not issued by this API for this owner and chain')
      }
      if (now >= challenge.expiresAt)
        throw new ApiError('SNAP_PAIRING_EXPIRED', `challenge.expiresAt: expired at ${challenge.expiresAt}, now ${now}`)
      // A contract owner's isValidSignature is a chain read; an error there is a refusal, not a 500.
      const valid = await deps.ownerSignatures
        .verifyMessage({ address: challenge.owner, message: snapPairingMessage(challenge), signature: body.signature as `0x${string}` })
        .catch(() => false)
      if (!valid)
        throw new ApiError('SNAP_PAIRING_BAD_SIGNATURE', `signature: is not the owner ${challenge.owner}'s signature of the challenge text`)
      // Spent only after the signature checks out, so a bad signature cannot burn the owner's challenge.
      if (!(await deps.stores.nonces.useNonce(challenge.nonce, challenge.expiresAt, now))) {
        throw new ApiError('SNAP_PAIRING_REUSED', 'challenge.nonce: was already used; ask for a new challenge')
      }
      const token = await rotateSnapToken(deps.stores.snapTokens, challenge.owner, deps.clock.now())
      c.header('Cache-Control', 'no-store')
      return c.json({ owner: challenge.owner, token, deployment: deps.snapDeployment }, 200)
    })
}
