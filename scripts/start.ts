// `npm start`: the local stack on 127.0.0.1. Ctrl-C stops every process it started.
import { runLocalStack } from '../local/runner.ts'

process.env.DO_NOT_TRACK ??= '1'
process.env.PONDER_TELEMETRY_DISABLED ??= 'true'

await runLocalStack({ log: (line) => process.stdout.write(`${line}\n`) })
