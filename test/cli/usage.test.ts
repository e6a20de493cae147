// A usage error is printed once, with the command's exit status 2, whoever finds it: commander (a
// missing required option, an unknown command) or the CLI's own checks (a malformed flag).
import { describe, expect, it } from 'vitest'
import { runCli } from '../../cli/bardo.ts'

async function run(argv: string[]) {
  let stdout = ''
  let stderr = ''
  const code = await runCli(argv, {
    env: {},
    stdout: {
      write: (s: string) => {
        stdout += s
        return true
      },
    },
    stderr: {
      write: (s: string) => {
        stderr += s
        return true
      },
    },
  })
  return { code, stdout, stderr }
}

describe('usage errors', () => {
  it.each([
    [['status'], "required option '--golem <id>' not specified"],
    [['status', '--golem', 'BAD_ID'], '--golem: must be 1-63 lowercase letters'],
    [['resume'], "required option '--golem <id>' not specified"],
    [['resume', '--golem', 'BAD_ID'], '--golem: must be 1-63 lowercase letters'],
    [['nonsense'], "unknown command 'nonsense'"],
  ])('%j: printed once, exit 2', async (argv, message) => {
    const r = await run(argv)
    expect(r.code).toBe(2)
    expect(r.stderr.split(message).length - 1).toBe(1)
    expect(r.stdout).toBe('')
  })
})
