/** Where an entry's bundle and its list of sources are kept. */
export type BundlePaths = { dir: string; code: string; sources: string }
export function bundlePaths(entry: string, dir?: string): BundlePaths
/** The bundle's file URL: the kept one while its sources are unchanged, else a new build. */
export function entryBundle(entry: string, paths?: BundlePaths): Promise<string>
/** Runs the entry module: from its bundle, or through tsx where no bundle can be had. */
export function runEntry(entry: string): Promise<unknown>
