// `npm run soak -- --golems N --minutes M [--days D] [--seed S] [--reorg-rate R] [--kill-rate K] [--refill]`: the soak
// (test/heartbeat/soak.ts) on this machine, its report printed; exits 1 if anything was lost, doubled or
// not conserved.
import { parseArgs } from 'node:util'
import { runSoak, soakLines, SoakOptionsError } from '../test/heartbeat/soak.ts'

process.env.DO_NOT_TRACK = '1'
// Node 20 is supported today; the SDK's notice about 2027 would sit on top of the soak's report.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true'
const { values } = parseArgs({
  options: {
    golems: { type: 'string', default: '20' },
    minutes: { type: 'string', default: '5' },
    days: { type: 'string', default: '3' },
    seed: { type: 'string' },
    'reorg-rate': { type: 'string', default: '0.1' },
    'kill-rate': { type: 'string', default: '0.1' },
    refill: { type: 'boolean', default: false },
  },
})
try {
  const report = await runSoak({
    golems: Number(values.golems),
    minutes: Number(values.minutes),
    runwayDays: Number(values.days),
    reorgRate: Number(values['reorg-rate']),
    killRate: Number(values['kill-rate']),
    refill: values.refill,
    ...(values.seed === undefined ? {} : { seed: Number(values.seed) }),
    log: (line) => console.log(line),
  })
  for (const line of soakLines(report)) console.log(line)
  process.exit(report.held ? 0 : 1)
} catch (error) {
  console.error(error instanceof SoakOptionsError ? error.message : error)
  process.exit(1)
}
