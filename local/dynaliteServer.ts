// dynalite as a process of its own, for the local stack's supervisor: its data in LevelDB at
// BARDO_DYNALITE_PATH (so a restart finds the tables and items the last run wrote), on 127.0.0.1 at
// BARDO_DYNALITE_PORT. Prints `dynalite listening on <port>` once it serves.
import { createRequire } from 'node:module'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'

type DynaliteOptions = { path?: string; createTableMs?: number; deleteTableMs?: number; updateTableMs?: number }
const dynalite = createRequire(import.meta.url)('dynalite') as (options?: DynaliteOptions) => Server

const path = process.env.BARDO_DYNALITE_PATH
const port = Number(process.env.BARDO_DYNALITE_PORT ?? '0')
const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0, ...(path ? { path } : {}) })
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`dynalite listening on ${(server.address() as AddressInfo).port}\n`)
})
const stop = () => {
  server.close(() => process.exit(0))
  server.closeAllConnections()
}
process.on('SIGTERM', stop)
// Runs in its own process group: when the runner is gone (even by SIGKILL), this process goes too.
const parent = process.ppid
setInterval(() => {
  if (process.ppid !== parent) process.exit(0)
}, 500).unref()
process.on('SIGINT', stop)
