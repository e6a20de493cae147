import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    // snap/ is its own workspace tested with jest (snaps-jest); its suites never run here.
    exclude: ['**/node_modules/**', 'snap/**'],
    // One fast-check seed for the whole run (override with BARDO_PROPERTY_SEED); each file starts from the
    // run's environment, whatever the file before it in the same worker stubbed or set.
    setupFiles: ['test/support/propertySeed.ts', 'test/support/restoreEnvironment.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Suites start their own anvil, dynalite and indexer processes; two cores, so run files in a small pool.
    // With a process per file, a third fork was slower, not faster: the whole run took 1,526 s of vitest
    // against 1,331 s with two, most of it in loading modules (collect 915 s against 496 s summed over
    // files). So is a third lane for the eight stack journeys alone (the threads pool beside core), though
    // they mostly wait on the wall clock: 1,408 s against 1,321 s, the tests' summed time 3,029 s against
    // 1,990 s, as every stack's processes (Ponder, the API, the scheduler) shared the two cores with the
    // forks' loading.
    pool: 'forks',
    poolOptions: {
      // The forks are kept from file to file (the pool's isolation is off), so the packages in node_modules
      // (viem, the kit, zod, the AWS SDK) load once per fork rather than once per file; the suites' project
      // still isolates its files (below): our own modules, and their mocks, start afresh in every file.
      // Vitest 963 s against 1,258 s, collect 90 s against 469 s. Three kept forks are still slower than
      // two (113 files done after 11 min against 129 after 9.6 min): the stacks' processes, not the
      // loading, hold the two cores now.
      forks: { maxForks: 2, minForks: 1, isolate: false },
      // core's project only (below): one worker thread, its files one after another in one module graph.
      threads: { isolate: false, maxThreads: 1, minThreads: 1 },
    },
    env: { DO_NOT_TRACK: '1', PONDER_TELEMETRY_DISABLED: 'true', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    projects: [
      {
        extends: true,
        test: {
          name: 'core',
          include: ['core/**/*.test.ts'],
          // core's suites are pure (no process, no mock, no global state), so one worker thread runs them
          // one after another on the modules it already loaded: importing viem, zod and the kit once per
          // file was most of their time (125 s -> 26 s for the 82 files). Isolation is a pool's setting,
          // so core has a pool of its own.
          pool: 'threads',
        },
      },
      {
        extends: true,
        test: {
          name: 'suites',
          poolOptions: { forks: { isolate: true } },
          // SST's runtime SDK reads the environment once per module (functions/shared/resource.test.ts sets
          // its own): loaded like our modules, afresh in every file, not once per fork.
          server: { deps: { inline: [/node_modules\/sst\/dist\/resource\//] } },
          include: [
            'app/**/*.test.ts',
            'adapters/**/*.test.ts',
            'functions/**/*.test.ts',
            'indexer/**/*.test.ts',
            'local/**/*.test.ts',
            'test/**/*.test.ts',
            'stacks/**/*.test.ts',
            'bench/**/*.test.ts',
            // The page's own modules, type-checked with the page (DOM types).
            'web/test/**/*.test.ts',
          ],
        },
      },
    ],
  },
})
