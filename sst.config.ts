// SST app (the pinned `sst` dependency): Bardo Custody on AWS. `npx sst deploy --stage <stage>`
// (docs/deploy.md). The platform types (normally .sst/platform/config.d.ts, which only `sst install`
// can make, from the network) are declared in stacks/sst-env.d.ts. Stacks are imported
// inside run(), as SST requires: sst.config.ts itself may not import at the top level.

export default $config({
  app(input) {
    const production = input?.stage === 'production'
    return {
      name: 'bardo-custody',
      home: 'aws',
      // Production keeps its data (table, database) when the stage is removed, and refuses
      // `sst remove` outright; other stages clean up after themselves.
      removal: production ? 'retain' : 'remove',
      protect: production,
      providers: { aws: { region: process.env.BARDO_AWS_REGION ?? 'us-east-1' } },
    }
  },
  async run() {
    const { loadStackConfig } = await import('./stacks/config.ts')
    const { createSecrets } = await import('./stacks/secrets.ts')
    const { createStorage } = await import('./stacks/storage.ts')
    const { sessionKeyAccess } = await import('./stacks/keys.ts')
    const { createIndexer } = await import('./stacks/indexer.ts')
    const { createFunctions } = await import('./stacks/functions.ts')
    const { createAlarms } = await import('./stacks/alarms.ts')
    const { createDashboard } = await import('./stacks/dashboard.ts')

    const config = loadStackConfig(process.env, $app.stage)
    const secrets = createSecrets()
    const storage = createStorage(config)
    const sessionKeys = sessionKeyAccess(config)
    const indexer = createIndexer(config, secrets)
    const fns = createFunctions({ config, secrets, storage, sessionKeys, indexerUrl: indexer.url })
    const { topic } = createAlarms(config, fns, storage, indexer)
    const dashboard = createDashboard({ config, apiUrl: fns.api.url, indexerUrl: indexer.url })

    return {
      chainId: config.chainId,
      api: fns.api.url,
      dashboard: dashboard.url,
      indexer: indexer.url,
      table: storage.table.name,
      sessionKeyAliasPrefix: sessionKeys.aliasPrefix,
      alarms: topic.arn,
    }
  },
})
