// A worker process runs many test files one after another (the pool keeps its workers, so the packages
// in node_modules load once per worker, not once per file). What a file changes in the process is
// undone when the file ends, so every file starts from the process the run started with:
// - the environment, changed by `vi.stubEnv` or by assigning `process.env`;
// - globals stubbed by `vi.stubGlobal`;
// - the fetch API's classes: an API server started in a file (@hono/node-server's `serve`) puts its own
//   `Request` and `Response` on the global object, and a `Request` cloned by the platform is not an
//   instance of that `Request`.
import { afterAll, vi } from 'vitest'

const started = { ...process.env }
const fetchApi = ['fetch', 'Request', 'Response', 'Headers'].map(
  (name) => [name, Object.getOwnPropertyDescriptor(globalThis, name)] as const,
)

afterAll(() => {
  vi.unstubAllEnvs()
  vi.unstubAllGlobals()
  for (const name of Object.keys(process.env)) if (!(name in started)) delete process.env[name]
  Object.assign(process.env, started)
  for (const [name, descriptor] of fetchApi) if (descriptor) Object.defineProperty(globalThis, name, descriptor)
})
