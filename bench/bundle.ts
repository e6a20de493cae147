// Bench: the Lambda bundles as esbuild builds them for deployment (minified ESM for Node 20, the AWS SDK
// external because the Lambda runtime provides it): the tick's against its goal of 400 KB, and the
// heartbeat's and the API's beside it. Bundle size is cold-start time. The table names the largest
// packages in the tick's bundle (from esbuild's metafile), which is where to look when it grows, and what
// the tick weighs without the x402 packages (the self-extension's payment client and the signer's payment
// policy constant): the part of the gap that client alone accounts for.
//   npx tsx bench/bundle.ts
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build, type Metafile, type Plugin } from 'esbuild'
import { formatInt, formatRatio, formatTable, verdict } from './lib/table.ts'

/** The tick's goal: 400 KB (decimal), minified, AWS SDK external. */
export const TICK_BUNDLE_GOAL_BYTES = 400_000

export const LAMBDA_ENTRIES = {
  tick: 'functions/tick/handler.ts',
  heartbeat: 'functions/heartbeat/handler.ts',
  api: 'functions/api/handler.ts',
} as const

export type BundleSize = { entry: string; bytes: number; bytesWithAwsSdk: number; packages: { name: string; bytes: number }[] }

export type BundleBenchResult = {
  /** The floor: viem's public client over http alone, which any Lambda reading the chain carries. */
  viemFloor: number
  tick: BundleSize
  /** The tick's bytes (minified, AWS SDK external) with every project import of `@x402/*` stubbed out. */
  tickWithoutX402: number
  heartbeat: BundleSize
  api: BundleSize
  goalBytes: number
  /** tick bytes / goal: at most 1 passes. */
  tickRatio: number
  goal: 'PASS' | 'MISS'
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/** Bytes in the output per npm package (or per top-level project folder). */
function byPackage(metafile: Metafile): { name: string; bytes: number }[] {
  const output = Object.values(metafile.outputs)[0]!
  const sizes = new Map<string, number>()
  for (const [file, info] of Object.entries(output.inputs)) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1] ?? file.split('/').slice(0, 2).join('/')
    sizes.set(pkg, (sizes.get(pkg) ?? 0) + info.bytesInOutput)
  }
  return [...sizes.entries()].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes)
}

const VIEM_FLOOR = "import { createPublicClient, http } from 'viem'\nexport const client = createPublicClient({ transport: http() })\n"

/**
 * Resolves the project's own imports of `@x402/*` to an empty (CommonJS, so any name imports) module. `@x402/evm`'s exact client builds
 * viem's whole public client for an optional RPC read, and `@x402/core` builds its zod v3 schemas at
 * import, so a bundler keeps both whatever the tick calls; this measures the tick without them.
 */
const withoutX402: Plugin = {
  name: 'without-x402',
  setup(b) {
    b.onResolve({ filter: /^@x402\// }, (a) => (a.importer.includes('node_modules') ? undefined : { path: a.path, namespace: 'x402-stub' }))
    b.onLoad({ filter: /.*/, namespace: 'x402-stub' }, () => ({ contents: 'module.exports = {}', loader: 'js' }))
  },
}

async function bundle(
  entry: string | { contents: string },
  awsSdkExternal: boolean,
  plugins: Plugin[] = [],
): Promise<{ bytes: number; metafile: Metafile }> {
  const r = await build({
    absWorkingDir: root,
    ...(typeof entry === 'string'
      ? { entryPoints: [entry] }
      : { stdin: { contents: entry.contents, resolveDir: root, loader: 'ts' as const } }),
    bundle: true,
    minify: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    metafile: true,
    outfile: 'bundle.mjs',
    external: awsSdkExternal ? ['@aws-sdk/*', '@smithy/*'] : [],
    logLevel: 'silent',
    plugins,
  })
  return { bytes: r.outputFiles[0]!.contents.byteLength, metafile: r.metafile }
}

/** One entry's bundle; `withoutX402` stubs the project's `@x402/*` imports (see withoutX402). */
export async function measureBundle(entry: string, options: { withoutX402?: boolean } = {}): Promise<BundleSize> {
  const plugins = options.withoutX402 ? [withoutX402] : []
  const [lean, whole] = await Promise.all([bundle(entry, true, plugins), bundle(entry, false, plugins)])
  return { entry, bytes: lean.bytes, bytesWithAwsSdk: whole.bytes, packages: byPackage(lean.metafile) }
}

export async function runBundleBench(o: { log?: (line: string) => void } = {}): Promise<BundleBenchResult> {
  const sizes = {} as Record<keyof typeof LAMBDA_ENTRIES, BundleSize>
  for (const [name, entry] of Object.entries(LAMBDA_ENTRIES) as [keyof typeof LAMBDA_ENTRIES, string][]) {
    o.log?.(`bundling ${entry}`)
    sizes[name] = await measureBundle(entry)
  }
  const viemFloor = (await bundle({ contents: VIEM_FLOOR }, true)).bytes
  const tickWithoutX402 = (await bundle(LAMBDA_ENTRIES.tick, true, [withoutX402])).bytes
  const tickRatio = sizes.tick.bytes / TICK_BUNDLE_GOAL_BYTES
  return { viemFloor, ...sizes, tickWithoutX402, goalBytes: TICK_BUNDLE_GOAL_BYTES, tickRatio, goal: verdict(tickRatio, 1) }
}

const kb = (bytes: number) => `${formatInt(Math.round(bytes / 1000))} KB`

export function formatBundleBench(r: BundleBenchResult): string {
  const rows = (['tick', 'heartbeat', 'api'] as const).map((name) => {
    const s = r[name]
    return [
      `\`${s.entry}\``,
      kb(s.bytes),
      kb(s.bytesWithAwsSdk),
      formatRatio(s.bytes / r.viemFloor, 2),
      name === 'tick' ? `${formatRatio(r.tickRatio, 2)} of ${kb(r.goalBytes)}` : '',
      name === 'tick' ? r.goal : '',
    ]
  })
  const withoutRatio = r.tickWithoutX402 / r.goalBytes
  rows.push(
    [
      'tick without `@x402/*` (self-extension payment client)',
      kb(r.tickWithoutX402),
      '',
      formatRatio(r.tickWithoutX402 / r.viemFloor, 2),
      `${formatRatio(withoutRatio, 2)} of ${kb(r.goalBytes)}`,
      '',
    ],
    ["baseline: viem's public client over http alone", kb(r.viemFloor), '', formatRatio(1, 2), '', ''],
  )
  const top = r.tick.packages.slice(0, 8).map((p) => [p.name, kb(p.bytes)])
  return [
    formatTable(
      [
        'Lambda entry',
        { header: 'minified, AWS SDK external', align: 'right' },
        { header: 'with the AWS SDK', align: 'right' },
        { header: 'vs viem alone', align: 'right' },
        { header: 'vs goal', align: 'right' },
        'goal <= 400 KB',
      ],
      rows,
    ),
    '',
    'Largest parts of the tick bundle:',
    '',
    formatTable(['package or folder', { header: 'bytes', align: 'right' }], top),
  ].join('\n')
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(formatBundleBench(await runBundleBench({ log: (l) => process.stderr.write(`${l}\n`) })))
}
