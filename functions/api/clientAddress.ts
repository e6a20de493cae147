// The caller's IP for per-IP limits. X-Forwarded-For is only believed as far as configured proxies go.
import type { Context } from 'hono'

type RuntimeEnv = {
  incoming?: { socket?: { remoteAddress?: string } } // @hono/node-server
  requestContext?: { http?: { sourceIp?: string }; identity?: { sourceIp?: string } } // hono/aws-lambda
}

/**
 * With `trustedProxyHops` = n > 0, the address the outermost trusted proxy saw: the n-th entry from the
 * right of X-Forwarded-For. Not the leftmost entry: a client can send its own X-Forwarded-For, and
 * proxies append to it, so the left end is whatever the client wrote and would give it a fresh
 * bucket per request. With 0, the socket (or the Lambda event's source IP).
 */
export function clientAddress(c: Context, trustedProxyHops: number): string {
  if (trustedProxyHops > 0) {
    const hops = (c.req.header('x-forwarded-for') ?? '')
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean)
    const seen = hops[Math.max(0, hops.length - trustedProxyHops)]
    if (seen) return seen
  }
  const env = (c.env ?? {}) as RuntimeEnv
  return env.incoming?.socket?.remoteAddress ?? env.requestContext?.http?.sourceIp ?? env.requestContext?.identity?.sourceIp ?? 'unknown'
}
