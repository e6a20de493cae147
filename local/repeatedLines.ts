// The console's answer to a line that comes back beat after beat (a refusal the Golem keeps meeting):
// printed once, then, when another line comes or the stream ends, how many times it came in all
// (`… refused ×37`), instead of the same line every beat. Lines are the same when their keys are: a
// refusal's key is its reason, so requests that differ only in their amounts are counted together.
export class RepeatedLines {
  #last: string | undefined
  #lastKey: string | undefined
  #count = 0
  constructor(private readonly indent = '') {}

  /** The lines to print for `line`: none while its key repeats the key of the line before. */
  next(line: string, key: string = line): string[] {
    if (this.#last !== undefined && key === this.#lastKey) {
      this.#count++
      return []
    }
    const out = this.flush()
    this.#last = line
    this.#lastKey = key
    this.#count = 1
    return [...out, line]
  }

  /** The count of a run of repeats still open (at the Golem's death, or when the stack stops); then a fresh start. */
  flush(): string[] {
    const last = this.#last
    const count = this.#count
    this.#last = undefined
    this.#lastKey = undefined
    this.#count = 0
    if (last === undefined || count < 2) return []
    const what = /\brefused\b/.test(last) ? 'refused' : /\bfailed\b/.test(last) ? 'failed' : 'repeated'
    return [`${this.indent}… ${what} ×${count}`]
  }
}

/** A strategy line's key: for a refusal, what refused it and why; any other line is its own key. */
export function refusalKey(line: string): string {
  const at = line.indexOf(': refused by ')
  return at === -1 ? line : line.slice(at)
}
