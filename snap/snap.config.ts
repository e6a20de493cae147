import type { SnapConfig } from '@metamask/snaps-cli'

const config: SnapConfig = {
  // Relative to the workspace: `npm run build` runs here (also as `npm run build -w snap` from the root).
  input: 'src/index.tsx',
  server: { port: 8080 },
  // The API and the Portal a build talks to; the defaults are the local stack (npm start with BARDO_API_PORT=8787).
  environment: {
    BARDO_API_URL: process.env.BARDO_API_URL ?? 'http://127.0.0.1:8787',
    BARDO_PORTAL_ORIGINS: process.env.BARDO_PORTAL_ORIGINS ?? 'http://localhost:3003,http://127.0.0.1:3003',
  },
  // viem and the delegation kit reach for Buffer on some paths.
  polyfills: { buffer: true },
}

export default config
