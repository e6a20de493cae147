// Jest lives in this workspace only (the repository's own suites run on vitest). snaps-jest installs the
// built bundle (dist/, so `npm run build` first) in its simulator and calls its handlers.
module.exports = {
  preset: '@metamask/snaps-jest',
  testMatch: ['<rootDir>/test/**/*.test.tsx'],
  transform: {
    '^.+\\.(t|j)sx?$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', tsx: true },
          transform: { react: { runtime: 'automatic', importSource: '@metamask/snaps-sdk' } },
        },
      },
    ],
  },
  // zod's locale files are ES modules reached by their own path (core's mini-zod names its English
  // messages so), which jest's CommonJS runtime cannot load untransformed.
  transformIgnorePatterns: ['/node_modules/(?!zod/)'],
  testTimeout: 60_000,
}
