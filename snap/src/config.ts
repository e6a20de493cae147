// Build-time settings (snap.config.ts's environment): where the API is and which dapps may call the Snap.
export const API_URL = (process.env.BARDO_API_URL ?? 'http://127.0.0.1:8787').replace(/\/+$/, '')
export const PORTAL_ORIGINS: readonly string[] = (process.env.BARDO_PORTAL_ORIGINS ?? 'http://localhost:3003,http://127.0.0.1:3003')
  .split(',')
  .map((o) => o.trim())
  .filter((o) => o.length > 0)
/** Where the owner signs revocations and renewals (the notification deep links point here). */
export const PORTAL_URL = PORTAL_ORIGINS[0] ?? 'http://localhost:3003'
