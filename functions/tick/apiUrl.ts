// Where a deployed tick finds the API its Golems pay for their runtime: BARDO_API_URL when it is given
// directly, else the SSM parameter the stack writes once the API exists (BARDO_API_URL_PARAMETER; the
// API invokes the tick, so the tick's environment cannot name the API's URL). A parameter not written
// yet means no self-extension for now, not a failed tick.
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm'

export async function apiUrlFromEnv(env: Record<string, string | undefined>, ssm?: SSMClient): Promise<string | undefined> {
  if (env.BARDO_API_URL) return env.BARDO_API_URL
  const name = env.BARDO_API_URL_PARAMETER
  if (!name) return undefined
  try {
    const out = await (ssm ?? new SSMClient({})).send(new GetParameterCommand({ Name: name }))
    return out.Parameter?.Value || undefined
  } catch (error) {
    if (error instanceof Error && error.name === 'ParameterNotFound') return undefined
    throw error
  }
}
