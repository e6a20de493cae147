// The `bardo` executable: runs the CLI on this process's arguments, environment and streams.
import { runCli } from './bardo.ts'

process.env.DO_NOT_TRACK ??= '1'
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true'

process.exitCode = await runCli(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr })
