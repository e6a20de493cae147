// `npm start`: the local stack on 127.0.0.1. Ctrl-C stops every process it started.
import { runLocalStack } from '../local/runner.ts'

process.env.DO_NOT_TRACK ??= '1'
process.env.PONDER_TELEMETRY_DISABLED ??= 'true'
// Node 20 is supported today; the SDK's notice about 2027 would drown the demo's progress output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true'

await runLocalStack({ log: (line) => process.stdout.write(`${line}\n`) })
