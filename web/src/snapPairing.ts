// Pairs the owner's Bardo Snap with this Portal's API, from the page the Snap answers (its RPC takes the
// Portal's origins only): the wallet installs or connects the Snap, the Snap asks the API named here for
// a pairing text, the owner's wallet signs it (personal_sign by the key that controls the owner's smart
// account, which the API checks through ERC-1271), and the Snap trades the signature for its token,
// which never reaches the page.
import { toHex } from 'viem'
import type { Wallet } from './actions.ts'
import type { Config } from './api.ts'

export async function pairSnap(
  wallet: Wallet,
  config: Pick<Config, 'apiUrl' | 'snapId'>,
  owner: `0x${string}`,
): Promise<{ paired: boolean; owner: string }> {
  // The Snap methods take an object as their params, not a list.
  const request = wallet.provider.request as (args: { method: string; params: unknown }) => Promise<unknown>
  await request({ method: 'wallet_requestSnaps', params: { [config.snapId]: {} } })
  const invoke = (method: string, params: Record<string, unknown>) =>
    request({ method: 'wallet_invokeSnap', params: { snapId: config.snapId, request: { method, params } } })
  const { message } = (await invoke('startPairing', { owner, apiUrl: config.apiUrl })) as { message: string }
  const signature = (await request({ method: 'personal_sign', params: [toHex(message), wallet.address] })) as string
  return (await invoke('completePairing', { signature })) as { paired: boolean; owner: string }
}
