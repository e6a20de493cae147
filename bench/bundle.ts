// Bench: the Lambda bundles as esbuild builds them for deployment (minified ESM for Node 20, the AWS SDK
// external because the Lambda runtime provides it), each against the goal of 400 KB. Bundle size is
// cold-start time. The tables name the largest packages in each bundle (from esbuild's metafile), which is
// where to look when one grows.
//   npx tsx bench/bundle.ts
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build, type Metafile } from 'esbuild'
import { formatInt, formatRatio, formatTable, verdict } from './lib/table.ts'

/** The tick's goal: 400 KB (decimal), minified, AWS SDK external. */
export const TICK_BUNDLE_GOAL_BYTES = 400_000

export const LAMBDA_ENTRIES = {
  tick: 'functions/tick/handler.ts',
  heartbeat: 'functions/heartbeat/handler.ts',
  walker: 'functions/walker/handler.ts',
  api: 'functions/api/handler.ts',
} as const

export type BundleSize = { entry: string; bytes: number; bytesWithAwsSdk: number; packages: { name: string; bytes: number }[] }

export type BundleBenchResult = {
  /** The floor: viem's public client over http alone, which any Lambda reading the chain carries. */
  viemFloor: number
  /**
   * An empty app of @hono/zod-openapi, the API's router: what any Lambda serving routes declared with it
   * carries. It hands zod's whole namespace to zod-to-openapi, so every locale zod ships comes with it.
   */
  openApiFloor: number
  /**
   * The least an x402 settlement can be: @x402/core's facilitator with @x402/evm's `exact` scheme, its
   * signer over the six viem actions it calls on a bare client. The paid routes verify and settle in the
   * API's own process, so the API carries at least this (more as it is: viem's whole public and wallet
   * clients).
   */
  x402Floor: number
  tick: BundleSize
  heartbeat: BundleSize
  walker: BundleSize
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

/** The baseline: viem's public client over http alone. */
export const VIEM_FLOOR =
  "import { createPublicClient, http } from 'viem'\nexport const client = createPublicClient({ transport: http() })\n"

/**
 * The least an x402 settlement can be: the stock facilitator and `exact` scheme, nothing of Bardo's, its
 * signer over only the viem actions the scheme calls (viem's whole public and wallet clients, as the API
 * builds them, add about 75 KB).
 */
export const X402_FLOOR = [
  "import { x402Facilitator } from '@x402/core/facilitator'",
  "import { toFacilitatorEvmSigner } from '@x402/evm'",
  "import { ExactEvmScheme } from '@x402/evm/exact/facilitator'",
  "import { createClient, http } from 'viem'",
  "import { privateKeyToAccount } from 'viem/accounts'",
  "import { getCode, readContract, sendTransaction, verifyTypedData, waitForTransactionReceipt, writeContract } from 'viem/actions'",
  'const account = privateKeyToAccount(process.env.KEY as `0x${string}`)',
  'const client = createClient({ account, transport: http() })',
  'const signer = toFacilitatorEvmSigner({',
  '  address: account.address,',
  '  readContract: (a) => readContract(client, a as never),',
  '  verifyTypedData: (a) => verifyTypedData(client, a as never),',
  '  writeContract: (a) => writeContract(client, a as never),',
  '  sendTransaction: (a) => sendTransaction(client, a as never),',
  '  waitForTransactionReceipt: (a) => waitForTransactionReceipt(client, a),',
  '  getCode: (a) => getCode(client, a),',
  '})',
  "export const facilitator = new x402Facilitator().register('eip155:8453', new ExactEvmScheme(signer))",
  '',
].join('\n')

/** The API's router alone: an empty @hono/zod-openapi app. */
export const OPENAPI_FLOOR = "import { OpenAPIHono } from '@hono/zod-openapi'\nexport const app = new OpenAPIHono()\n"

async function bundle(entry: string | { contents: string }, awsSdkExternal: boolean): Promise<{ bytes: number; metafile: Metafile }> {
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
  })
  return { bytes: r.outputFiles[0]!.contents.byteLength, metafile: r.metafile }
}

/** The bytes of `contents` (TypeScript; imports resolve from the project root) bundled as a Lambda is. */
export const bundledBytes = async (contents: string): Promise<number> => (await bundle({ contents }, true)).bytes

/** One entry's bundle. */
export async function measureBundle(entry: string): Promise<BundleSize> {
  const [lean, whole] = await Promise.all([bundle(entry, true), bundle(entry, false)])
  return { entry, bytes: lean.bytes, bytesWithAwsSdk: whole.bytes, packages: byPackage(lean.metafile) }
}

export async function runBundleBench(o: { log?: (line: string) => void } = {}): Promise<BundleBenchResult> {
  const sizes = {} as Record<keyof typeof LAMBDA_ENTRIES, BundleSize>
  for (const [name, entry] of Object.entries(LAMBDA_ENTRIES) as [keyof typeof LAMBDA_ENTRIES, string][]) {
    o.log?.(`bundling ${entry}`)
    sizes[name] = await measureBundle(entry)
  }
  const viemFloor = await bundledBytes(VIEM_FLOOR)
  const openApiFloor = await bundledBytes(OPENAPI_FLOOR)
  const x402Floor = await bundledBytes(X402_FLOOR)
  const tickRatio = sizes.tick.bytes / TICK_BUNDLE_GOAL_BYTES
  return { viemFloor, openApiFloor, x402Floor, ...sizes, goalBytes: TICK_BUNDLE_GOAL_BYTES, tickRatio, goal: verdict(tickRatio, 1) }
}

const kb = (bytes: number) => `${formatInt(Math.round(bytes / 1000))} KB`

export function formatBundleBench(r: BundleBenchResult): string {
  // One row: a bundle's bytes (with the AWS SDK too, when measured), against viem alone and the goal.
  const row = (label: string, bytes: number, bytesWithAwsSdk?: number) => [
    label,
    kb(bytes),
    bytesWithAwsSdk === undefined ? '' : kb(bytesWithAwsSdk),
    formatRatio(bytes / r.viemFloor, 2),
    `${formatRatio(bytes / r.goalBytes, 2)} of ${kb(r.goalBytes)}`,
    verdict(bytes / r.goalBytes, 1),
  ]
  const names = ['tick', 'heartbeat', 'walker', 'api'] as const
  const rows = names.map((name) => row(`\`${r[name].entry}\``, r[name].bytes, r[name].bytesWithAwsSdk))
  rows.push(["baseline: viem's public client over http alone", kb(r.viemFloor), '', formatRatio(1, 2), '', ''])
  rows.push(row("the API's router alone: an empty @hono/zod-openapi app", r.openApiFloor))
  rows.push(row("the least an x402 settlement can be: @x402/core's facilitator, @x402/evm's exact scheme, six viem actions", r.x402Floor))
  const parts = names.flatMap((name) => [
    '',
    `Largest parts of the ${name} bundle:`,
    '',
    formatTable(
      ['package or folder', { header: 'bytes', align: 'right' }],
      r[name].packages.slice(0, 8).map((p) => [p.name, kb(p.bytes)]),
    ),
  ])
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
    ...parts,
  ].join('\n')
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(formatBundleBench(await runBundleBench({ log: (l) => process.stderr.write(`${l}\n`) })))
}
