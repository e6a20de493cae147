// An entry module's bundle: the project's own modules it imports in one ESM file, packages external,
// built by esbuild and kept with the list of the files it was built from and their modification times.
// It is used while every one of those files is unchanged, and built again otherwise.
//
// tsx's hooks load a TypeScript program's modules one by one: the CLI took about 4 s to start, and each
// of the local stack's processes (the stack itself, its API, its scheduler) 4-5 s. From a kept bundle
// they start in about half that. Where no bundle can be built or kept (esbuild missing, a read-only
// install, a file esbuild cannot compile), tsx runs the module as before, and reports a compile error
// as it always did.
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))

/** The entry's path from the project's root: `cli/main.ts` for the CLI. */
const fromRoot = (entry) => relative(root, resolve(root, entry)).split('\\').join('/')

/** Where an entry's bundle and its list of sources are kept (`dir` is for tests). */
export function bundlePaths(entry, dir = join(root, 'node_modules', '.cache', 'bardo')) {
  const name = fromRoot(entry).replace(/\.ts$/, '').replaceAll('/', '-')
  return { dir, code: join(dir, `${name}.mjs`), sources: join(dir, `${name}.sources.json`) }
}

/** The bundle's file URL: the kept one while its sources are unchanged, else a new build. */
export async function entryBundle(entry, paths = bundlePaths(entry)) {
  if (fresh(paths)) return pathToFileURL(paths.code).href
  const { build } = await import('esbuild')
  const result = await build({
    absWorkingDir: root,
    entryPoints: [fromRoot(entry)],
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    metafile: true,
    outfile: paths.code,
    logLevel: 'silent',
    plugins: [ownLocation],
  })
  const files = Object.keys(result.metafile.inputs).map((file) => [file, statSync(join(root, file)).mtimeMs])
  // Written under a name of this process, then renamed: a process started meanwhile reads a whole file.
  mkdirSync(paths.dir, { recursive: true })
  const part = `.${process.pid}`
  writeFileSync(paths.code + part, result.outputFiles[0].contents)
  writeFileSync(paths.sources + part, JSON.stringify({ root, files }))
  renameSync(paths.code + part, paths.code)
  renameSync(paths.sources + part, paths.sources)
  return pathToFileURL(paths.code).href
}

/** Runs the entry module: from its bundle, or through tsx where no bundle can be had. */
export async function runEntry(entry) {
  const bundle = await entryBundle(entry).catch(() => null)
  if (bundle) return import(bundle)
  const { register } = await import('tsx/esm/api')
  register()
  return import(pathToFileURL(resolve(root, entry)).href)
}

/**
 * The kept bundle was built here (it holds the absolute paths of the modules that find files beside
 * themselves) from the files as they are now.
 */
function fresh(paths) {
  try {
    const { root: builtIn, files } = JSON.parse(readFileSync(paths.sources, 'utf8'))
    statSync(paths.code)
    return builtIn === root && files.length > 0 && files.every(([file, mtimeMs]) => statSync(join(root, file)).mtimeMs === mtimeMs)
  } catch {
    return false
  }
}

/**
 * A module that finds files beside itself (`import.meta.url`, `import.meta.dirname`) keeps finding them
 * from inside the bundle: its own location is written into it.
 */
const ownLocation = {
  name: 'own-location',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes('node_modules')) return undefined
      const text = readFileSync(args.path, 'utf8')
      if (!text.includes('import.meta')) return undefined
      const contents = text
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)))
        .replaceAll('import.meta.filename', JSON.stringify(args.path))
      return { contents, loader: 'ts' }
    })
  },
}
