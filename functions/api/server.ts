// Local entry: serves the app with @hono/node-server, on 127.0.0.1 unless told otherwise.
import { serve } from '@hono/node-server'
import type { AddressInfo } from 'node:net'
import type { Hono } from 'hono'

export type RunningApi = { url: string; port: number; close(): Promise<void> }

/** Port 0 picks a free port; the returned url has the real one. */
export function serveApi(app: Pick<Hono<any>, 'fetch'>, port = 0, hostname = '127.0.0.1'): Promise<RunningApi> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port, hostname }, (info: AddressInfo) => {
      resolve({
        url: `http://${hostname}:${info.port}`,
        port: info.port,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((err) => (err ? fail(err) : done()))
            // fetch keeps connections alive; without this close() waits for them to time out.
            if ('closeAllConnections' in server) server.closeAllConnections()
          }),
      })
    })
    server.once('error', reject)
  })
}
