// A bench's positive number option from the command line (`--rounds 5`), or undefined when absent or not one.
export function numberArg(name: string, argv: readonly string[] = process.argv): number | undefined {
  const i = argv.indexOf(`--${name}`)
  const v = i >= 0 ? Number(argv[i + 1]) : undefined
  return v !== undefined && Number.isFinite(v) && v > 0 ? v : undefined
}
