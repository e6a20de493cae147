// The deployed heartbeat's hand-over of ticks: asynchronous invocations of the tick function, carrying
// the same payload the local invoker runs in process.
import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda'
import type { TickInvoker, TickRequest } from '../../app/heartbeat/handOver.ts'
import { encodeTickPayload } from '../../app/heartbeat/tickPayload.ts'

/** Invokes the tick function asynchronously (InvocationType Event): AWS retries failed ticks. */
export class LambdaInvoker implements TickInvoker {
  constructor(
    private readonly lambda: Pick<LambdaClient, 'send'>,
    private readonly functionName: string,
  ) {}

  async invoke(requests: readonly TickRequest[]): Promise<void> {
    await this.lambda.send(
      new InvokeCommand({
        FunctionName: this.functionName,
        InvocationType: 'Event',
        Payload: new TextEncoder().encode(encodeTickPayload(requests)),
      }),
    )
  }
}
