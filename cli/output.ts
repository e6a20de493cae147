// What the CLI prints: progress lines on stderr as each step finishes, the result on stdout, as
// lines for people or as one JSON document with --json (bigints as decimal strings) for scripts.
export type Writer = { write(text: string): unknown }

export type Output = {
  /** One progress line (stderr), suppressed by --quiet. */
  progress(line: string): void
  /** The command's result: `lines` for people, `data` for --json. */
  result(data: Record<string, unknown>, lines: readonly string[]): void
  /** A refusal or failure: the message for people, `{ error: { code, message } }` for --json. */
  error(code: string, message: string): void
}

export function jsonText(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2)
}

export function createOutput(o: { json: boolean; quiet: boolean; stdout: Writer; stderr: Writer }): Output {
  return {
    progress(line) {
      if (!o.quiet) o.stderr.write(`  ${line}\n`)
    },
    result(data, lines) {
      if (o.json) o.stdout.write(`${jsonText(data)}\n`)
      else for (const line of lines) o.stdout.write(`${line}\n`)
    },
    error(code, message) {
      if (o.json) o.stdout.write(`${jsonText({ error: { code, message } })}\n`)
      o.stderr.write(`bardo: ${message}\n`)
    },
  }
}

/** A chain time (unix seconds) as people read it, in UTC: `2026-11-28 09:30:12 UTC`. */
export function chainTime(seconds: bigint | number): string {
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19).replace('T', ' ')} UTC`
}
