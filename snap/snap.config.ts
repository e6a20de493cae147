import type { SnapConfig } from '@metamask/snaps-cli'

const config: SnapConfig = {
  // Relative to the workspace: `npm run build` runs here (also as `npm run build -w snap` from the root).
  input: 'src/index.tsx',
  server: { port: 8080 },
  // The Portals whose pages may call the Snap (the local stack's dashboard on port 3003 by default), and the
  // API it reads until a pairing names one (the Portal tells the Snap its API when the owner pairs).
  environment: {
    BARDO_API_URL: process.env.BARDO_API_URL ?? 'http://127.0.0.1:8787',
    BARDO_PORTAL_ORIGINS: process.env.BARDO_PORTAL_ORIGINS ?? 'http://localhost:3003,http://127.0.0.1:3003',
  },
  // viem and the delegation kit reach for Buffer on some paths.
  polyfills: { buffer: true },
}

export default config
