// For tests: a signed token with its claims rewritten and its signature kept, as a forger would try.
export function withClaims(token: string, change: (claims: Record<string, unknown>) => Record<string, unknown>): string {
  const prefix = token.slice(0, token.indexOf('eyJ'))
  const [header, payload, signature] = token.slice(prefix.length).split('.') as [string, string, string]
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>
  return `${prefix}${header}.${Buffer.from(JSON.stringify(change(claims))).toString('base64url')}.${signature}`
}
