// How the local stack starts one of its own TypeScript programs as a child process (dynalite, the API,
// the heartbeat scheduler): Node running bin/run.mjs, which runs the program from the kept bundle of
// the project's modules it imports (2 s to start against 4-5 s through tsx), or through tsx where no
// bundle can be had.
import { join } from 'node:path'

const runner = join(import.meta.dirname, '..', 'bin', 'run.mjs')

/** The command and arguments that run the program at `file`. */
export function programCommand(file: string): { command: string; args: string[] } {
  return { command: process.execPath, args: [runner, file] }
}
