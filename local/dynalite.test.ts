// dynalite in a process of its own (the heartbeat bench's store): it serves the table the store uses,
// and stopping it ends the process.
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb'
import { describe, expect, it } from 'vitest'
import { createTable, documentClient, localDynamoClient, startDynaliteChild } from './dynalite.ts'
import { processAlive } from './processAlive.ts'

describe('startDynaliteChild', () => {
  it('serves a table from a process of its own, and stopping it ends that process', async () => {
    const dynalite = await startDynaliteChild()
    const raw = localDynamoClient(dynalite.endpoint)
    const pid = dynalite.pid
    if (pid === undefined) throw new Error('startDynaliteChild: no pid for the running child')
    try {
      expect(pid).not.toBe(process.pid)
      expect(processAlive(pid)).toBe(true)
      await createTable(raw, 'own-process')
      const client = documentClient(raw)
      await client.send(new PutCommand({ TableName: 'own-process', Item: { pk: 'g', sk: 'record', n: 1 } }))
      const got = await client.send(new GetCommand({ TableName: 'own-process', Key: { pk: 'g', sk: 'record' } }))
      expect(got.Item).toEqual({ pk: 'g', sk: 'record', n: 1 })
    } finally {
      raw.destroy()
      await dynalite.stop()
    }
    expect(processAlive(pid)).toBe(false)
  })
})
