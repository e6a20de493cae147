/** Where the CLI's bundle and its list of sources are kept. */
export type BundlePaths = { dir: string; code: string; sources: string }
export function bundlePaths(dir?: string): BundlePaths
/** The bundle's file URL: the kept one while its sources are unchanged, else a new build. */
export function cliBundle(paths?: BundlePaths): Promise<string>
